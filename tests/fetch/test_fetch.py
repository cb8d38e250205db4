"""`summarizer fetch` end to end: a venue list against a loopback arXiv, then `status --json`."""

from __future__ import annotations

import json

import pytest

from conftest import Project, RunCli
from summarizer.core.paper_text import PaperText, paper_sections
from summarizer.core.records import Record
from summarizer.core.sanitize import has_unsafe_characters
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.pdfs import corrupt_pdf

PAPERS = [
    FakePaper("2501.00001", "Sparse Attention for Long Context Language Models", "We make attention sparse."),
    FakePaper("2501.00002", "Diffusion Models Need Fewer Steps", "We cut diffusion sampling steps in half."),
    FakePaper("2501.00003", "Scaling Laws for Reward Model Overoptimization", "Reward models overfit; we measure how."),
    FakePaper("2501.00004", "A Paper Whose PDF Is Broken", "The abstract survives."),
    FakePaper("2501.00005", "A Paper Behind a Captcha", "The host sends HTML."),
]

LIST = """\
# ICML 2026 accepted papers
2501.00001
https://arxiv.org/abs/2501.00002v1

Scaling Laws for Reward Model Overoptimization   # a title only
2501.09999
2501.00004
2501.00005
"""


pytestmark = pytest.mark.arxiv_papers(PAPERS)


def configure(project: Project, fake_arxiv: FakeArxiv, text: str = LIST) -> None:
    (project.root / "papers.txt").write_text(text, encoding="utf-8")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "list", "path": "papers.txt"}
    project.write_config(
        venues=venues,
        arxiv={"delay_s": 0, "api_url": fake_arxiv.api_url},
        http={**project.config["http"], "timeout_s": 5},
    )


def test_fetch_a_mixed_list_then_fetch_again(project: Project, cli: RunCli, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.set_pdf("2501.00004", corrupt_pdf())
    fake_arxiv.set_pdf("2501.00005", b"<html><body>Please verify you are human</body></html>", content_type="text/html")
    configure(project, fake_arxiv)

    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    assert "3 fetched, 0 cached, 3 failed" in result.err

    # The API calls were batched: all five ids in one request, the unknown one asked once more, one title search.
    api = fake_arxiv.api_requests()
    id_calls = [r.ids for r in api if r.ids]
    assert id_calls[0] == ["2501.00001", "2501.00002v1", "2501.09999", "2501.00004", "2501.00005"]
    assert id_calls[1:] == [["2501.09999"]]
    assert all(int(r.params["max_results"]) >= len(r.ids) for r in api if r.ids)
    searches = [r.params["search_query"] for r in api if not r.ids]
    assert searches == ['ti:"Scaling Laws for Reward Model Overoptimization"']

    settings = project.settings()
    store = project.store()
    for pid in ("2501.00001", "2501.00002", "2501.00003"):
        record = store.load("ICML2026", pid)
        assert record.fetch.text_path and not record.fetch.abstract_only
        assert not record.failures
        text = PaperText.from_json((settings.cache_dir / record.fetch.text_path).read_text("utf-8"))
        assert text.introduction and text.conclusion and text.abstract
        assert (settings.cache_dir / "pdf" / f"{record.fetch.pdf_sha256}.pdf").read_bytes().startswith(b"%PDF-")

    # The title-only line was resolved to its arXiv id, and the record remembers the line.
    titled = store.load("ICML2026", "2501.00003")
    assert titled.arxiv_id == "2501.00003v1"
    assert titled.source_entry == "Scaling Laws for Reward Model Overoptimization"
    assert titled.abstract == "Reward models overfit; we measure how."

    status = cli("status", "ICML2026", "--json").json()
    failed = {f["id"]: f for f in status["failed"]}
    assert set(failed) == {"2501.09999", "2501.00004", "2501.00005"}
    assert all(f["stage"] == "fetch" for f in failed.values())
    assert "not found on arXiv" in failed["2501.09999"]["reason"]
    assert "damaged" in failed["2501.00004"]["reason"]
    assert "not a PDF" in failed["2501.00005"]["reason"] and "HTML" in failed["2501.00005"]["reason"]
    assert status["fetched"] == 3
    # The broken PDF's paper can still be summarised from its arXiv abstract, and its record says so.
    assert store.load("ICML2026", "2501.00004").fetch.abstract_only
    # Nothing that is not a PDF was saved as one.
    for path in (settings.cache_dir / "pdf").glob("*.pdf"):
        assert path.read_bytes().startswith(b"%PDF-")

    # Second run: nothing that succeeded is requested again; the failures are tried again.
    fake_arxiv.reset_log()
    again = cli("fetch", "ICML2026")
    assert again.code == 1
    assert "0 fetched, 3 cached, 3 failed" in again.err
    asked = {i for r in fake_arxiv.api_requests() for i in r.ids}
    assert asked == {"2501.09999"}
    assert not [r for r in fake_arxiv.api_requests() if not r.ids], "no title search for a resolved title"
    assert set(fake_arxiv.pdf_requests()) == {"2501.00004", "2501.00005"}


def test_fetch_all_good_exits_0_and_second_run_makes_no_request(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    configure(project, fake_arxiv, "2501.00001\n2501.00002\n")
    first = cli("fetch", "ICML2026")
    assert first.code == 0, first.err
    assert "2 fetched, 0 cached, 0 failed" in first.err
    fake_arxiv.reset_log()
    second = cli("fetch", "ICML2026")
    assert second.code == 0
    assert "0 fetched, 2 cached, 0 failed" in second.err
    assert fake_arxiv.requests == []


def test_fetch_limit_takes_the_first_papers(project: Project, cli: RunCli, fake_arxiv: FakeArxiv) -> None:
    configure(project, fake_arxiv, "2501.00001\n2501.00002\n2501.00003\n")
    result = cli("fetch", "ICML2026", "--limit", "1")
    assert result.code == 0, result.err
    assert [r.id for r in project.store().records("ICML2026")] == ["2501.00001"]


def test_fetch_without_a_source_is_a_usage_error(project: Project, cli: RunCli) -> None:
    result = cli("fetch", "ICLR2026")
    assert result.code == 2
    assert "no source" in result.err


def test_failures_are_listed_with_reasons(project: Project, cli: RunCli, fake_arxiv: FakeArxiv) -> None:
    configure(project, fake_arxiv, "2501.00001\n2501.1\nAttention Is All You Need\n")
    result = cli("fetch", "ICML2026")
    assert result.code == 1
    assert "malformed arXiv id" in result.err
    assert "no arXiv match for title" in result.err
    records = {r.id: r for r in project.store().records("ICML2026")}
    assert records["attention-is-all-you-need"].failures["fetch"].reason == "no arXiv match for title"
    assert json.loads(records["2501.00001"].model_dump_json())["fetch"]["text_path"].startswith("text/")


# -- a corrupt cached text or PDF is no dead end ----------------------------------------------------------


def test_a_corrupt_cached_text_is_extracted_again_and_regen_names_the_repair(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    configure(project, fake_arxiv, "2501.00001\n")
    assert cli("fetch", "ICML2026").code == 0
    settings = project.settings()
    record = project.store().load("ICML2026", "2501.00001")
    text_file = settings.cache_dir / str(record.fetch.text_path)
    text_file.write_text('{"title": "trunc', encoding="utf-8")  # a crash or a full disk left half a file

    regen = cli("regen", "ICML2026/2501.00001")
    assert regen.code == 2 and "summarizer fetch ICML2026" in regen.err

    fake_arxiv.reset_log()
    again = cli("fetch", "ICML2026")
    assert again.code == 0, again.err
    assert "1 fetched, 0 cached" in again.err
    assert fake_arxiv.requests == []  # the cached PDF was read again: nothing downloaded
    assert PaperText.from_json(text_file.read_text("utf-8")).introduction


def test_a_corrupt_cached_pdf_is_downloaded_again(project: Project, cli: RunCli, fake_arxiv: FakeArxiv) -> None:
    configure(project, fake_arxiv, "2501.00001\n")
    assert cli("fetch", "ICML2026").code == 0
    settings = project.settings()
    record = project.store().load("ICML2026", "2501.00001")
    (settings.cache_dir / str(record.fetch.text_path)).unlink()
    (settings.cache_dir / "pdf" / f"{record.fetch.pdf_sha256}.pdf").write_bytes(corrupt_pdf())

    fake_arxiv.reset_log()
    again = cli("fetch", "ICML2026")
    assert again.code == 0, again.err
    assert set(fake_arxiv.pdf_requests()) == {"2501.00001"}
    assert project.store().load("ICML2026", "2501.00001").fetch.text_path


# -- every paper can be fetched, source or not --------------------------------------------------------------


def test_a_sourceless_venue_fetches_the_records_that_have_an_id_or_url(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    configure(project, fake_arxiv, "")  # ICLR2026 keeps no source: its records came by `import`
    store = project.store()
    store.save(
        Record(venue="ICLR2026", id="custom-id", title="Diffusion Models Need Fewer Steps", arxiv_id="2501.00002")
    )
    store.save(Record(venue="ICLR2026", id="only-abstract", title="Abstract Only", abstract="We did a thing."))
    store.save(Record(venue="ICLR2026", id="nothing", title="Nothing At All"))

    result = cli("fetch", "ICLR2026")
    assert result.code == 0, result.err
    assert "1 fetched" in result.err and "1 abstract only" in result.err
    fetched = project.store().load("ICLR2026", "custom-id")
    assert fetched.fetch.text_path and fetched.abstract == "We cut diffusion sampling steps in half."
    assert fetched.source_type is None and fetched.source_entry is None  # a source-less record keeps what it had
    only = project.store().load("ICLR2026", "only-abstract")
    assert only.fetch.abstract_only

    sections = paper_sections(project.settings(), only)
    assert any("We did a thing." in text for _name, text in sections)
    assert [r.id for r in project.store().records("ICLR2026")] == ["custom-id", "nothing", "only-abstract"]


def test_text_from_arxiv_is_cleaned_before_it_enters_a_record(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    fake_arxiv.add(
        FakePaper("2501.00007", "Evil\x1b]0;title\x07 Title\u202e", "Line one\x1b[2J\nline two", authors=["A\tB"])
    )
    configure(project, fake_arxiv, "2501.00007\n")
    assert cli("fetch", "ICML2026").code == 0
    record = project.store().load("ICML2026", "2501.00007")
    for text in (record.title, record.abstract or "", *record.authors):
        assert not has_unsafe_characters(text) and "\t" not in text
