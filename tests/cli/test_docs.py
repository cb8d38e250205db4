"""The documentation stays true: the command reference is the commands as they are, and the README stays a
page a newcomer reads to the end, linking every page of docs/ (tests/core/test_docs_links.py checks that
each link, and each heading it names, exists)."""

from __future__ import annotations

import re

import click

from conftest import REPO
from summarizer.apps.cli.commands import cli
from summarizer.apps.cli.reference import DOC_PATH, reference_markdown, surface

README = REPO / "README.md"
README_MAX_LINES = 300


def test_docs_commands_md_is_the_commands_as_they_are() -> None:
    written = (REPO / DOC_PATH).read_text(encoding="utf-8")
    assert written == reference_markdown(cli), f"{DOC_PATH} is stale: run `make docs` and commit it"


def test_the_reference_names_every_command_and_option() -> None:
    text = reference_markdown(cli)
    for name, command in cli.commands.items():
        assert f"`summarizer {name}`" in text, name
        for option in command.params:
            if isinstance(option, click.Option):
                assert all(opt in text for opt in option.opts), (name, option.name)
    assert "`summarizer review notes list`" in text and "--tag-aliases" in text


def test_help_ends_with_the_same_overview_as_the_reference() -> None:
    assert cli.epilog == surface(cli)
    assert surface(cli).replace("\b\n", "") in reference_markdown(cli)


def test_the_readme_is_short_enough_to_read_to_the_end() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move reference material to docs/"


def test_the_readme_links_every_page_of_docs() -> None:
    linked = set(re.findall(r"\]\((docs/[^)#\s]+\.md)(?:#[^)]*)?\)", README.read_text(encoding="utf-8")))
    pages = {f"docs/{page.name}" for page in (REPO / "docs").glob("*.md")}
    assert pages - linked == set(), "README.md does not link these pages"
