"""A listing from outside is plain data or it is refused in one line, before any record changes: YAML
aliases that expand a 581-byte file to hundreds of MB, tags that make bytes or sets, nesting that
exhausts the parser."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from conftest import Project, RunCli
from stand_ins.static_site import StaticSite
from summarizer.core.errors import SourceError
from summarizer.fetch.sources.pmlr import parse_citeproc

PAPER = "- id: lovelace26a\n  title: Analytical Engines Revisited\n  author:\n  - {given: Ada, family: Lovelace}\n"
# A paper whose title is nine of nine of … "lol": 9**6 = 531,441 of them (the report's file went to 9**9).
LEVELS = "abcdefg"
ALIASED = (
    "- id: lol26a\n"
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"  {b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in itertools.pairwise(LEVELS))
    + "  title: *g\n"
)


@pytest.fixture
def site() -> Iterator[StaticSite]:
    with StaticSite() as server:
        yield server


def test_the_citeproc_fixture_shape_still_parses() -> None:
    [entry] = parse_citeproc(PAPER)
    assert entry.title == "Analytical Engines Revisited" and entry.authors == ["Ada Lovelace"]


@pytest.mark.parametrize(
    "text",
    [
        "- &paper {id: a26a, title: A Paper}\n- *paper\n",  # an alias to a whole paper
        "- id: a26a\n  title: &t A Paper\n- id: b26b\n  title: *t\n",  # to a title
        "- {id: a26a, title: A, author: &people [{family: Lovelace}]}\n- {id: b26b, title: B, author: *people}\n",
        "- <<: *base\n  id: a26a\n",  # a merge key names an alias too
        ALIASED,
    ],
)
def test_yaml_anchors_and_aliases_are_refused(text: str) -> None:
    with pytest.raises(SourceError, match=r"anchors or aliases"):
        parse_citeproc(text)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("- id: a26a\n  title: !!binary aGVsbG8=\n", "binary"),
        ("- id: a26a\n  title: !!set {a: null}\n", "set"),
        ("- id: a26a\n  title: !!omap [{a: 1}]\n", "omap"),
        ("- !!python/object:collections.OrderedDict {id: a26a, title: T}\n", "python/object"),
        ("- id: a26a\n  title: !custom T\n", "!custom"),
    ],
)
def test_yaml_values_other_than_plain_data_are_refused(text: str, named: str) -> None:
    with pytest.raises(SourceError, match=named):
        parse_citeproc(text)


def test_a_date_stays_the_text_it_was() -> None:
    [entry] = parse_citeproc("- id: a26a\n  title: 2026-07-01\n")
    assert entry.title == "2026-07-01"


@pytest.mark.parametrize("depth", [100, 5000])
def test_yaml_nested_deeper_than_a_paper_list_is_refused(depth: int) -> None:
    with pytest.raises(SourceError, match="nest"):
        parse_citeproc("- id: a26a\n  title: " + "[" * depth + "]" * depth + "\n")


def test_a_citeproc_with_aliases_fails_the_fetch_in_one_line(project: Project, cli: RunCli, site: StaticSite) -> None:
    site.put("/citeproc.yaml", ALIASED, "text/yaml")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "pmlr", "url": f"{site.url}/citeproc.yaml"}
    project.write_config(venues=venues)

    result = cli("fetch", "ICML2026")
    assert result.code == 1
    assert "anchors or aliases" in result.err and len(result.err.strip().splitlines()) == 1
    assert project.store().records("ICML2026") == []


def test_json_nested_deeper_than_the_parser_goes_fails_the_source_in_one_line(
    project: Project, cli: RunCli, site: StaticSite
) -> None:
    site.put("/data.json", "[" * 100_000 + "]" * 100_000, "application/json")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "virtual_site", "url": f"{site.url}/data.json"}
    project.write_config(venues=venues)

    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
    assert "nested" in result.err
