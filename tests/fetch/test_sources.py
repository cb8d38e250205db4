"""The fetch stage against a loopback arXiv: lists, batching, retries, titles, PDFs that are not PDFs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import Project
from logical_clock import LogicalClock
from summarizer.core.config import Settings
from summarizer.core.pacing import HostPacer, host_of
from summarizer.core.report import Report
from summarizer.core.store import Store
from summarizer.fetch import fetch_venue
from summarizer.fetch.arxiv_api import ArxivAPI, title_query, titles_match
from summarizer.fetch.net import host_pacer
from summarizer.fetch.sources.lists import parse_line, read_list
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.pdfs import encrypted_pdf, image_only_pdf, paper_pdf


def venue_with(project: Project, fake_arxiv: FakeArxiv, source: dict[str, object], **http: object) -> Settings:
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = source
    project.write_config(
        venues=venues,
        arxiv={"delay_s": 0, "api_url": fake_arxiv.api_url},
        http={**project.config["http"], "timeout_s": 5, **http},
    )
    return project.settings()


def fetch_list(project: Project, fake_arxiv: FakeArxiv, text: str, **http: object) -> tuple[Settings, Store, Report]:
    (project.root / "papers.txt").write_text(text, encoding="utf-8")
    settings = venue_with(project, fake_arxiv, {"type": "list", "path": "papers.txt"}, **http)
    store = Store(settings.outputs_dir)
    return settings, store, fetch_venue(settings, store, "ICML2026")


# -- list parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "arxiv_id"),
    [
        ("2501.12948", "2501.12948"),
        ("2501.12948v2", "2501.12948v2"),
        ("arXiv:2501.12948", "2501.12948"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("https://arxiv.org/abs/2501.12948v1", "2501.12948v1"),
        ("https://arxiv.org/pdf/2501.12948.pdf", "2501.12948"),
        ("http://export.arxiv.org/abs/hep-th/9901001v3", "hep-th/9901001v3"),
    ],
)
def test_parse_line_ids_and_urls(line: str, arxiv_id: str) -> None:
    entry = parse_line(line)
    assert entry.arxiv_id == arxiv_id and entry.problem is None


@pytest.mark.parametrize("line", ["2501.129", "2501.12948v", "arXiv:12.34", "hep-th/99", "0000.0000"])
def test_parse_line_malformed_ids(line: str) -> None:
    entry = parse_line(line)
    assert entry.problem is not None and "malformed arXiv id" in entry.problem
    assert entry.arxiv_id is None


def test_parse_line_titles_and_other_urls() -> None:
    assert parse_line("Attention Is All You Need").title == "Attention Is All You Need"
    assert parse_line("https://example.org/paper.pdf").problem is not None
    assert parse_line("https://arxiv.org/list/cs.LG/recent").problem is not None


def test_read_list_txt_csv_jsonl(tmp_path: Path) -> None:
    txt = tmp_path / "a.txt"
    txt.write_text("# header\n\n2501.00001  # a comment\nSome Title # note\n   \n", encoding="utf-8")
    assert [(e.arxiv_id, e.title) for e in read_list(txt)] == [("2501.00001", None), (None, "Some Title")]

    csv_file = tmp_path / "a.csv"
    csv_file.write_text(
        "title,arxiv_id,url,pdf_url\n"
        '"A, Title",2501.00001,,\n'
        "From URL,,https://arxiv.org/abs/2501.00002,\n"
        "Off arXiv,,https://example.org/p,https://example.org/p.pdf\n"
        ",,,\n"
        "Bad,25.1,,\n",
        encoding="utf-8",
    )
    rows = read_list(csv_file)
    assert [r.arxiv_id for r in rows] == ["2501.00001", "2501.00002", None, None]
    assert rows[0].title == "A, Title" and rows[0].line.startswith('"A, Title"')
    assert rows[2].pdf_url == "https://example.org/p.pdf" and rows[2].problem is None
    assert rows[3].problem == "malformed arXiv id '25.1'"

    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"title": "T", "arxiv_id": "2501.00003v2"}\nnot json\n[1]\n{"url": "x"}\n', encoding="utf-8")
    rows = read_list(jsonl)
    assert rows[0].arxiv_id == "2501.00003v2"
    assert [r.problem is not None for r in rows] == [False, True, True, True]


# -- titles ----------------------------------------------------------------------------------


def test_titles_match_closely_but_not_a_near_miss() -> None:
    assert titles_match("Attention is all you need", "Attention Is All You Need.")
    assert titles_match("Pre-training Transformers: A Survey", "Pretraining  transformers — a survey")
    assert titles_match("ＤＥＲ: Dynamic  Expansion", "DER: dynamic expansion")  # NFKC
    assert not titles_match("Attention Is All You Need", "Attention Is Not All You Need")
    assert not titles_match("Scaling Laws for Neural Language Models", "Scaling Laws for Neural Machine Translation")
    assert title_query('BERT: "Deep" (Bidirectional) Transformers?') == 'ti:"BERT Deep Bidirectional Transformers"'


# -- the API ---------------------------------------------------------------------------------


def test_ids_are_batched_by_100_with_max_results(project: Project, fake_arxiv: FakeArxiv) -> None:
    for n in range(1, 251):
        fake_arxiv.add(FakePaper(f"2502.{n:05d}", f"Paper number {n}"))
    settings = venue_with(project, fake_arxiv, {"type": "list", "path": "config.yaml"})
    api = ArxivAPI(settings)
    wanted = [f"2502.{n:05d}" for n in range(1, 251)]
    found, failed = api.by_ids(wanted)
    assert set(found) == set(wanted) and not failed
    calls = fake_arxiv.api_requests()
    assert [len(r.ids) for r in calls] == [100, 100, 50]
    assert [int(r.params["max_results"]) for r in calls] == [100, 100, 50]


def test_unknown_id_is_asked_once_more_then_not_found(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    settings = venue_with(project, fake_arxiv, {"type": "list", "path": "config.yaml"})
    found, failed = ArxivAPI(settings).by_ids(["2501.00001", "2501.09999"])
    assert set(found) == {"2501.00001"}
    assert failed == {"2501.09999": "not found on arXiv"}
    assert fake_arxiv.requested_ids() == [["2501.00001", "2501.09999"], ["2501.09999"]]


def test_error_entry_is_not_a_paper(project: Project) -> None:
    with FakeArxiv([FakePaper("2501.00001", "Known")], error_entries=True) as fake_arxiv:
        settings = venue_with(project, fake_arxiv, {"type": "list", "path": "config.yaml"})
        found, failed = ArxivAPI(settings).by_ids(["2501.09999"])
    assert found == {} and failed == {"2501.09999": "not found on arXiv"}


def test_the_arxiv_api_waits_its_turn_on_the_runs_pacer(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    fake_arxiv.fail_api(503, times=1)
    settings = venue_with(project, fake_arxiv, {"type": "list", "path": "config.yaml"})
    clock = LogicalClock()
    pacer = HostPacer(0.5, {host_of(settings.arxiv.api_url): 3.0}, clock=clock, sleep=clock.sleep)
    api = ArxivAPI(settings, pacer)
    assert api.client.delay_seconds == 0  # the package keeps no clock of its own
    api.by_ids(["2501.00001"])  # a 503, then the retry
    api.by_ids(["2501.00001"])
    assert [r.status for r in fake_arxiv.api_requests()] == [503, 200, 200]
    assert clock.sleeps == [3.0, 3.0]  # every request after the first, the retry included


def test_one_pacer_for_the_run_with_the_arxiv_apis_interval(project: Project) -> None:
    project.write_config(
        arxiv={"delay_s": 3, "api_url": "https://export.arxiv.org/api/query"},
        http={**project.config["http"], "min_interval_s": 1.5},
    )
    pacer = host_pacer(project.settings())
    assert pacer.interval_for("export.arxiv.org") == 3 and pacer.interval_for("arxiv.org") == 1.5


def test_503_then_success_is_retried(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    fake_arxiv.fail_api(503, times=2)
    _settings, _store, report = fetch_list(project, fake_arxiv, "2501.00001\n")
    assert report.ok, report.failures
    assert [r.status for r in fake_arxiv.api_requests()] == [503, 503, 200]


def test_persistent_429_fails_the_batch_not_the_run(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    fake_arxiv.fail_api(429, times=project.settings().http.retry_attempts * 2)
    _settings, store, report = fetch_list(project, fake_arxiv, "2501.00001\n")
    assert report.failures == [("2501.00001", "the arXiv API answered HTTP 429")]
    assert store.load("ICML2026", "2501.00001").failures["fetch"].reason == "the arXiv API answered HTTP 429"


def test_malformed_id_is_never_sent(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    _settings, store, report = fetch_list(project, fake_arxiv, "2501.00001\n2501.1\n")
    assert [r.ids for r in fake_arxiv.api_requests()] == [
        ["2501.00001"]
    ]  # one malformed id would make arXiv answer 400
    failures = dict(report.failures)
    assert list(failures.values()) == ["malformed arXiv id '2501.1'"]
    assert store.load("ICML2026", "2501.00001").fetch.text_path


def test_title_that_matches_is_resolved_and_a_near_miss_is_not(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00007", "Attention Is Not All You Need", "Pure attention loses rank."))
    fake_arxiv.add(
        FakePaper("2501.00008", "Direct Preference Optimization: Your Language Model is Secretly a Reward Model")
    )
    text = "Attention Is All You Need\ndirect preference optimization your language model is secretly a reward model\n"
    _settings, store, report = fetch_list(project, fake_arxiv, text)
    assert dict(report.failures) == {"attention-is-all-you-need": "no arXiv match for title"}
    resolved = store.load("ICML2026", "2501.00008")
    assert resolved.title.startswith("Direct Preference Optimization")
    assert store.get("ICML2026", "2501.00007") is None, "never summarise the wrong paper"


def test_a_title_that_resolves_later_leaves_no_stale_record(project: Project, fake_arxiv: FakeArxiv) -> None:
    text = "Scaling Sparse Experts Without Tears\n"
    _settings, store, report = fetch_list(project, fake_arxiv, text)
    assert dict(report.failures) == {"scaling-sparse-experts-without-tears": "no arXiv match for title"}
    fake_arxiv.add(FakePaper("2501.00009", "Scaling Sparse Experts Without Tears"))  # the paper appears on arXiv
    _settings, store, report = fetch_list(project, fake_arxiv, text)
    assert report.ok
    assert [r.id for r in store.records("ICML2026")] == ["2501.00009"]


def test_arxiv_query_source(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Accepted One", comment="Accepted at ICML 2026"))
    fake_arxiv.add(FakePaper("2501.00002", "Accepted Two", comment="ICML 2026 (oral)"))
    fake_arxiv.add(FakePaper("2501.00003", "Elsewhere", comment="NeurIPS 2025"))
    settings = venue_with(project, fake_arxiv, {"type": "arxiv_query", "query": 'co:"ICML 2026"', "max_results": 50})
    store = Store(settings.outputs_dir)
    report = fetch_venue(settings, store, "ICML2026")
    assert report.ok
    assert [r.id for r in store.records("ICML2026")] == ["2501.00001", "2501.00002"]
    assert store.load("ICML2026", "2501.00002").comment == "ICML 2026 (oral)"


# -- PDFs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "content_type", "reason"),
    [
        (
            b"<!DOCTYPE html><html>verify you are human</html>",
            200,
            "text/html",
            "not a PDF: the server sent an HTML page",
        ),
        (b"", 200, "application/pdf", "not a PDF: the server sent an empty body"),
        (b"Not Found", 404, "text/plain", "PDF download failed: HTTP 404"),
        (b"PK\x03\x04zipfile", 200, "application/octet-stream", "not a PDF: no %PDF- header"),
    ],
)
def test_what_is_not_a_pdf_fails_with_a_reason(
    project: Project, fake_arxiv: FakeArxiv, body: bytes, status: int, content_type: str, reason: str
) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known", "An abstract we can still use."))
    fake_arxiv.set_pdf("2501.00001", body, status=status, content_type=content_type)
    settings, store, report = fetch_list(project, fake_arxiv, "2501.00001\n")
    (_paper, why), *_ = report.failures
    assert why.startswith(reason)
    record = store.load("ICML2026", "2501.00001")
    assert record.failures["fetch"].reason == why and record.fetch.abstract_only
    assert not list((settings.cache_dir / "pdf").glob("*")) if (settings.cache_dir / "pdf").exists() else True


@pytest.mark.parametrize(
    ("make", "reason"),
    [(encrypted_pdf, "the PDF is encrypted"), (image_only_pdf, "the PDF has no text layer")],
)
def test_unreadable_pdfs_fail_but_keep_the_abstract(
    project: Project, fake_arxiv: FakeArxiv, make: Callable[[], bytes], reason: str
) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known", "The arXiv abstract.", pdf=make()))
    _settings, store, report = fetch_list(project, fake_arxiv, "2501.00001\n")
    assert report.counts == {"fetched": 0, "cached": 0, "failed": 1}
    record = store.load("ICML2026", "2501.00001")
    assert record.failures["fetch"].reason.startswith(reason)
    assert record.fetch.abstract_only and record.abstract == "The arXiv abstract."


def test_pdf_over_the_size_cap(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known", pdf=paper_pdf("Known", "Abstract.")))
    _settings, _store, report = fetch_list(project, fake_arxiv, "2501.00001\n", max_pdf_mb=0.01)
    (_, why), *_ = report.failures
    assert "larger than http.max_pdf_mb" in why


def test_pdf_503_then_ok_and_pdfs_are_cached_by_hash(project: Project, fake_arxiv: FakeArxiv) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    fake_arxiv.add(FakePaper("2501.00002", "Other"))
    fake_arxiv.fail_pdf("2501.00001", 503, times=1)
    settings, store, report = fetch_list(project, fake_arxiv, "2501.00001\n2501.00002\n", pdf_concurrency=2)
    assert report.ok, report.failures
    assert fake_arxiv.pdf_requests() == {"2501.00001": 2, "2501.00002": 1}
    record = store.load("ICML2026", "2501.00001")
    assert (settings.cache_dir / "pdf" / f"{record.fetch.pdf_sha256}.pdf").is_file()
    assert record.fetch.text_path == f"text/{record.fetch.pdf_sha256}.json"


def test_records_are_saved_and_a_rerun_after_a_lost_text_cache_requests_only_the_pdf(
    project: Project, fake_arxiv: FakeArxiv
) -> None:
    fake_arxiv.add(FakePaper("2501.00001", "Known"))
    settings, store, report = fetch_list(project, fake_arxiv, "2501.00001\n")
    record = store.load("ICML2026", "2501.00001")
    for path in (settings.cache_dir).rglob("*.*"):
        path.unlink()
    fake_arxiv.reset_log()
    report = fetch_venue(settings, store, "ICML2026")
    assert report.counts["fetched"] == 1
    assert fake_arxiv.api_calls() == 0 and fake_arxiv.pdf_requests() == {"2501.00001": 1}
    assert store.load("ICML2026", "2501.00001").fetch.text_path == record.fetch.text_path


# -- real recorded answers -------------------------------------------------------------------------


def test_every_recorded_atom_file_parses(project: Project, fake_arxiv: FakeArxiv, real_fixtures: Path) -> None:
    settings = venue_with(project, fake_arxiv, {"type": "list", "path": "config.yaml"})
    api = ArxivAPI(settings)
    expected = {
        "id_1605.08386_s0_m100.xml": 1,
        "id_0808.05394_1707.08567_s0_m100.xml": 1,  # 0808.05394 is not a valid id: arXiv left it out
        "id_2104.12255v1_s0_m100.xml": 1,
        "id_0000.0000_s0_m100.xml": 0,
        "q_testing_s0_m100.xml": 100,
        "id_list_1111.2011v2.xml": 1,
    }
    for name, count in expected.items():
        fake_arxiv.reply_api((real_fixtures / "arxiv" / name).read_bytes())
        results = api.page(query="recorded", size=100)
        assert len(results) == count, name
        for result in results:
            assert result.title.strip() and result.summary.strip() and result.authors
            assert "\n" not in result.title
    fake_arxiv.reply_api((real_fixtures / "arxiv" / "id_0000.0000_s0_m100.xml").read_bytes())
    fake_arxiv.reply_api((real_fixtures / "arxiv" / "id_0000.0000_s0_m100.xml").read_bytes())
    found, failed = api.by_ids(["2501.09999"])  # answered with the recorded empty feed, twice
    assert found == {} and failed == {"2501.09999": "not found on arXiv"}
    fake_arxiv.reply_api((real_fixtures / "arxiv" / "id_list_1111.2011v2.xml").read_bytes())
    found, failed = api.by_ids(["1111.2011v2"])
    assert found["1111.2011v2"].title.startswith("Quantum Criticality for Extended Nodes")


def test_a_jsonl_list_reads_line_separators_inside_a_title_as_text(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    path.write_text('{"title": "Part one\u2028part two"}\n{"arxiv_id": "2501.00001"}\n', "utf-8")
    entries = read_list(path)
    assert [e.title for e in entries] == ["Part one\u2028part two", None]
    assert [e.problem for e in entries] == [None, None]
