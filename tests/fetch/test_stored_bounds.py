"""What fetch stores meets the rules import checks, so a fetched venue's export imports into an empty
project: one set of bounds and URL rules (``core.bounds``) for every way a record comes in."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import Project, RunCli, summary_text
from stand_ins.static_site import StaticSite
from summarizer.core import limits
from summarizer.core.bounds import check_title, check_url, fit_title, fit_url
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.pdfs import paper_pdf

LONG_ABSTRACT = "We study sparse attention for long documents and report what we find. " * 360  # ~25,000
LONG_TITLE = "A Paper Not on arXiv Whose Title Runs On " + "and On " * 26  # a list line over 200 characters
PAPERS = [
    FakePaper("2501.00001", "Sparse Attention for Long Context Language Models", LONG_ABSTRACT),
    FakePaper(
        "2501.00002",
        "Diffusion Models Need Fewer Steps \\href{javascript:alert(1)}{here}",
        "We cut diffusion sampling steps in half.",
        authors=["Ada Lovelace", "B" * 600, *[f"Author {i}" for i in range(600)]],
    ),
]


def fetched_venue(project: Project, fake: FakeArxiv, site: StaticSite) -> None:
    """A venue whose list says odd things: a relative URL, an ftp: URL, a line longer than a source id."""
    site.put("/own.pdf", paper_pdf("Own", "A paper with a PDF of its own."), "application/pdf")
    rows = io.StringIO()
    writer = csv.writer(rows)
    writer.writerow(["title", "arxiv_id", "url", "pdf_url"])
    writer.writerow(["", "2501.00001", "/papers/sparse-attention.html", ""])
    writer.writerow(["", "2501.00002", "ftp://example.org/papers/diffusion.pdf", ""])
    writer.writerow([LONG_TITLE, "", "ftp://example.org/own", f"{site.url}/own.pdf"])
    (project.root / "papers.csv").write_text(rows.getvalue(), encoding="utf-8")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "list", "path": "papers.csv"}
    project.write_config(venues=venues, arxiv={"delay_s": 0, "api_url": fake.api_url})


def test_a_fetched_venue_exports_and_imports_into_an_empty_project(
    project: Project, cli: RunCli, tmp_path: Path
) -> None:
    with FakeArxiv(PAPERS) as fake, StaticSite() as site:
        fetched_venue(project, fake, site)
        result = cli("fetch", "ICML2026")
    assert result.code == 0, result.err
    store = project.store()
    records = store.records("ICML2026")
    assert len(records) == 3
    for record in records:  # a reviewer would have summarised them
        record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
        store.save(record)
    exported = cli("export", "ICML2026")
    assert exported.code == 0, exported.err
    lines = [json.loads(line) for line in exported.out.splitlines()]
    assert len(lines) == 3

    empty = Project(root=tmp_path / "empty", config={k: v for k, v in project.config.items() if k != "venues"})
    empty.root.mkdir()
    empty.write_config(venues=[{"id": "ICML2026"}])
    imported = cli("import", str(empty.write_jsonl("export.jsonl", lines)), config=empty.config_path)
    assert imported.code == 0, imported.err
    assert len(empty.store().records("ICML2026")) == 3

    by_id = {line["id"]: line for line in lines}
    assert len(by_id["2501.00001"]["abstract"]) <= limits.ABSTRACT
    assert "\\href" not in by_id["2501.00002"]["title"]
    assert len(by_id["2501.00002"]["authors"]) == limits.AUTHORS
    assert all(len(name) <= limits.AUTHOR for name in by_id["2501.00002"]["authors"])
    assert all(line["url"] is None or check_url(line["url"]) for line in lines)
    assert all(len(line["source_id"]) <= limits.SOURCE_ID for line in lines)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("https://example.org/paper", True),
        ("HTTP://example.org/paper", True),
        ("/papers/relative.html", False),
        ("ftp://example.org/paper", False),
        ("https://example.org/a paper", False),
        ("javascript:alert(1)", False),
        ("https://example.org/" + "a" * limits.URL, False),
    ],
)
def test_a_source_keeps_a_url_exactly_when_import_would(url: str, kept: bool) -> None:
    assert (fit_url(url) == url) is kept
    if not kept:
        with pytest.raises(ValueError):
            check_url(url)


def test_a_title_that_import_would_refuse_is_made_one_it_takes() -> None:
    title = fit_title("A \\href{javascript:x}{link}, a \\\\href line break, \\mathcal{O}(n)  " + "x" * 600)
    assert title.startswith("A href{javascript:x}{link}, a \\\\href line break, \\mathcal{O}(n) xx")
    assert check_title(title) == title and len(title) <= limits.TITLE


def test_the_pmlr_source_drops_what_import_would_refuse(project: Project, cli: RunCli) -> None:
    citeproc = [{"id": "a" * 300, "title": "T", "URL": "https://example.org/a b", "PDF": "ftp://x/y.pdf"}]
    with StaticSite({"/c.yaml": (yaml.safe_dump(citeproc), "text/yaml")}) as site:
        venues: list[dict[str, Any]] = [dict(v) for v in project.config["venues"]]
        venues[0]["source"] = {"type": "pmlr", "url": f"{site.url}/c.yaml"}
        project.write_config(venues=venues)
        cli("fetch", "ICML2026")
    [record] = project.store().records("ICML2026")
    assert record.url is None and record.fetch.pdf_url is None and len(record.source_id or "") == limits.SOURCE_ID
