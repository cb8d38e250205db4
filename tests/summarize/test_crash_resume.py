"""Crash safety from the outside: `summarizer run` as a real subprocess, killed, interrupted, locked out.

The summarizer process talks to a loopback arXiv and a loopback provider that
live in the test process, so the test sees every model request as it arrives
and can pick the moment to send a signal: every worker is waiting on the
provider (``in_flight == max_concurrency``) and every answer received before is
in its record.  A worker writes an answer (in a thread, a few milliseconds)
while it asks about its next paper, so the test waits for the records as well
as for the requests; what is lost then is exactly what is in flight.
"""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from conftest import Project, RunCli, start_summarizer
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.fake_openai import FakeOpenAI, Fault, default_answer, paper_title

VENUE = "ICML2026"
OTHER_VENUE = "ICLR2026"
KEY_ENV = "CRASH_TEST_PROVIDER_KEY"
KEY = "sk-fake-crash-resume-51d0"
CONCURRENCY = 4


def make_papers(n: int, prefix: str = "2503", topic: str = "") -> list[FakePaper]:
    topics = ["Sparse Attention", "Reward Models", "Diffusion Sampling", "Data Mixtures", "Tree Search"]
    return [
        FakePaper(
            f"{prefix}.{i:05d}",
            f"{topic or topics[i % len(topics)]} at Scale, Part {i:02d}",
            f"We study {topics[i % len(topics)].lower()} (part {i}) and cut compute by 40%.",
        )
        for i in range(1, n + 1)
    ]


pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.provider_key(key=KEY, env=KEY_ENV)]


def setup_venues(
    project: Project,
    fake_arxiv: FakeArxiv,
    provider: FakeOpenAI,
    papers: list[FakePaper],
    other: list[FakePaper] | None = None,
) -> None:
    """VENUE lists ``papers``, OTHER_VENUE ``other``; both served by ``fake_arxiv``; the LLM is ``provider``."""
    venues = [dict(v) for v in project.config["venues"]]
    for venue, listed in zip(venues, (papers, other or []), strict=True):
        for paper in listed:
            fake_arxiv.add(paper)
        name = f"{venue['id'].lower()}.txt"
        (project.root / name).write_text("".join(p.arxiv_id + "\n" for p in listed), "utf-8")
        venue["source"] = {"type": "list", "path": name}
    project.write_config(
        venues=venues,
        arxiv={"delay_s": 0, "api_url": fake_arxiv.api_url},
        http={**project.config["http"], "timeout_s": 5, "pdf_concurrency": 4},
        llm={
            "base_url": provider.base_url,
            "api_key_env": KEY_ENV,
            "max_concurrency": CONCURRENCY,
            "max_attempts": 3,
            "timeout_s": 20,
            "backoff_s": 0.005,
        },
    )


def start(project: Project, *args: str) -> subprocess.Popen[str]:
    return start_summarizer(project, *args, env={KEY_ENV: KEY})


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the summarizer exited ({proc.returncode}) before {what}:\n{err}{out}")
        if time.monotonic() > deadline:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"timed out waiting for {what}:\n{err}{out}")
        time.sleep(0.002)


def all_waiting(provider: FakeOpenAI, at_least: int) -> Callable[[], bool]:
    """At least ``at_least`` requests seen and every worker waiting on the provider right now."""

    def check() -> bool:
        return provider.calls >= at_least and provider.in_flight == CONCURRENCY

    return check


def record_files(project: Project, venue: str = VENUE) -> dict[str, bytes]:
    folder = project.store().venue_dir(venue)
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def summarized_titles(project: Project) -> set[str]:
    return {r.title for r in project.store().records(VENUE) if r.summaries.versions}


def prefetch(cli: RunCli, venue: str = VENUE) -> None:
    fetched = cli("fetch", venue)
    assert fetched.code == 0, fetched.err


# -- SIGKILL in the middle of a 33-paper run, then resume ---------------------------------------------


@pytest.mark.slow
def test_kill_9_during_run_then_run_again_repeats_only_the_calls_in_flight(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    papers = make_papers(33)
    answered = 6  # the provider answers this many, then holds every request until the kill
    gate = threading.Event()
    arrivals = itertools.count()

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if next(arrivals) >= answered:
            gate.wait(30)
        return default_answer(body)

    with FakeOpenAI(answer=answer) as provider:
        setup_venues(project, fake_arxiv, provider, papers)
        prefetch(cli)
        arxiv_requests = len(fake_arxiv.requests)

        proc = start(project, "run", VENUE)
        waiting = all_waiting(provider, answered + CONCURRENCY)

        def waiting_and_written() -> bool:
            return waiting() and len(summarized_titles(project)) == provider.calls - provider.in_flight

        wait_for(waiting_and_written, proc, "ten model requests, every answer before them written")
        proc.send_signal(signal.SIGKILL)  # the held requests cannot be answered before it lands
        in_flight = provider.in_flight  # received, not answered: the answers the killed process never got
        proc.communicate(timeout=10)
        gate.set()
        assert proc.returncode == -signal.SIGKILL
        killed_calls = provider.calls

        # What the killed run finished is on disk, whole; nothing else was half-written.
        files = record_files(project)
        assert len(files) == 33
        for name, data in files.items():
            assert json.loads(data)["id"] + ".json" == name
        saved = summarized_titles(project)
        assert len(saved) == answered and in_flight == CONCURRENCY
        assert killed_calls == len(saved) + in_flight

        resumed = cli("run", VENUE)

    assert resumed.code == 0, resumed.err
    assert len(fake_arxiv.requests) == arxiv_requests  # nothing fetched twice
    records = project.store().records(VENUE)
    assert len(records) == 33
    assert all(len(r.summaries.versions) == 1 and r.summaries.versions[0].origin == "llm" for r in records)
    assert all(r.title in r.summaries.versions[0].summary for r in records)  # each paper got its own answer
    # The second run asked only for the papers the first had not saved, once each.
    second = [r.title for r in provider.requests[killed_calls:]]
    assert sorted(second) == sorted({p.title for p in papers} - saved)
    assert provider.calls <= 33 + in_flight
    status = cli("status", VENUE, "--json").json()
    assert status["summarized"] == 33


# -- Ctrl-C --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", ["summarize", "run"])
def test_ctrl_c_stops_promptly_keeps_finished_papers_and_says_how_to_resume(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv, command: str
) -> None:
    papers = make_papers(10)
    first_wave = {p.title for p in papers[:CONCURRENCY]}
    # The first wave answers at once; everything after it hangs far longer than "promptly".
    slow_after_first_wave = lambda request: None if request.title in first_wave else Fault.hang(30.0)  # noqa: E731
    with FakeOpenAI(latency=0.05, fault_for=slow_after_first_wave) as provider:
        setup_venues(project, fake_arxiv, provider, papers)
        prefetch(cli)

        proc = start(project, command, VENUE)
        wait_for(all_waiting(provider, 2 * CONCURRENCY), proc, "the second wave of requests")
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=10)

        assert proc.returncode == 130, err
        # It stopped while the hung calls were still hanging: cancelled, not waited for (no clock needed).
        hung = [r for r in provider.requests if r.title not in first_wave]
        assert hung and all(r.finished == 0.0 for r in hung)
        assert "interrupted" in err and "run the same command again to resume" in err
        assert "Traceback" not in err
        assert summarized_titles(project) == first_wave
        assert all(json.loads(data) for data in record_files(project).values())

        # No lock is left behind: the same command runs now and finishes only the rest.
        provider.fault_for = None
        before = provider.calls
        again = cli(command, VENUE)
        assert again.code == 0, again.err
        assert sorted(r.title for r in provider.requests[before:]) == sorted({p.title for p in papers} - first_wave)
    assert len(summarized_titles(project)) == len(papers)


# -- the lock ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_second_command_on_a_busy_venue_is_refused_and_changes_nothing(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    papers = make_papers(5)
    others = make_papers(2, prefix="2504", topic="Mixture of Experts")
    held = {p.title for p in papers}
    gate = threading.Event()

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if paper_title(body) in held:  # the first run's answers wait until the test opens the gate
            gate.wait(15)
        return default_answer(body)

    with FakeOpenAI(answer=answer) as provider:
        setup_venues(project, fake_arxiv, provider, papers, others)
        prefetch(cli)

        proc = start(project, "run", VENUE)
        try:
            wait_for(all_waiting(provider, CONCURRENCY), proc, "the first run's model requests")
            snapshot = record_files(project)
            calls, arxiv_requests = provider.calls, len(fake_arxiv.requests)

            for args in (("run", VENUE), ("summarize", VENUE), ("fetch", VENUE), ("regen", f"{VENUE}/2503.00001")):
                refused = cli(*args)
                assert refused.code == 2, (args, refused.err)
                assert f"another summarizer command is working on {VENUE}" in refused.err
                assert "Traceback" not in refused.err
            assert record_files(project) == snapshot
            assert provider.calls == calls and len(fake_arxiv.requests) == arxiv_requests

            # Another venue is not held up by the busy one.
            other = cli("run", OTHER_VENUE)
            assert other.code == 0, other.err
            assert len(record_files(project, OTHER_VENUE)) == 2
            assert all(r.summaries.versions for r in project.store().records(OTHER_VENUE))
            assert record_files(project) == snapshot
        finally:
            gate.set()
            _out, err = proc.communicate(timeout=20)

    assert proc.returncode == 0, err
    assert "mkdocs serve -f" in err
    assert summarized_titles(project) == held
    assert cli("run", VENUE).code == 0  # the lock went with the process


# -- SIGKILL in the middle of `notes`, then resume ------------------------------------------------------


@pytest.mark.slow
def test_kill_9_during_notes_then_notes_again_repeats_only_the_calls_in_flight(
    project: Project, cli: RunCli, fake_arxiv: FakeArxiv
) -> None:
    from notes_venue import write_approved_venue

    answered = 6
    gate = threading.Event()
    arrivals = itertools.count()

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        if next(arrivals) >= answered:
            gate.wait(30)
        return default_answer(body)

    with FakeOpenAI(answer=answer) as provider:
        setup_venues(project, fake_arxiv, provider, [])
        write_approved_venue(project, 40)  # 20 papers with text, each with an approved summary
        noted = lambda: {r.title for r in project.store().records(VENUE) if r.notes.versions}  # noqa: E731

        proc = start(project, "notes", VENUE)
        waiting = all_waiting(provider, answered + CONCURRENCY)
        wait_for(
            lambda: waiting() and len(noted()) == provider.calls - provider.in_flight,
            proc,
            "ten note requests, every answer before them written",
        )
        proc.send_signal(signal.SIGKILL)
        in_flight = provider.in_flight
        proc.communicate(timeout=10)
        gate.set()
        assert proc.returncode == -signal.SIGKILL
        killed_calls, saved = provider.calls, noted()
        assert len(saved) == answered and killed_calls == answered + in_flight == answered + CONCURRENCY

        resumed = cli("notes", VENUE)

    assert resumed.code == 0, resumed.err
    records = [r for r in project.store().records(VENUE) if r.fetch.text_path]
    assert len(records) == 20 and all(len(r.notes.versions) == 1 for r in records)
    second = [paper_title(r.body) for r in provider.requests[killed_calls:]]
    assert sorted(second) == sorted({r.title for r in records} - saved)  # only what was not saved, once each
