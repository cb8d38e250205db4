"""Shared test harness: a project folder with a config, the CLI run in-process, and the stand-ins.

Tests are grouped by the user's jobs: ``fetch/``, ``summarize/``, ``review/``, ``site/``, ``cli/``
(the command line itself), and ``core/`` (records on disk, text safety).  The project's config
retries after milliseconds (``http.backoff_s``, ``llm.backoff_s``) and paces no host.

Stand-in fixtures, configured by markers on the test or its module (absent: the default):

* ``provider_key``: ``@pytest.mark.provider_key(key=..., env=...)`` sets the variable ``env``
  (``OPENAI_API_KEY``) to ``key``;
* ``server``: a loopback OpenAI-compatible provider, ``FakeOpenAI(**kwargs)`` of
  ``@pytest.mark.fake_openai(**kwargs)``, with the key set;
* ``fake_arxiv``: a loopback arXiv serving a copy of ``@pytest.mark.arxiv_papers(papers)`` (none);
* ``imported``: the project after ``summarizer import`` of ``@pytest.mark.import_rows(rows)``.
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

from summarizer.apps.cli import main
from summarizer.core.config import Settings
from summarizer.core.config_file import load_settings
from summarizer.core.store import Store
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
            "llm": {"max_attempts": 3, "timeout_s": 5, "backoff_s": 0.005},
            "arxiv": {"delay_s": 0},
            # The stand-ins are ours: no per-host pacing, and retries after a millisecond.
            "http": {"min_interval_s": 0, "backoff_s": 0.001},
            "venues": [dict(v) for v in VENUES],
            "fields": [dict(f) for f in FIELDS],
            "tags": {"vocabulary": ["LLM", "扩散模型", "推理"], "aliases": {"大语言模型": "LLM", "LLMs": "LLM"}},
        },
    )
    proj.write_config()
    return proj


DEFAULT_KEY = "sk-test"


def _marker(request: pytest.FixtureRequest, name: str) -> pytest.Mark | None:
    return request.node.get_closest_marker(name)


@pytest.fixture
def provider_key(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    marker = _marker(request, "provider_key")
    options = marker.kwargs if marker else {}
    key = options.get("key", DEFAULT_KEY)
    monkeypatch.setenv(options.get("env", "OPENAI_API_KEY"), key)
    return key


@pytest.fixture
def server(request: pytest.FixtureRequest, provider_key: str) -> Iterator[FakeOpenAI]:
    marker = _marker(request, "fake_openai")
    with FakeOpenAI(**(marker.kwargs if marker else {})) as fake:
        yield fake


@pytest.fixture
def fake_arxiv(request: pytest.FixtureRequest) -> Iterator[FakeArxiv]:
    marker = _marker(request, "arxiv_papers")
    papers = marker.args[0] if marker else []
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
    marker = _marker(request, "import_rows")
    assert marker is not None, "an `imported` test names its rows: @pytest.mark.import_rows(ROWS)"
    assert cli("import", str(project.write_jsonl("in.jsonl", marker.args[0]))).code == 0
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
