"""summarizer against a real OpenAI-compatible server: llama-cpp-python with SmolLM2-135M-Instruct, on the CPU.

Every other test talks to stand-ins this project wrote; this one talks to a server nobody here wrote,
through a recording proxy that notes what was asked and what the server answered.  `summarizer run` on
two of the demo's papers (their arXiv side is the loopback stand-in; the model is real), then
`summarizer notes` on one.  A 135M model mostly breaks the house rules (little or no Chinese): what is
tested is how the tool fails — each paper ends as a draft or as a failure whose one-line reason is about
the answer's content, never about response_format and never a traceback — that the usage in the records
is what the server reported, and that the structured-output mode settled on is the one this server takes
(json_object with the schema; it answers json_schema with a 500).

It needs `make local-model` (.venv-local: the server and the GGUF, never downloaded at run time): without
it the test is skipped with that command, and under CI (`CI=true`, where .ci/run makes it first) it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from recording_proxy import RecordingProxy
from summarizer.apps.demo.stand_ins import load_papers
from summarizer.core.config_file import load_settings
from summarizer.core.store import Store
from summarizer.testing.fake_arxiv import FakeArxiv
from summarizer.testing.local_server import MODEL_NAME, LocalServer, local_model

pytestmark = [pytest.mark.slow, pytest.mark.real_model]

VENUE = "ICLR2026"
PAPERS = 2
KEY_ENV = "LOCAL_LLM_KEY"
# Words a reason about the protocol (not the answer) would hold.
PROTOCOL_WORDS = ("response_format", "json_schema", "HTTP ", "Traceback", 'File "', "validation error")


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RecordingProxy]:
    model = local_model()
    if model is None:
        if os.environ.get("CI"):
            pytest.fail("the local model is missing under CI: .ci/run runs `make local-model` first")
        pytest.skip("no local model: run `make local-model` (llama-cpp-python's server and SmolLM2 in .venv-local)")
    log = tmp_path_factory.mktemp("server") / "server.log"
    # 8192, SmolLM2's own context: a note's prompt (the schema, 1,000 tokens of paper in a tokenizer that
    # spends several tokens on a Chinese character) and its 1,000-token answer fit.
    with LocalServer.start_with(model, log=log, n_ctx=8192) as server, RecordingProxy(server.base_url) as proxy:
        yield proxy


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, real_server: RecordingProxy) -> Iterator[Path]:
    """The demo's config and venue lists (not its papers.yaml: no replayed answers), pointed at the real model."""
    root = tmp_path_factory.mktemp("project")
    demo = REPO / "examples" / "demo"
    shutil.copytree(demo / "venues", root / "venues")
    config = yaml.safe_load((demo / "config.yaml").read_text("utf-8"))
    config.pop("stand_ins")  # the real model answers here, not the demo's recorded replays
    config["llm"] = {
        "base_url": real_server.base_url,
        "model": MODEL_NAME,
        "api_key_env": KEY_ENV,
        "max_concurrency": 1,  # one CPU server: requests in parallel only queue
        "max_attempts": 2,
        "timeout_s": 600,
        "input_token_budget": 500,  # the least there is: the prompt stays short, and so does the test
        "max_output_tokens": 192,
        "price_per_million": {"input": 0, "output": 0},
    }
    config["notes"] = {"input_token_budget": 1000, "max_output_tokens": 1000}
    (root / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), "utf-8")
    papers = load_papers(demo / "papers.yaml")
    with FakeArxiv([p.paper for p in papers if p.venue == VENUE]) as arxiv:
        config["arxiv"]["api_url"] = arxiv.api_url
        (root / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), "utf-8")
        yield root


def summarizer(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it: its own process, the key in its environment only."""
    env = {**os.environ, KEY_ENV: "local", "SUMMARIZER_NO_PROGRESS": "1"}
    env.pop("SUMMARIZER_DEBUG", None)
    command = [sys.executable, "-m", "summarizer", "--config", str(root / "config.yaml"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800, check=False)


def _set_llm(folder: Path, **values: object) -> None:
    config = yaml.safe_load((folder / "config.yaml").read_text("utf-8"))
    config["llm"].update(values)
    (folder / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), "utf-8")


def assert_ends_well(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_run_then_notes_against_llama_cpp_python(folder: Path, real_server: RecordingProxy) -> None:
    run = summarizer(folder, "run", VENUE, "--limit", str(PAPERS))
    assert_ends_well(run)
    store = Store(load_settings(folder / "config.yaml").outputs_dir)
    records = [r for r in store.records(VENUE) if r.usage.llm_calls]
    assert len(records) == PAPERS, run.stdout + run.stderr
    for record in records:
        failure = record.failures.get("summarize")
        if failure is None:  # a draft: the model's answer passed the rules
            assert record.summaries.current is not None and record.summaries.current.origin == "llm", record.id
            continue
        reason = failure.reason
        assert reason.startswith("the model's answer: ") and "\n" not in reason, reason
        assert not any(word in reason for word in PROTOCOL_WORDS), reason

    asked = [(e.response_format, e.status) for e in real_server.exchanges]
    refused = [e.answer for e in real_server.exchanges if e.status != 200]
    # The first request asks for json_schema and gets the server's 500; every later one is json_object
    # with the schema (which this server enforces by grammar), and the server takes each of them.
    assert asked[0] == (("json_schema", False), 500)
    assert all(fmt == ("json_object", True) and status == 200 for fmt, status in asked[1:]), (asked, refused)
    assert len(asked) <= 1 + PAPERS * 2  # the refusal spent none of a paper's two attempts

    answered = [e for e in real_server.exchanges if e.status == 200]
    reported = sum(e.usage["prompt_tokens"] for e in answered), sum(e.usage["completion_tokens"] for e in answered)
    recorded = sum(r.usage.prompt_tokens for r in records), sum(r.usage.completion_tokens for r in records)
    assert recorded == reported and reported[1] > 0
    assert sum(r.usage.llm_calls for r in records) == len(answered)

    _notes_on_one(folder, store, records[0].id, real_server)


def _notes_on_one(folder: Path, store: Store, paper_id: str, real_server: RecordingProxy) -> None:
    """A note needs an approved summary: an editor's, imported, then `summarizer notes` on that paper."""
    record = store.load(VENUE, paper_id)
    line = {
        "venue": VENUE,
        "title": record.title,
        "arxiv_id": record.arxiv_id,
        "summary": "本文提出一种分层稀疏注意力方法，在长上下文任务上以更少的计算达到与稠密注意力相当的效果。",
        "tags": ["LLM"],
        "field": "llm_efficiency",
        "status": "approved",
    }
    (folder / "approved.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
    imported = summarizer(folder, "import", str(folder / "approved.jsonl"))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    before = len(real_server.exchanges)
    _set_llm(folder, max_attempts=1)  # one answer is enough to see how a note fails, and it takes minutes

    notes = summarizer(folder, "notes", VENUE, paper_id)
    assert_ends_well(notes)
    record = store.load(VENUE, paper_id)
    asked = [(e.response_format, e.status) for e in real_server.exchanges[before:]]
    refused = [e.answer for e in real_server.exchanges[before:] if e.status != 200]
    # A new run learns the mode again: one refusal, then json_object with the schema.
    assert asked[0] == (("json_schema", False), 500) and len(asked) == 2, (asked, refused)
    assert asked[1] == (("json_object", True), 200), (asked, refused)
    failure = record.failures.get("notes")
    if failure is None:
        assert record.notes.current is not None and record.notes.current.origin == "llm"
    else:
        assert failure.reason.startswith("the model's answer: ") and "\n" not in failure.reason
        assert not any(word in failure.reason for word in PROTOCOL_WORDS), failure.reason
