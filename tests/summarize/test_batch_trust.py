"""What `summarize --batch` trusts, and how far: its state file, the provider's result files and their lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import openai
import pytest

from conftest import Project, RunCli
from fetched_venue import abstract_title as title
from fetched_venue import write_abstract_venue
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.summarize.batch_api import BatchAPI
from summarizer.summarize.batch_collect import Collect, collect
from summarizer.summarize.batch_state import BatchEntry
from summarizer.summarize.plan import start_run
from summarizer.testing.fake_openai import FakeOpenAI, default_answer, paper_title

KEY = "sk-fake-batch-trust-9d2e"
VENUE = "ICML2026"
OTHER = "ICLR2026"
HASH = "0123456789abcdef"

pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.provider_key(key=KEY)]


def configure(project: Project, server: FakeOpenAI, **llm_settings: object) -> None:
    values: dict[str, object] = {"base_url": server.base_url, "max_attempts": 3, "timeout_s": 5}
    values.update({"backoff_s": 0.005, "batch_poll_s": 0.01, **llm_settings})
    project.write_config(llm=values)


def write_venue(project: Project, n: int, venue: str = VENUE) -> Store:
    return write_abstract_venue(project, n, venue)


def summarized(project: Project, venue: str = VENUE) -> list[Record]:
    return [r for r in project.store().records(venue) if r.summaries.versions]


def state_path(project: Project) -> Path:
    return project.root / "outputs" / "state" / f"{VENUE}.json"


def state(project: Project) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(state_path(project).read_text("utf-8")))


def creates(server: FakeOpenAI) -> int:
    return sum(1 for method, path in server.batch.api_calls if method == "POST" and path == "/v1/batches")


def run_to_the_end(server: FakeOpenAI, batch_id: str = "batch_0000") -> dict[str, Any]:
    """The provider finishes the batch while nobody is waiting on it."""
    client = openai.OpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)
    while client.batches.retrieve(batch_id).status != "completed":
        pass
    return server.batch.batches[batch_id]


# -- the state file ------------------------------------------------------------------------------------------


def entry(*custom_ids: str) -> dict[str, Any]:
    return {"token": "t", "id": "batch_0000", "status": "in_progress", "requests": {c: "key" for c in custom_ids}}


MALFORMED = {
    "another venue inside": {"venue": OTHER, "batches": [entry(f"{OTHER}/2601.00000/{HASH}")]},
    "a key without a slash": {"venue": VENUE, "batches": [entry("2601.00000")]},
    "an unsafe paper id": {"venue": VENUE, "batches": [entry(f"{VENUE}/../{HASH}")]},
    "a key naming another venue": {"venue": VENUE, "batches": [entry(f"{OTHER}/2601.00000/{HASH}")]},
    "a key of four parts": {"venue": VENUE, "batches": [entry(f"{VENUE}/2601.00000/{HASH}/x")]},
    "a key without a prompt hash": {"venue": VENUE, "batches": [entry(f"{VENUE}/2601.00000/")]},
}


@pytest.mark.parametrize("batch", [False, True], ids=["online", "batch"])
@pytest.mark.parametrize("content", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_state_file_is_one_line_saying_move_it_aside(
    project: Project, server: FakeOpenAI, cli: RunCli, content: dict[str, Any], batch: bool
) -> None:
    configure(project, server)
    write_venue(project, 2)
    state_path(project).parent.mkdir(parents=True)
    state_path(project).write_text(json.dumps(content), "utf-8")

    result = cli("summarize", VENUE, *(["--batch"] if batch else []))

    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and f"{VENUE}.json: not a batch state file (" in lines[0], result.err
    assert lines[0].endswith("move it aside")
    assert server.calls == 0 and server.batch.api_calls == [] and summarized(project) == []


def test_a_state_file_naming_another_venue_never_saves_into_that_venues_records(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_venue(project, 3)
    write_venue(project, 3, OTHER)  # the same paper ids in another venue
    assert cli("summarize", VENUE, "--batch", "--no-wait").code == 0
    moved = state(project)
    moved["venue"] = OTHER  # e.g. copied from ICLR2026.json and edited by hand
    state_path(project).write_text(json.dumps(moved), "utf-8")

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 1
    assert "not a batch state file (its venue is 'ICLR2026', not ICML2026); move it aside" in result.err
    assert summarized(project, OTHER) == [] and summarized(project) == []


class Lines:
    """A provider whose one result file holds ``rows``."""

    def __init__(self, rows: list[dict[str, Any]]):
        self.rows = rows

    def lines(self, file_id: str) -> Iterator[str]:
        return (json.dumps(row, ensure_ascii=False) for row in self.rows)


def test_result_lines_naming_another_venue_or_an_unsafe_paper_are_never_written(project: Project) -> None:
    write_venue(project, 1)
    write_venue(project, 1, OTHER)
    settings = project.settings()
    run = start_run(settings, Store(settings.outputs_dir), VENUE)
    foreign = [f"{OTHER}/2601.00000/{HASH}", f"{VENUE}/../{HASH}", f"{VENUE}/2601.00000/{HASH}/x"]
    c = Collect(run, BatchEntry(token="t", requests={cid: "key" for cid in foreign}))
    body = {"model": "m", "messages": [{"role": "user", "content": f"标题：{title(0)}"}]}
    answer = {"message": {"role": "assistant", "content": json.dumps(default_answer(body), ensure_ascii=False)}}
    response = {"status_code": 200, "body": {"choices": [answer], "usage": {"prompt_tokens": 9}}}
    rows = [{"custom_id": cid, "response": response, "error": None} for cid in foreign]
    done = SimpleNamespace(output_file_id="file-out", error_file_id=None, status="completed")

    collect(cast(BatchAPI, Lines(rows)), c, done)

    assert summarized(project) == [] and summarized(project, OTHER) == []
    assert c.retries == []


# -- the provider's result files -----------------------------------------------------------------------------


@pytest.mark.parametrize("again", [["--batch"], []], ids=["batch", "online"])
def test_a_batch_whose_result_file_is_gone_is_forgotten_and_its_papers_summarisable(
    project: Project, server: FakeOpenAI, cli: RunCli, again: list[str]
) -> None:
    configure(project, server)
    write_venue(project, 3)
    assert cli("summarize", VENUE, "--batch", "--no-wait").code == 0
    finished = run_to_the_end(server)
    server.batch.delete_file(finished["output_file_id"])  # the provider's retention period ran out

    gone = cli("summarize", VENUE, "--batch")

    assert gone.code == 1
    assert "no batch endpoint" not in gone.err
    assert "batch batch_0000: its result file is gone from the provider" in gone.err
    assert "forgotten: 3 papers not summarised" in gone.err
    assert state(project)["batches"][0]["status"] == "result file gone"
    assert cli("status", VENUE, "--json").json()["batches"][0]["status"] == "result file gone"
    assert summarized(project) == []

    result = cli("summarize", VENUE, *again)

    assert result.code == 0, result.err
    assert "waiting in a batch" not in result.err
    assert len(summarized(project)) == 3
    assert (creates(server), server.calls) == ((2, 0) if again else (1, 3))


def test_an_answer_holding_a_line_separator_is_read_whole(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    server.answer = lambda body: dict(
        default_answer(body), summary=default_answer(body)["summary"] + "\u2028另一行\u2029第三段。"
    )
    configure(project, server)
    write_venue(project, 2)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 0, result.err
    assert server.calls == 0  # each line read whole: no paper asked again online
    records = summarized(project)
    assert len(records) == 2 and all("\u2028另一行\u2029第三段。" in r.summaries.versions[0].summary for r in records)


def test_a_huge_batch_answer_is_quoted_cut_in_its_online_reask(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    answered: set[str] = set()

    def answer(body: dict[str, Any]) -> dict[str, Any] | str:
        if paper_title(body) in answered:
            return default_answer(body)
        answered.add(paper_title(body))
        return "{" + "长" * 2_000_000  # the batch's answer: two million characters of nothing

    server.answer = answer
    configure(project, server, tokens_per_minute=10**9)  # no pacing in the way of the bound
    write_venue(project, 1)

    result = cli("summarize", VENUE, "--batch")

    assert result.code == 0, result.err
    (reask,) = server.requests
    assert len(reask.raw_body) < 20_000  # a prompt of a few thousand tokens, not a million
    quoted = reask.body["messages"][-2]["content"]
    assert quoted.startswith("{长长长") and "cut" in quoted
    assert len(summarized(project)) == 1
