"""The reference's own notes on this site read as on the reference, in real Chromium.

The 37 real notes of ``../shared/fixtures/real/notes`` are imported (``summarizer import``), approved
(``review notes approve``), built (``summarizer build``) and rendered (``mkdocs build --strict``).  Each
paper page is opened in Chromium, and the text of its note (the ``paper-note`` parts) is compared with
the text the same browser shows of the original file rendered as the reference renders it: its
Markdown through the reference's own extensions (its mkdocs.yml excerpt), its front matter taken off
as MkDocs takes it.  MathJax is kept off both pages, so math is compared as the TeX arithmatex writes.
The same paper filed twice has two note versions: each is approved and compared in turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import markdown
import pytest
import yaml
from mkdocs.utils.meta import get_data
from test_mkdocs import mkdocs_build

from browser import chromium, serve_directory
from conftest import Project, RunCli
from summarizer.core.ids import record_id
from summarizer.core.records import NoteVersion, Record
from summarizer.core.store import Store

pytestmark = pytest.mark.slow  # real Chromium, two MkDocs builds

ARXIV = re.compile(r"^\*\*arXiv\*\*: \[(\d{4}\.\d{4,5})\]", re.MULTILINE)
FRONT_ARXIV = re.compile(r'^arxiv: "(\d{4}\.\d{4,5})"', re.MULTILINE)
TITLE = re.compile(r"^# (.+)$", re.MULTILINE)
SUMMARY = "本文提出一种新方法，并在公开基准上验证了它的效果；这是为导入的笔记写的占位摘要，长度足够通过检查。"
NOTE_TEXT = "() => [...document.querySelectorAll('article .paper-note')].map(e => e.innerText).join('\\n')"
BODY_TEXT = "() => document.body.innerText"


def note_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.md"))


def papers_for(project: Project, folder: Path) -> Store:
    """A record with an approved summary for each paper the folder's notes are about, in the note's field."""
    files = note_files(folder)
    parts = [p.relative_to(folder).parts for p in files]
    project.write_config(
        venues=[{"id": v} for v in sorted({venue for venue, *_ in parts})],
        fields=[{"id": f, "name": f} for f in sorted({field for _, field, *_ in parts})],
    )
    store = project.store()
    for path, (venue, field, *_) in zip(files, parts, strict=True):
        text = path.read_text("utf-8")
        arxiv = ARXIV.search(text) or FRONT_ARXIV.search(text)
        title = TITLE.search(text).group(1)  # type: ignore[union-attr]
        pid = record_id(arxiv_id=arxiv.group(1) if arxiv else None, title=title)
        if store.get(venue, pid) is not None:
            continue  # the same paper filed in two fields: one record, two notes
        record = Record(venue=venue, id=pid, title=title, arxiv_id=arxiv.group(1) if arxiv else None)
        record.summaries.add_version(SUMMARY, ["LLM"], field, "import")
        record.summaries.approve()
        store.save(record)
    return store


def reference_extensions(fixtures: Path) -> tuple[list[str], dict[str, Any]]:
    """The reference site's Markdown extensions and their options (its own mkdocs.yml)."""
    config = yaml.safe_load((fixtures / "notes" / "reference-mkdocs-excerpt.yml").read_text("utf-8"))
    names = [next(iter(item)) if isinstance(item, dict) else item for item in config["markdown_extensions"]]
    options = {
        next(iter(item)): next(iter(item.values())) for item in config["markdown_extensions"] if isinstance(item, dict)
    }
    return names, options


def reference_html(path: Path, extensions: tuple[list[str], dict[str, Any]]) -> str:
    """The note file as the reference site renders it: MkDocs takes its front matter, Markdown the rest."""
    source, _meta = get_data(path.read_text("utf-8"))
    return markdown.markdown(source, extensions=extensions[0], extension_configs=extensions[1])


def normalized(text: str) -> str:
    return " ".join(text.split())


def page_url(record: Record) -> str:
    field = record.summaries.approved.field  # type: ignore[union-attr]
    return f"{record.venue}/{field}/{record.id}/"


@pytest.fixture
def browser_page() -> Iterator[Any]:
    with chromium() as browser:
        context = browser.new_context()
        page = context.new_page()
        # No MathJax on either page: math is compared as the TeX arithmatex writes, on both sides alike.
        page.route("**/mathjax/**", lambda route: route.abort())
        yield page
        context.close()


def differing_notes(
    page: Any, base: str, store: Store, shown: dict[Path, NoteVersion], extensions: tuple[list[str], dict[str, Any]]
) -> list[str]:
    """Each note file whose text on its paper page differs from the reference's rendering: why."""
    differ = []
    for path, version in shown.items():
        record = next(r for v in store.venues() for r in store.records(v) if version in r.notes.versions)
        page.goto(f"{base}/{page_url(record)}")
        ours = normalized(page.evaluate(NOTE_TEXT))
        assert ours, f"{path.name}: no note on {page.url}"
        page.set_content(reference_html(path, extensions))
        theirs = normalized(page.evaluate(BODY_TEXT))
        if ours != theirs:
            at = next(
                (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs))
            )
            start = max(at - 40, 0)
            differ.append(f"{path.name}: ours {ours[start : at + 60]!r} vs the reference {theirs[start : at + 60]!r}")
    return differ


def test_every_reference_note_reads_on_its_paper_page_as_on_the_reference(
    project: Project, cli: RunCli, real_fixtures: Path, browser_page: Any
) -> None:
    folder = real_fixtures / "notes"
    store = papers_for(project, folder)
    files = note_files(folder)
    assert cli("import", str(folder)).code == 0
    versions = {
        (v.header or "") + v.markdown: v
        for venue in store.venues()
        for r in store.records(venue)
        for v in r.notes.versions
    }
    by_file = {path: versions[path.read_text("utf-8")] for path in files}
    extensions = reference_extensions(real_fixtures)
    root = project.root / "outputs" / "site"

    differ: list[str] = []
    compared = 0
    # Each round approves every paper's next note version: a paper filed twice is shown once per round.
    for number in (1, 2):
        for venue in store.venues():
            for record in store.records(venue):
                if record.notes.version(number) is not None:
                    record.notes.approve(number)
                    store.save(record)
        shown = {path: v for path, v in by_file.items() if v.number == number}
        if not shown:
            continue
        assert cli("build").code == 0
        result = mkdocs_build(root)
        assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr[-3000:]
        with serve_directory(root / "site") as base:
            differ += differing_notes(browser_page, base, store, shown, extensions)
        compared += len(shown)
    assert compared == len(files) == 37
    assert not differ, f"{len(differ)} of {compared} notes read differently:\n" + "\n".join(differ)
