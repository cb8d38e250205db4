"""What `summarize --batch` trusts, and how far: its state file, the provider's result files and their lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import openai
import pytest

from conftest import Project, RunCli
from summarizer.core.records import FetchState, Record
from summarizer.core.store import Store
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


def title(i: int) -> str:
    return f"Paper {i:03d}: Sparse Attention for LLM Pretraining"


def write_venue(project: Project, n: int, venue: str = VENUE) -> Store:
    store = project.store()
    for i in range(n):
        record = Record(
            venue=venue,
            id=f"2601.{i:05d}",
            title=title(i),
            arxiv_id=f"2601.{i:05d}",
            abstract=f"We study sparse attention for LLM pretraining (paper {i}). It cuts compute by 40%.",
            fetch=FetchState(abstract_only=True),
        )
        store.save(record)
    return store


def summarized(project: Project, venue: str = VENUE) -> list[Record]:
    return [r for r in project.store().records(venue) if r.versions]


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


# -- re-asks --------------------------------------------------------------------------------------------------


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
