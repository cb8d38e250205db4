"""`summarizer fetch` of an OpenReview venue against a loopback OpenReview API v2 (openreview-py's real requests)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, RunCli, summary_text
from stand_ins.fake_openreview import FakeNote, FakeOpenReview, venue_notes
from summarizer.testing.pdfs import paper_pdf

VENUE_ID = "ICLR.cc/2026/Conference"


@pytest.fixture(autouse=True)
def _no_real_account(monkeypatch: pytest.MonkeyPatch) -> None:
    # openreview-py logs in by itself when these are set: no test may use a developer's account.
    for var in ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD", "OPENREVIEW_API_BASEURL_V2", "OR_USER", "OR_PASS"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def shared_pdf() -> bytes:
    return paper_pdf("An Accepted Paper", "We propose a method and it works.")


def configure(project: Project, fake: FakeOpenReview, **openreview: str) -> None:
    venues = [dict(v) for v in project.config["venues"]]
    venues[1]["source"] = {"type": "openreview", "openreview_venue": VENUE_ID}
    project.write_config(venues=venues, openreview={"api_url": fake.url, **openreview})


@pytest.fixture
def big_venue(shared_pdf: bytes) -> Iterator[FakeOpenReview]:
    notes = venue_notes(
        VENUE_ID, "ICLR 2026", oral=50, spotlight=150, poster=500, rejected=300, withdrawn=100, workshop=100
    )
    for note in notes:
        note.pdf = shared_pdf  # one PDF body for all: the test is about the list, not about 700 extractions
    with FakeOpenReview(notes, page_cap=300) as fake:  # pages of 300: the list takes three
        yield fake


@pytest.mark.slow
def test_fetch_records_exactly_the_accepted_papers_with_tiers(
    project: Project, cli: RunCli, big_venue: FakeOpenReview
) -> None:
    assert len(big_venue.notes) == 1200
    configure(project, big_venue)

    result = cli("fetch", "ICLR2026")
    assert result.code == 0, result.err
    assert "700 fetched, 0 cached, 0 failed" in result.err

    records = project.store().records("ICLR2026")
    accepted = {n.id: n for n in big_venue.notes.values() if n.venueid == VENUE_ID}
    assert len(accepted) == 700
    assert {r.source_id for r in records} == set(accepted)
    assert Counter(r.tier for r in records) == {"oral": 50, "spotlight": 150, "poster": 500}
    for record in records:
        note = accepted[str(record.source_id)]
        assert record.source_type == "openreview"
        assert record.title == note.title and record.authors == note.authors
        assert record.venue_label == note.venue
        assert record.url == f"https://openreview.net/forum?id={note.id}"
        assert record.link == record.url  # not matched to arXiv: the forum is the page link
        assert record.fetch.pdf_url == f"{big_venue.url}/pdf?id={note.id}"
        assert record.fetch.text_path and not record.failures

    # The whole list was walked page by page (after=<last id>), asking for the accepted venueid only.
    asked = big_venue.note_requests()
    assert [q["content.venueid"] for q in asked] == [VENUE_ID] * 3
    assert asked[0]["count"] == "true" and asked[0]["limit"] == "1000" and asked[0]["sort"] == "id"
    ordered = sorted(accepted)
    assert [q.get("after") for q in asked] == [None, ordered[299], ordered[599]]
    # Every PDF came from /pdf?id=<note id>, once each.
    assert Counter(big_venue.pdf_requests()) == Counter(set(accepted))

    # A second run asks for the list again but downloads nothing.
    big_venue.reset_log()
    again = cli("fetch", "ICLR2026")
    assert again.code == 0 and "0 fetched, 700 cached" in again.err
    assert big_venue.pdf_requests() == []


@pytest.mark.parametrize("gate", ["challenge", "html"])
def test_a_challenge_is_one_line_naming_the_variables_and_changes_nothing(
    project: Project, cli: RunCli, gate: str, shared_pdf: bytes
) -> None:
    notes = venue_notes(VENUE_ID, "ICLR 2026", oral=2, poster=3, rejected=2)
    for note in notes:
        note.pdf = shared_pdf
    with FakeOpenReview(notes) as fake:
        configure(project, fake)
        assert cli("fetch", "ICLR2026").code == 0
        before = _snapshot(project.root / "outputs")
        fake.gate = gate  # OpenReview starts answering anonymous traffic with a challenge

        result = cli("fetch", "ICLR2026")
    assert result.code == 2
    lines = [line for line in result.err.splitlines() if line.strip()]
    assert len(lines) == 1, result.err
    assert "OPENREVIEW_USERNAME" in lines[0] and "OPENREVIEW_PASSWORD" in lines[0]
    assert "Traceback" not in result.err and result.out == ""
    assert _snapshot(project.root / "outputs") == before  # no record changed, none deleted


def test_a_challenge_on_a_first_fetch_leaves_no_records(project: Project, cli: RunCli) -> None:
    with FakeOpenReview(venue_notes(VENUE_ID, "ICLR 2026", poster=3), gate="challenge") as fake:
        configure(project, fake, username_env="OR_USER", password_env="OR_PASS")
        result = cli("fetch", "ICLR2026")
    assert result.code == 2
    assert "OR_USER" in result.err and "OR_PASS" in result.err
    assert project.store().records("ICLR2026") == []


def test_credentials_from_the_environment_log_in_and_are_never_written(
    project: Project, cli: RunCli, shared_pdf: bytes
) -> None:
    notes = venue_notes(VENUE_ID, "ICLR 2026", spotlight=2, rejected=1)
    for note in notes:
        note.pdf = shared_pdf
    secret = "s3cret-pa55word"
    with FakeOpenReview(notes, gate="challenge") as fake:
        fake.require_login("editor@example.org", secret)
        configure(project, fake, username_env="OR_USER", password_env="OR_PASS")
        result = cli("fetch", "ICLR2026", env={"OR_USER": "editor@example.org", "OR_PASS": secret})
        pdf_headers = [h for h, (_m, path, _q) in zip(fake.seen_headers, fake.requests, strict=True) if path == "/pdf"]
    assert result.code == 0, result.err
    assert len(project.store().records("ICLR2026")) == 2
    assert pdf_headers and all(h.get("Authorization", "").startswith("Bearer ") for h in pdf_headers)
    assert secret not in result.err + result.out
    for path in project.root.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_wrong_credentials_are_one_line_without_the_password(project: Project, cli: RunCli) -> None:
    with FakeOpenReview(venue_notes(VENUE_ID, "ICLR 2026", poster=1), gate="challenge") as fake:
        fake.require_login("editor@example.org", "right")
        configure(project, fake)
        result = cli(
            "fetch", "ICLR2026", env={"OPENREVIEW_USERNAME": "editor@example.org", "OPENREVIEW_PASSWORD": "wrong-pw"}
        )
    assert result.code == 2
    assert "InvalidCredentials" in result.err and "OPENREVIEW_PASSWORD" in result.err and "wrong-pw" not in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_unified_author_schema_and_a_paper_that_leaves_the_list(
    project: Project, cli: RunCli, shared_pdf: bytes
) -> None:
    notes = [
        FakeNote("aaa1", "Unified Authors Paper", VENUE_ID, "ICLR 2026 Poster", unified_authors=True, pdf=shared_pdf),
        FakeNote("bbb2", "A Paper Later Withdrawn", VENUE_ID, "ICLR 2026 Oral", pdf=shared_pdf),
    ]
    with FakeOpenReview(notes) as fake:
        configure(project, fake)
        assert cli("fetch", "ICLR2026").code == 0
        store = project.store()
        unified = next(r for r in store.records("ICLR2026") if r.source_id == "aaa1")
        assert unified.authors == ["Ada Lovelace", "Alan Turing"]

        fake.notes["bbb2"].venueid = f"{VENUE_ID}/Withdrawn_Submission"
        result = cli("fetch", "ICLR2026")
    assert result.code == 0, result.err
    assert "no longer on the source's list" in result.err and "kept" in result.err
    gone = next(r for r in project.store().records("ICLR2026") if r.source_id == "bbb2")
    assert gone.source_missing_since is not None  # reported and kept, never deleted


def test_export_and_review_show_say_where_the_paper_came_from(project: Project, cli: RunCli, shared_pdf: bytes) -> None:
    notes = [FakeNote("ccc3", "An Oral Paper", VENUE_ID, "ICLR 2026 Oral", pdf=shared_pdf)]
    with FakeOpenReview(notes) as fake:
        configure(project, fake)
        assert cli("fetch", "ICLR2026").code == 0
    store = project.store()
    record = store.records("ICLR2026")[0]
    record.summaries.add_version(summary_text(), ["LLM"], "llm_reasoning", "llm", model="m")
    store.save(record)
    shown = cli("review", "show", f"ICLR2026/{record.id}")
    assert shown.code == 0, shown.err
    assert "openreview" in shown.out and "ccc3" in shown.out and "oral" in shown.out

    exported = cli("export", "ICLR2026")
    assert exported.code == 0, exported.err
    line = json.loads(exported.out.splitlines()[0])
    assert (line["source_type"], line["source_id"], line["tier"]) == ("openreview", "ccc3", "oral")
    before = _snapshot(project.root / "outputs")
    (project.root / "back.jsonl").write_text(exported.out, encoding="utf-8")
    assert cli("import", str(project.root / "back.jsonl")).code == 0
    assert _snapshot(project.root / "outputs") == before  # the new keys round-trip


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_hostile_error_message_from_the_server_reaches_the_terminal_inert(project: Project, cli: RunCli) -> None:
    with FakeOpenReview([]) as fake:
        configure(project, fake)
        original = fake._handle

        def hostile(method: str, raw: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes, str]:
            if raw.startswith("/notes"):
                message = "bad\x1b]0;pwned\x07\nsecond line\u202e"
                answer = json.dumps({"name": "BadRequestError", "message": message}).encode()
                return 400, answer, "application/json"
            return original(method, raw, headers, body)

        fake._handle = hostile  # type: ignore[method-assign]
        result = cli("fetch", "ICLR2026")
    assert result.code == 1
    assert "BadRequestError" in result.err and "\x1b" not in result.err and "\u202e" not in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_the_clients_retry_lines_go_to_the_log_cleaned_never_to_stdout(project: Project, cli: RunCli) -> None:
    notes = venue_notes(VENUE_ID, "ICLR 2026", poster=2)
    with FakeOpenReview(notes) as fake:
        configure(project, fake)
        original = fake._handle
        busy = {"left": 1}

        def busy_once(method: str, raw: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes, str]:
            if raw.startswith("/notes") and busy["left"]:
                busy["left"] -= 1
                answer = json.dumps({"name": "ServiceUnavailable", "message": "busy\x1b]0;pwned\x07\u202e"}).encode()
                return 503, answer, "application/json"
            return original(method, raw, headers, body)

        fake._handle = busy_once  # type: ignore[method-assign]
        quiet = cli("fetch", "ICLR2026", "--limit", "1")
        busy["left"] = 1
        verbose = cli("-v", "fetch", "ICLR2026")
    assert quiet.code == 0 and verbose.code == 0, quiet.err + verbose.err
    assert quiet.out == "" and verbose.out == ""  # stdout is the command's own (export, status --json)
    assert "Retrying request" not in quiet.err
    (line,) = [line for line in verbose.err.splitlines() if "Retrying request" in line]
    assert "summarizer.fetch.sources.openreview: openreview-py: Retrying request: GET" in line and "busy" in line
    assert "\x1b" not in verbose.err and "\u202e" not in verbose.err


def test_only_the_configured_variables_are_used(project: Project, cli: RunCli, shared_pdf: bytes) -> None:
    notes = venue_notes(VENUE_ID, "ICLR 2026", poster=1)
    notes[0].pdf = shared_pdf
    with FakeOpenReview(notes, gate="challenge") as fake:
        fake.require_login("editor@example.org", "pw")
        configure(project, fake, username_env="OR_USER", password_env="OR_PASS")
        # The client's own default variables are set, the configured ones are not: no login happens.
        result = cli(
            "fetch", "ICLR2026", env={"OPENREVIEW_USERNAME": "editor@example.org", "OPENREVIEW_PASSWORD": "pw"}
        )
        logins = [path for _m, path, _q in fake.requests if path == "/login"]
    assert result.code == 2 and "OR_USER" in result.err
    assert logins == []
