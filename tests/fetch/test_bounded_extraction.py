"""A PDF's text is read within bounds: pages, characters, time and memory per paper.

A small file can be expensive to read (a content stream that inflates to hundreds of MB, thousands
of pages): that paper fails with one line, the fetch process stays small, the venue's other papers
are fetched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, RunCli, start_summarizer
from summarizer.core.config import ExtractSettings
from summarizer.core.errors import FetchError
from summarizer.fetch.pdf_worker import PdfWorker
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.pdfs import inflating_pdf, many_pages_pdf, paper_pdf

PAPERS = [
    FakePaper("2501.00001", "Sparse Attention for Long Context Language Models", "We make attention sparse."),
    FakePaper("2501.00002", "Diffusion Models Need Fewer Steps", "We cut diffusion sampling steps in half."),
    FakePaper("2501.00003", "A Paper Whose PDF Is Hostile", "The abstract survives."),
    FakePaper("2501.00004", "Scaling Laws for Reward Model Overoptimization", "Reward models overfit."),
]
HOSTILE = "2501.00003"

pytestmark = pytest.mark.arxiv_papers(PAPERS)


def configure(project: Project, fake_arxiv: FakeArxiv, **extract: object) -> None:
    (project.root / "papers.txt").write_text("".join(f"{p.arxiv_id}\n" for p in PAPERS), encoding="utf-8")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "list", "path": "papers.txt"}
    sections = {"extract": extract} if extract else {}
    project.write_config(venues=venues, arxiv={"delay_s": 0, "api_url": fake_arxiv.api_url}, **sections)


def outcome(project: Project) -> tuple[set[str], dict[str, str]]:
    records = project.store().records("ICML2026")
    fetched = {r.id for r in records if r.fetch.text_path and not r.failures}
    failed = {r.id: r.failures["fetch"].reason for r in records if "fetch" in r.failures}
    return fetched, failed


def peak_rss_mb(process: subprocess.Popen[str]) -> float:
    """Wait for the process; the largest resident set it, or any process it waited for, ever had (MB)."""
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss * 1024 / 1e6  # ru_maxrss is in KiB on Linux


@pytest.mark.slow  # a whole summarizer process inflating 300 MB: half a minute of CPU
def test_a_pdf_inflating_to_hundreds_of_mb_fails_its_paper_in_a_small_process(
    project: Project, fake_arxiv: FakeArxiv
) -> None:
    fake_arxiv.set_pdf(HOSTILE, inflating_pdf(300))  # ~2 MB on the wire, 300 MB of content stream
    configure(project, fake_arxiv)
    fetch = start_summarizer(project, "fetch", "ICML2026", env={})
    assert fetch.stdout is not None and fetch.stderr is not None
    _out, err = fetch.stdout.read(), fetch.stderr.read()
    peak = peak_rss_mb(fetch)

    assert fetch.returncode == 1, err
    assert peak < 500, f"the fetch (or its worker) reached {peak:.0f} MB"
    fetched, failed = outcome(project)
    assert fetched == {p.arxiv_id for p in PAPERS} - {HOSTILE}
    assert set(failed) == {HOSTILE}
    assert "extract.memory_mb" in failed[HOSTILE] and "\n" not in failed[HOSTILE]
    assert "3 fetched, 0 cached, 1 failed" in err


def test_a_pdf_of_thousands_of_pages_fails_at_the_page_limit(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    fake_arxiv.set_pdf(HOSTILE, many_pages_pdf(3000))
    configure(project, fake_arxiv)
    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    fetched, failed = outcome(project)
    assert fetched == {p.arxiv_id for p in PAPERS} - {HOSTILE}
    assert "3000 pages" in failed[HOSTILE] and "extract.max_pages" in failed[HOSTILE]


def test_reading_longer_than_the_time_limit_fails_the_paper_and_the_next_one_is_read(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    fake_arxiv.set_pdf(HOSTILE, many_pages_pdf(3000))  # seconds of work, against a limit of a fraction of one
    configure(project, fake_arxiv, max_pages=5000, timeout_s=0.2)
    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    fetched, failed = outcome(project)
    assert fetched == {p.arxiv_id for p in PAPERS} - {HOSTILE}
    assert set(failed) == {HOSTILE}
    assert "extract.timeout_s" in failed[HOSTILE]


def test_more_text_than_the_character_limit_fails_the_paper(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    fake_arxiv.set_pdf(HOSTILE, many_pages_pdf(100))  # ~250,000 characters
    configure(project, fake_arxiv, max_chars=100_000)
    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    fetched, failed = outcome(project)
    assert fetched == {p.arxiv_id for p in PAPERS} - {HOSTILE}
    assert "100,000 characters" in failed[HOSTILE] and "extract.max_chars" in failed[HOSTILE]


def test_a_worker_that_dies_on_a_pdf_fails_that_paper_and_the_next_gets_a_new_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow, good = tmp_path / "slow.pdf", tmp_path / "good.pdf"
    slow.write_bytes(many_pages_pdf(3000))  # seconds of work: the worker is still on it when it dies
    good.write_bytes(paper_pdf("Sparse Attention for Long Context Language Models", "We make attention sparse."))
    answer = PdfWorker._answer
    dying = {"now": False}

    def die_once_the_job_is_sent(reader: PdfWorker, *args: Any) -> dict[str, Any]:
        if reader._ready and dying["now"]:  # a crash in pymupdf, or the OOM killer
            assert reader._process is not None
            reader._process.kill()
        return answer(reader, *args)

    monkeypatch.setattr(PdfWorker, "_answer", die_once_the_job_is_sent)
    with PdfWorker(ExtractSettings(max_pages=5000)) as reader:
        dying["now"] = True
        with pytest.raises(FetchError, match="text reader stopped on this PDF"):
            reader.extract(slow)
        dying["now"] = False
        assert reader.extract(good).introduction
