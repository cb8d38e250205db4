"""Every download has a deadline of its own, besides the timeout of each read: a host that sends one
byte a second (no read ever waits long) fails its paper, or its listing, after
``http.download_deadline_s``."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import urllib3

from conftest import Project, RunCli
from stand_ins.static_site import StaticSite
from summarizer.fetch.net import Deadline, _read_capped
from summarizer.testing.pdfs import paper_pdf

pytestmark = pytest.mark.slow  # each test waits out a real download deadline: `make test-all`

TITLES = [
    "Sparse Attention for Long Context Language Models",
    "Diffusion Models Need Fewer Steps",
    "A Paper Served One Byte a Second",
]
SLOW = "a-paper-served-one-byte-a-second"


@pytest.fixture
def site() -> Iterator[StaticSite]:
    with StaticSite() as server:
        yield server


def use(project: Project, source: dict[str, object], deadline_s: float = 1) -> None:
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = source
    # A read never waits more than a second here: only the deadline can stop the trickle.
    http = {**project.config["http"], "timeout_s": 5, "download_deadline_s": deadline_s}
    project.write_config(venues=venues, http=http)


def write_list(project: Project, site: StaticSite) -> None:
    """A list of three papers not on arXiv, each with its PDF on the static host (the last one: /2.pdf)."""
    rows = io.StringIO()
    writer = csv.writer(rows)
    writer.writerow(["title", "pdf_url"])
    for number, title in enumerate(TITLES):
        site.put(f"/{number}.pdf", paper_pdf(title, f"The abstract of {title}."), "application/pdf")
        writer.writerow([title, f"{site.url}/{number}.pdf"])
    (project.root / "papers.csv").write_text(rows.getvalue(), encoding="utf-8")


def test_a_pdf_host_that_trickles_fails_that_paper_after_the_deadline(
    project: Project, cli: RunCli, site: StaticSite
) -> None:
    write_list(project, site)
    site.trickle("/2.pdf")
    use(project, {"type": "list", "path": "papers.csv"}, deadline_s=2.5)  # two bytes come, then the deadline

    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    assert "2 fetched, 0 cached, 1 failed" in result.err
    records = {r.id: r for r in project.store().records("ICML2026")}
    assert {i for i, r in records.items() if r.fetch.text_path and not r.failures} == set(records) - {SLOW}
    reason = records[SLOW].failures["fetch"].reason
    assert "http.download_deadline_s" in reason and "2.5 s" in reason
    assert site.hits("/2.pdf") == 1  # not tried again: a deadline is not a transient error


def test_a_listing_that_trickles_fails_the_source_in_one_line(project: Project, cli: RunCli, site: StaticSite) -> None:
    site.put("/citeproc.yaml", "- id: a26\n  title: A Paper\n" * 50, "text/yaml")
    site.trickle("/citeproc.yaml")
    use(project, {"type": "pmlr", "url": f"{site.url}/citeproc.yaml"})

    result = cli("fetch", "ICML2026")
    assert result.code == 1
    assert "http.download_deadline_s" in result.err and len(result.err.strip().splitlines()) == 1
    assert project.store().records("ICML2026") == []


def test_a_host_that_trickles_its_headers_fails_that_paper_after_the_deadline(
    project: Project, cli: RunCli, site: StaticSite
) -> None:
    write_list(project, site)
    site.trickle("/2.pdf", headers=True)  # the status line and headers, one byte a second
    use(project, {"type": "list", "path": "papers.csv"})

    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    assert "2 fetched, 0 cached, 1 failed" in result.err
    reason = project.store().load("ICML2026", SLOW).failures["fetch"].reason
    assert "http.download_deadline_s" in reason
    assert site.hits("/2.pdf") == 1


def test_an_arxiv_api_that_trickles_fails_its_papers_after_the_deadline(
    project: Project, cli: RunCli, site: StaticSite
) -> None:
    site.put("/api/query", "<?xml version='1.0'?><feed>" + " " * 4000 + "</feed>", "application/atom+xml")
    site.trickle("/api/query")
    (project.root / "papers.txt").write_text("2501.00001\n", encoding="utf-8")
    use(project, {"type": "list", "path": "papers.txt"})
    project.write_config(arxiv={"delay_s": 0, "api_url": f"{site.url}/api/query"})

    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err
    reason = project.store().load("ICML2026", "2501.00001").failures["fetch"].reason
    assert "http.download_deadline_s" in reason


class _OneByteAtATime(io.RawIOBase):
    """A socket that has one byte ready at each read, as a host sending a byte at a time."""

    def __init__(self, data: bytes):
        self.data = memoryview(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self.data:
            return 0
        buffer[0] = self.data[0]
        self.data = self.data[1:]
        return 1


def test_a_pdf_that_arrives_a_byte_at_a_time_is_still_a_pdf() -> None:
    """The body is read as it arrives: the %PDF- check waits for the head, not just the first piece."""
    pdf = paper_pdf(TITLES[0], "An abstract.")
    response = requests.Response()
    response.raw = urllib3.HTTPResponse(
        body=io.BufferedReader(_OneByteAtATime(pdf), buffer_size=1), preload_content=False
    )
    seen: list[bytes] = []
    body = _read_capped(response, len(pdf), "too big", Deadline(60, "the PDF download"), first=seen.append)
    assert body == pdf and seen == [pdf[:1024]]
