"""`summarize --batch`: the Batch API path end to end against the stand-in provider's /files and /batches."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from typing import Any

import openai
import pytest

import summarizer.summarize.batch as batch
from conftest import Project, RunCli, start_summarizer
from fetched_venue import abstract_title as title
from fetched_venue import write_abstract_venue
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.summarize.batch import answer_batch
from summarizer.summarize.batch_api import BatchAPI, BatchLimits
from summarizer.summarize.plan import AnswerRun, Pick, start_run
from summarizer.testing.fake_openai import FakeOpenAI, Fault, RecordedRequest, default_answer

KEY = "sk-fake-batch-3c1e"
VENUE = "ICML2026"
N = 200


pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.provider_key(key=KEY)]


def configure(project: Project, server: FakeOpenAI, **llm_settings: object) -> None:
    values: dict[str, object] = {
        "base_url": server.base_url,
        "max_attempts": 3,
        "timeout_s": 5,
        "backoff_s": 0.005,
        "batch_poll_s": 0.01,
    }
    values.update(llm_settings)
    project.write_config(llm=values)


def write_venue(project: Project, n: int = N) -> Store:
    return write_abstract_venue(project, n)


def summarized(project: Project) -> list[Record]:
    return [r for r in project.store().records(VENUE) if r.summaries.versions]


def assert_all_summarized(project: Project, n: int = N) -> None:
    records = project.store().records(VENUE)
    assert len(records) == n
    for record in records:
        assert len(record.summaries.versions) == 1, record.id
        version = record.summaries.versions[0]
        assert version.origin == "llm" and version.prompt_hash and version.field == "llm_pretraining"
        assert record.title in version.summary  # each paper got its own answer
        assert "summarize" not in record.failures


def creates(server: FakeOpenAI) -> int:
    return sum(1 for method, path in server.batch.api_calls if method == "POST" and path == "/v1/batches")


def state(project: Project) -> dict[str, Any]:
    path = project.root / "outputs" / "state" / f"{VENUE}.json"
    return json.loads(path.read_text("utf-8")) if path.exists() else {"batches": []}


# -- the happy path ---------------------------------------------------------------------------------


def test_200_papers_one_batch_no_online_call_every_summary_checked_at_half_price(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_venue(project)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 0, result.err
    assert creates(server) == 1 and server.calls == 0  # one batch; nothing asked online
    assert len(server.batch.requests) == N
    assert_all_summarized(project)
    the_batch = server.batch.batches["batch_0000"]
    assert (the_batch["endpoint"], the_batch["completion_window"]) == ("/v1/chat/completions", "24h")
    upload = server.batch.files[the_batch["input_file_id"]]["object"]
    assert upload["purpose"] == "batch" and upload["filename"].endswith(".jsonl")
    # Each line is the request the online path sends: same model, schema, sampling; its custom_id names the paper.
    line = json.loads(server.batch.files[the_batch["input_file_id"]]["data"].decode().splitlines()[0])
    prompt_hash = project.store().records(VENUE)[0].summaries.versions[0].prompt_hash
    assert line["custom_id"] == f"{VENUE}/2601.00000/{prompt_hash}"
    assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
    body = line["body"]
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.2 and body["max_tokens"] == 1024
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["field"]["enum"][0] == "llm_pretraining"
    assert [m["role"] for m in body["messages"]] == ["system", "user"] and title(0) in body["messages"][1]["content"]

    # Cost: half of price_per_million (0.15 / 0.60 by default) for the tokens the responses reported.
    status = cli("status", VENUE, "--json").json()
    usage = status["usage"]
    assert usage["llm_calls"] == N and usage["prompt_tokens"] > 0
    online_price = (usage["prompt_tokens"] * 0.15 + usage["completion_tokens"] * 0.60) / 1_000_000
    assert usage["cost_usd"] == pytest.approx(online_price / 2, abs=1e-6)  # status rounds to 6 places
    for record in summarized(project):  # each paper: half what the online path charges for its tokens
        tokens = record.usage
        online = (tokens.prompt_tokens * 0.15 + tokens.completion_tokens * 0.60) / 1_000_000
        assert tokens.llm_calls == 1 and tokens.cost_usd == round(online / 2, 8)
    assert status["batches"] == [{"id": "batch_0000", "status": "completed", "completed": N, "failed": 0, "total": N}]
    assert "batch_0000: completed, 200/200 completed, 0 failed" in result.err
    assert "batch batch_0000: completed" in cli("status", VENUE).out

    # Collected once: a second run submits nothing and changes nothing.
    again = cli("summarize", VENUE, "--batch")
    assert again.code == 0, again.err
    assert creates(server) == 1 and server.calls == 0
    assert "200 already summarized" in again.err


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "log"])
def test_waiting_on_a_batch_shows_a_bar_in_a_terminal_only(
    project: Project, server: FakeOpenAI, cli: RunCli, monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    from rich.console import Console

    from summarizer.apps.cli import console

    configure(project, server)
    write_venue(project, 20)
    monkeypatch.delenv("SUMMARIZER_NO_PROGRESS")
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(console, "err", Console(stderr=True, force_terminal=terminal, width=150))
    result = cli("summarize", VENUE, "--batch")
    assert result.code == 0, result.err
    bar_lines = [line for line in result.err.splitlines() if "batch batch_0000" in line and "━" in line]
    if terminal:  # the bar ends at the provider's count, with its status
        assert bar_lines and "20/20" in bar_lines[-1] and "completed · 0 failed" in bar_lines[-1]
    else:  # a log gets the line per change only, no timer lines for a wait of hours
        assert not bar_lines and "batch_0000: completed, 20/20 completed, 0 failed" in result.err
        assert not re.search(r"batch batch_0000: \d+/\d+ ·", result.err)  # no timed progress line


def test_cached_answers_are_not_sent_to_the_batch(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    configure(project, server)
    write_venue(project, 6)
    assert cli("summarize", VENUE, "--limit", "2").code == 0  # online: two answers in the cache
    for path in (project.root / "outputs" / "records" / VENUE).glob("*.json"):
        record = json.loads(path.read_text("utf-8"))
        record["summaries"]["versions"] = []
        path.write_text(json.dumps(record), "utf-8")

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 0, result.err
    assert len(server.batch.requests) == 4 and server.calls == 2
    assert "2 cached" in result.err
    assert_all_summarized(project, 6)


# -- resuming -------------------------------------------------------------------------------------------


def start(project: Project, *args: str) -> subprocess.Popen[str]:
    return start_summarizer(project, *args, env={"OPENAI_API_KEY": KEY})


def retrieves(server: FakeOpenAI) -> int:
    return sum(1 for method, path in server.batch.api_calls if method == "GET" and path.startswith("/v1/batches/"))


@pytest.mark.slow
def test_no_wait_then_kill_9_while_waiting_then_again_one_batch_all_summarised(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_venue(project)

    submitted = cli("summarize", VENUE, "--batch", "--no-wait")
    assert submitted.code == 0, submitted.err
    assert f"summarizer summarize {VENUE} --batch" in submitted.err
    assert f"summarize {VENUE}: 200 sent in a batch, 0 failed" in submitted.err
    assert creates(server) == 1 and summarized(project) == []
    assert [b["id"] for b in state(project)["batches"]] == ["batch_0000"]

    server.batch.paused = True  # the provider is slow: the second run waits, and is killed while it does
    before = retrieves(server)
    proc = start(project, "summarize", VENUE, "--batch")
    deadline = time.monotonic() + 30
    while retrieves(server) < before + 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the second run never polled the batch"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert creates(server) == 1 and summarized(project) == []

    server.batch.paused = False
    third = cli("summarize", VENUE, "--batch")

    assert third.code == 0, third.err
    assert creates(server) == 1 and server.calls == 0
    assert_all_summarized(project)


def test_online_summarize_skips_papers_waiting_in_a_batch(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    configure(project, server)
    write_venue(project, 5)
    assert cli("summarize", VENUE, "--batch", "--no-wait").code == 0

    online = cli("summarize", VENUE)

    assert online.code == 0, online.err
    assert f"5 waiting in a batch (collect: summarize {VENUE} --batch)" in online.err
    assert server.calls == 0 and summarized(project) == []
    assert cli("summarize", VENUE, "--batch").code == 0
    assert_all_summarized(project, 5)


def test_a_batch_created_by_a_run_killed_before_saving_its_id_is_found_again(
    project: Project, server: FakeOpenAI, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(project, server)
    write_venue(project, 5)
    create = BatchAPI.create

    def create_then_die(self: BatchAPI, file_id: str, metadata: dict[str, str]) -> Any:
        create(self, file_id, metadata)
        raise KeyboardInterrupt  # as if killed between the provider's answer and the state write

    monkeypatch.setattr(BatchAPI, "create", create_then_die)
    assert cli("summarize", VENUE, "--batch").code == 130
    assert [b["id"] for b in state(project)["batches"]] == [None]
    monkeypatch.setattr(BatchAPI, "create", create)

    again = cli("summarize", VENUE, "--batch")

    assert again.code == 0, again.err
    assert creates(server) == 1
    assert_all_summarized(project, 5)


def test_interrupted_while_saving_results_then_again_saves_each_paper_once(
    project: Project, server: FakeOpenAI, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(project, server)
    write_venue(project, 20)
    persist = AnswerRun.persist
    saved = 0

    def persist_then_die(*args: Any) -> None:
        nonlocal saved
        if saved == 8:
            raise KeyboardInterrupt
        persist(*args)
        saved += 1

    monkeypatch.setattr(AnswerRun, "persist", persist_then_die)
    assert cli("summarize", VENUE, "--batch").code == 130
    assert len(summarized(project)) == 8  # each paper was saved as soon as its line was read
    monkeypatch.setattr(AnswerRun, "persist", persist)

    again = cli("summarize", VENUE, "--batch")

    assert again.code == 0, again.err
    assert creates(server) == 1 and server.calls == 0
    assert_all_summarized(project, 20)  # one version each: nothing saved twice
    assert state(project)["batches"][0]["collected"] is True


# -- checks and re-asks ---------------------------------------------------------------------------------


def test_invalid_answers_and_failed_requests_are_asked_again_online_with_feedback(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    invalid = {title(7), title(70), title(170)}
    cut_off = {title(100)}
    failing = {title(3), title(33)}

    def fault(request: RecordedRequest) -> Fault | None:
        if request.batch_id and request.title in invalid:
            return Fault.english()
        if request.batch_id and request.title in cut_off:
            return Fault.truncated()
        if request.batch_id and request.title in failing:
            return Fault.server_error()
        return None

    server.fault_for = fault
    configure(project, server)
    write_venue(project)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 0, result.err
    assert creates(server) == 1
    assert sorted(r.title for r in server.requests) == sorted(invalid | cut_off | failing)  # online: only re-asks
    for request in server.requests:
        messages = request.body["messages"]
        if request.title in invalid:  # the online re-ask's feedback: the answer and what was wrong with it
            assert messages[-2]["role"] == "assistant" and "This paper proposes" in messages[-2]["content"]
            assert "问题如下" in messages[-1]["content"] and "Chinese" in messages[-1]["content"]
        elif request.title in cut_off:
            assert "cut off at 1024 tokens (llm.max_output_tokens)" in messages[-1]["content"]
        else:
            assert len(messages) == 2
    assert_all_summarized(project)
    asked_twice = invalid | cut_off
    redone = {r.title: r.usage.llm_calls for r in project.store().records(VENUE) if r.title in asked_twice | failing}
    assert redone == {t: 2 for t in asked_twice} | {t: 1 for t in failing}  # a failed request reports no usage


def test_re_asks_stay_within_max_attempts(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    server.fault_for = lambda request: Fault.english() if request.title == title(1) else None
    configure(project, server, max_attempts=2)
    write_venue(project, 3)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 1
    assert server.calls == 1  # the batch's answer, then one online attempt
    record = project.store().get(VENUE, "2601.00001")
    assert record is not None and not record.summaries.versions
    assert record.failures["summarize"].reason == "the model's answer: the summary has no Chinese (after 1 attempt)"
    assert len(summarized(project)) == 2


def test_a_refused_key_during_the_online_re_asks_stops_the_run_and_fails_no_paper(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    def fault(request: RecordedRequest) -> Fault | None:
        if request.batch_id is None:
            return Fault.unauthorized()  # the key was revoked while the batch ran
        return Fault.english() if request.title in (title(1), title(2)) else None

    server.fault_for = fault
    configure(project, server, max_concurrency=1)
    write_venue(project, 4)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 2 and "OPENAI_API_KEY" in result.err
    assert server.calls == 1  # the first re-ask was refused: no second one
    assert len(summarized(project)) == 2
    assert not any("summarize" in r.failures for r in project.store().records(VENUE))  # not a paper's failure


# -- what the provider does to a batch -----------------------------------------------------------------------


def test_an_expired_batch_keeps_what_completed_and_says_what_to_run(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    server.batch.step, server.batch.expire_after_steps = 4, 1
    configure(project, server)
    write_venue(project, 10)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 1
    assert len(summarized(project)) == 4 and server.calls == 0  # lines never run are not re-asked online
    assert "expired: 6 papers not summarised" in result.err
    assert f"summarizer summarize {VENUE} --batch" in result.err
    server.batch.expire_after_steps = None
    server.batch.step = None
    again = cli("summarize", VENUE, "--batch")
    assert again.code == 0, again.err
    assert creates(server) == 2 and len(server.batch.batches["batch_0001"]["metadata"]) == 2
    assert server.batch.batches["batch_0001"]["request_counts"]["total"] == 6
    assert_all_summarized(project, 10)


def test_a_cancelled_batch_keeps_its_finished_papers(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    server.batch.step = 3
    configure(project, server)
    write_venue(project, 10)
    assert cli("summarize", VENUE, "--batch", "--no-wait").code == 0
    client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
    client.batches.retrieve("batch_0000")  # validating -> in_progress
    client.batches.retrieve("batch_0000")  # three lines answered
    assert client.batches.cancel("batch_0000").status == "cancelling"

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 1
    assert "cancelled: 7 papers not summarised" in result.err
    assert len(summarized(project)) == 3
    assert cli("status", VENUE, "--json").json()["batches"][0]["status"] == "cancelled"


def test_a_batch_stuck_past_its_window_is_cancelled_keeping_what_it_finished(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    server.batch.step, server.batch.window_s = 2, -2 * 3600  # its window closed two hours ago
    configure(project, server)
    write_venue(project, 6)
    assert cli("summarize", VENUE, "--batch", "--no-wait").code == 0
    client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
    client.batches.retrieve("batch_0000")  # validating -> in_progress
    client.batches.retrieve("batch_0000")  # two lines answered
    server.batch.paused = True  # and then nothing more

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 1
    assert "batch batch_0000 is still in_progress an hour after its window closed: cancelling it" in result.err
    assert ("POST", "/v1/batches/batch_0000/cancel") in server.batch.api_calls
    assert "cancelled: 4 papers not summarised" in result.err
    assert len(summarized(project)) == 2


@pytest.mark.parametrize(
    ("limits", "expected"),
    [(BatchLimits(max_requests=4), [4, 4, 2]), (BatchLimits(max_bytes=12_000), None)],  # a line is ~5 kB
    ids=["requests", "bytes"],
)
def test_a_venue_over_one_batch_limits_is_split(
    project: Project, server: FakeOpenAI, cli: RunCli, limits: BatchLimits, expected: list[int] | None
) -> None:
    configure(project, server)
    write_venue(project, 10)
    settings = project.settings()

    report = answer_batch(start_run(settings, Store(settings.outputs_dir), VENUE), Pick(), limits=limits)

    assert report.ok, report.failures
    sizes = [b["request_counts"]["total"] for b in server.batch.batches.values()]
    if expected is not None:
        assert sizes == expected
    else:
        assert len(sizes) > 1 and sum(sizes) == 10
    for each in server.batch.batches.values():
        assert server.batch.files[each["input_file_id"]]["object"]["bytes"] <= limits.max_bytes
    assert len(cli("status", VENUE, "--json").json()["batches"]) == len(sizes)
    assert_all_summarized(project, 10)


def test_a_provider_without_a_batch_endpoint_gets_one_line_and_nothing_is_submitted(
    project: Project, cli: RunCli
) -> None:
    with FakeOpenAI(batch_api=False) as server:
        configure(project, server)
        write_venue(project, 5)
        result = cli("summarize", VENUE, "--batch")

    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "has no batch endpoint (HTTP 404 on /files)" in lines[0]
    assert f"summarizer summarize {VENUE} (without --batch)" in lines[0]
    assert "Traceback" not in result.err
    assert state(project)["batches"] == [] and summarized(project) == []
    assert server.calls == 0


def test_no_wait_needs_batch(cli: RunCli) -> None:
    result = cli("summarize", VENUE, "--no-wait")
    assert result.code == 2 and "--no-wait goes with --batch" in result.err


def test_a_batch_the_provider_fails_says_why_and_the_next_run_submits_again(
    project: Project, server: FakeOpenAI, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(project, server)
    write_venue(project, 4)
    monkeypatch.setattr(batch, "custom_id", lambda venue, paper, prompt_hash: "same")  # the provider refuses it

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 1
    assert "batch batch_0000: failed (The custom_id same is duplicated.)" in result.err
    assert f"run `summarizer summarize {VENUE} --batch` to submit them again" in result.err
    assert summarized(project) == [] and server.calls == 0
    monkeypatch.undo()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert cli("summarize", VENUE, "--batch").code == 0
    assert creates(server) == 2
    assert_all_summarized(project, 4)


def test_force_is_remembered_with_the_batch(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    configure(project, server)
    write_venue(project, 3)
    assert cli("summarize", VENUE, "--batch").code == 0

    server.answer = lambda body: dict(default_answer(body), tags=["推理"])  # the second answers differ
    assert cli("summarize", VENUE, "--batch", "--force", "--no-wait").code == 0
    collected = cli("summarize", VENUE, "--batch")  # collected without --force: the answers still count

    assert collected.code == 0, collected.err
    assert creates(server) == 2 and len(server.batch.requests) == 6
    records = project.store().records(VENUE)
    assert [(len(r.summaries.versions), r.summaries.versions[-1].tags) for r in records] == [(2, ["推理"])] * 3


def test_run_batch_fetches_submits_and_builds_then_collects(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper

    papers = [FakePaper(f"2602.{i:05d}", title(i), f"We study sparse attention (paper {i}).") for i in range(4)]
    with FakeArxiv(papers) as arxiv:
        (project.root / "icml.txt").write_text("".join(p.arxiv_id + "\n" for p in papers), "utf-8")
        venues = [dict(v) for v in project.config["venues"]]
        venues[0]["source"] = {"type": "list", "path": "icml.txt"}
        project.write_config(
            venues=venues,
            arxiv={"delay_s": 0, "api_url": arxiv.api_url},
            http={**project.config["http"], "timeout_s": 5},
        )
        configure(project, server)

        submitted = cli("run", VENUE, "--batch", "--no-wait")
        assert submitted.code == 0, submitted.err
        assert "mkdocs serve -f" in submitted.err and summarized(project) == []
        collected = cli("run", VENUE, "--batch")

    assert collected.code == 0, collected.err
    assert creates(server) == 1 and server.calls == 0
    assert len(summarized(project)) == 4


def test_status_shows_a_provider_batch_id_inert(project: Project, cli: RunCli) -> None:
    hostile = "batch_\x1b]8;;https://evil.example\x07x\u202e"
    entry = {"token": "t", "id": hostile, "status": "in_progress", "completed": 1, "failed": 0, "total": 2}
    path = project.root / "outputs" / "state" / f"{VENUE}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"venue": VENUE, "batches": [entry]}), "utf-8")

    table = cli("status", VENUE)

    assert table.code == 0
    assert "\x1b" not in table.out and "\u202e" not in table.out
    assert "batch_\\x1b]8;;https://evil.example\\x07x\\u202e: in_progress, 1/2 completed" in table.out
    assert cli("status", VENUE, "--json").json()["batches"][0]["id"] == hostile


def test_a_batch_the_provider_does_not_know_is_forgotten_and_its_papers_submitted_again(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_venue(project, 3)
    assert cli("summarize", VENUE, "--batch", "--no-wait").code == 0
    server.batch.batches.clear()  # e.g. the provider lost it, or the config now points at another account

    lost = cli("summarize", VENUE, "--batch")

    assert lost.code == 2
    assert "does not know batch batch_0000 (HTTP 404): it is forgotten" in lost.err
    assert cli("status", VENUE, "--json").json()["batches"][0]["status"] == "not found"
    again = cli("summarize", VENUE, "--batch")
    assert again.code == 0, again.err
    assert_all_summarized(project, 3)
