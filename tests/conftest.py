"""Shared test harness: a project folder with a config, the CLI run in-process, and the stand-ins.

Stand-in fixtures, set per test module by module constants (absent: the default):

* ``fast_retries``: backoff of the HTTP sources and of the model client cut to milliseconds;
* ``provider_key``: the environment variable ``KEY_ENV`` (``OPENAI_API_KEY``) set to ``KEY``;
* ``server``: a loopback OpenAI-compatible provider, ``FakeOpenAI(**FAKE_OPENAI)``, with both above;
* ``fake_arxiv``: a loopback arXiv serving a copy of ``ARXIV_PAPERS`` (none), with fast retries;
* ``imported``: the project after ``summarizer import`` of the module's ``ROWS``.

A module whose every test needs the key and fast retries says
``pytestmark = pytest.mark.usefixtures("fast_retries", "provider_key")``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import summarizer.llm as llm
from summarizer import sources
from summarizer.cli import main
from summarizer.config import Settings, load_settings
from summarizer.store import Store
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.fake_openai import FakeOpenAI

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL_FIXTURES = SHARED / "fixtures" / "real"

FIELDS = [
    {"id": "llm_pretraining", "emoji": "📚", "name": "预训练", "description": "语言模型预训练"},
    {"id": "llm_reasoning", "emoji": "💡", "name": "LLM 推理", "description": "大模型推理"},
    {"id": "image_generation", "emoji": "🎨", "name": "图像生成", "description": "扩散模型与图像生成"},
]
VENUES = [
    {"id": "ICML2026", "emoji": "🧪"},
    {"id": "ICLR2026", "emoji": "🔬"},
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's key or config, and progress bars stay quiet."""
    for var in ("OPENAI_API_KEY", "SUMMARIZER_CONFIG", "SUMMARIZER_DEBUG"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("SUMMARIZER_NO_PROGRESS", "1")


@pytest.fixture(autouse=True)
def _ctrl_c_works() -> Iterator[None]:
    """A shell that starts pytest in the background (``pytest &``, as CI may) leaves SIGINT ignored.

    Python then installs no KeyboardInterrupt handler, and children inherit the ignore.  Restore
    the default for the test: a Python handler here is reset on exec, so subprocesses get their
    usual Ctrl-C behaviour too.
    """
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture
def real_fixtures() -> Path:
    if not REAL_FIXTURES.is_dir():
        pytest.skip("../shared/fixtures/real is not beside the checkout")
    return REAL_FIXTURES


@dataclass
class Project:
    """A temporary project folder: config.yaml plus whatever a test writes beside it."""

    root: Path
    config: dict[str, Any]

    @property
    def config_path(self) -> Path:
        return self.root / "config.yaml"

    def write_config(self, **sections: Any) -> Path:
        self.config.update(sections)
        self.config_path.write_text(yaml.safe_dump(self.config, allow_unicode=True, sort_keys=False), "utf-8")
        return self.config_path

    def settings(self) -> Settings:
        return load_settings(self.config_path)

    def store(self) -> Store:
        return Store(self.settings().outputs_dir)

    def write_jsonl(self, name: str, rows: list[dict[str, Any]]) -> Path:
        path = self.root / name
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
        return path


@pytest.fixture
def project(tmp_path: Path) -> Project:
    proj = Project(
        root=tmp_path,
        config={
            "llm": {"max_attempts": 3, "timeout_s": 5},
            "arxiv": {"delay_s": 0},
            "http": {"min_interval_s": 0},  # the stand-ins are ours: no per-host pacing in tests
            "venues": [dict(v) for v in VENUES],
            "fields": [dict(f) for f in FIELDS],
            "tags": {"vocabulary": ["LLM", "扩散模型", "推理"], "aliases": {"大语言模型": "LLM", "LLMs": "LLM"}},
        },
    )
    proj.write_config()
    return proj


DEFAULT_KEY = "sk-test"


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "RETRY_BASE_S", 0.001)
    monkeypatch.setattr(llm, "BACKOFF_BASE_S", 0.005)


@pytest.fixture
def provider_key(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    key = getattr(request.module, "KEY", DEFAULT_KEY)
    monkeypatch.setenv(getattr(request.module, "KEY_ENV", "OPENAI_API_KEY"), key)
    return key


@pytest.fixture
def server(request: pytest.FixtureRequest, fast_retries: None, provider_key: str) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(**getattr(request.module, "FAKE_OPENAI", {})) as fake:
        yield fake


@pytest.fixture
def fake_arxiv(request: pytest.FixtureRequest, fast_retries: None) -> Iterator[FakeArxiv]:
    papers = getattr(request.module, "ARXIV_PAPERS", [])
    with FakeArxiv([FakePaper(**vars(p)) for p in papers]) as fake:
        yield fake


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


RunCli = Callable[..., Result]


@pytest.fixture
def cli(project: Project, capsys: pytest.CaptureFixture[str]) -> RunCli:
    """Run ``summarizer --config <project>/config.yaml ARGS…`` in-process; returns code, stdout, stderr."""

    def run(*args: str, config: Path | None = None, env: dict[str, str] | None = None) -> Result:
        capsys.readouterr()
        saved = {k: os.environ.get(k) for k in (env or {})}
        os.environ.update(env or {})
        try:
            code = main(["--config", str(config or project.config_path), *args])
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def summary_text(topic: str = "稀疏注意力") -> str:
    """A summary in the house shape, long enough to pass the hard limits."""
    return (
        f"本文提出一种面向{topic}的新方法，通过把 attention 分解为局部与全局两部分并共享 KV cache，"
        "在 LLaMA-7B 上把推理延迟降低 \\(2.1\\times\\)，同时在 LongBench 上保持与全注意力相当的准确率。"
    )


@pytest.fixture
def imported(request: pytest.FixtureRequest, cli: RunCli, project: Project) -> Project:
    assert cli("import", str(project.write_jsonl("in.jsonl", request.module.ROWS))).code == 0
    return project


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright (see tests/browser.py).

    One per test, not per session: Playwright's sync API keeps an event loop running in this
    thread while it is open, and every other test's ``asyncio.run`` would then refuse to start.
    """
    from browser import chromium

    with chromium() as instance:
        yield instance


def start_summarizer(project: Project, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """``python -m summarizer --config … ARGS`` in its own process, as a user would start it (``env`` added)."""
    full = {**os.environ, "SUMMARIZER_NO_PROGRESS": "1", "PYTHONUNBUFFERED": "1", **env}
    full.pop("SUMMARIZER_DEBUG", None)
    return subprocess.Popen(
        [sys.executable, "-m", "summarizer", "--config", str(project.config_path), *args],
        cwd=project.root,
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
