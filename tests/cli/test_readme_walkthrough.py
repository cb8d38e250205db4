"""The README's walk-through, run as written: every command of "Quick start" and "A first real venue" in the
README, and its local-model config.

The outside world is the loopback stand-ins: after `summarizer init` the project's config is pointed at a
fake arXiv (serving the sample list's papers) and a fake provider; nothing else is changed.  `mkdocs serve`
and the desk run as subprocesses until they say where they serve.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from summarizer.apps.cli import main
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow  # the whole pipeline, mkdocs serve and the desk as subprocesses

README = REPO / "README.md"
PAPERS = [
    FakePaper(
        "1706.03762",
        "Attention Is All You Need",
        "We propose the Transformer, based solely on attention. It reaches 28.4 BLEU on WMT 2014 English-to-German.",
        sections=[("Introduction", "Recurrent models process tokens one by one."), ("Results", "28.4 BLEU.")],
    ),
    FakePaper(
        "2501.12948",
        "DeepSeek-R1: Incentivizing Reasoning Capability in LLMs via Reinforcement Learning",
        "We train reasoning models with large-scale reinforcement learning; R1 scores 79.8% on AIME 2024.",
        sections=[("Introduction", "Reasoning emerges from reinforcement learning."), ("Results", "79.8%.")],
    ),
]


def section(name: str) -> str:
    text = README.read_text(encoding="utf-8")
    return text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


def commands(text: str) -> list[list[str]]:
    """Each command line of the text's sh blocks, a line ending in a backslash joined with the next."""
    return [
        shlex.split(line, comments=True)
        for block in blocks(text, "sh")
        for line in block.replace("\\\n", " ").splitlines()
        if line.strip()
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def until_it_serves(argv: list[str], cwd: Path, says: str) -> str:
    """Start a server as a subprocess, wait for the line that says it serves, stop it; that line."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if says in line:
                return line
        raise AssertionError(f"{argv[0]} stopped before serving")
    finally:
        process.terminate()
        process.wait(timeout=30)


def point_at(config: Path, arxiv: FakeArxiv, provider: FakeOpenAI) -> None:
    """The stand-ins for the outside world, and no pacing for them; the rest of the config as init wrote it."""
    raw = yaml.safe_load(config.read_text(encoding="utf-8"))
    raw["llm"]["base_url"] = provider.base_url
    raw["arxiv"].update(api_url=arxiv.api_url, delay_s=0)
    raw["http"]["min_interval_s"] = 0
    config.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")


def run_line(argv: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """One line of the README, run as a person would (export, cd, summarizer, mkdocs); the new folder."""
    if argv[0] == "export":
        name, _, value = argv[1].partition("=")
        os.environ[name] = value
        return str(cwd)
    if argv[0] == "cd":
        return str(cwd / argv[1])
    if argv[0] == "mkdocs":
        mkdocs = str(Path(sys.executable).with_name("mkdocs"))
        until_it_serves([mkdocs, *argv[1:], "--dev-addr", f"127.0.0.1:{free_port()}"], cwd, "Serving on")
        return str(cwd)
    assert argv[0] == "summarizer", argv
    if argv[1:3] == ["review", "serve"]:
        program = [sys.executable, "-m", "summarizer", *argv[1:], "--no-browser"]
        assert "review desk: http://127.0.0.1:" in until_it_serves(program, cwd, "review desk:")
        return str(cwd)
    os.chdir(cwd)
    capsys.readouterr()
    code = main(argv[1:])
    said = capsys.readouterr()
    assert code == 0, (argv, said.err)
    return str(cwd)


def test_a_first_real_venue_as_the_readme_walks_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not Path(sys.executable).with_name("mkdocs").is_file():
        pytest.skip("needs MkDocs beside this Python (the [mkdocs] extra)")
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "OLLAMA_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    steps = commands(section("A first real venue"))
    assert [argv[:2] for argv in steps[:2]] == [["summarizer", "init"], ["cd", "my-digest"]]
    with FakeArxiv(PAPERS) as arxiv, FakeOpenAI() as provider:
        where = tmp_path
        for argv in steps:
            where = Path(run_line(argv, where, capsys))
            if argv[:2] == ["summarizer", "init"]:
                point_at(tmp_path / argv[2] / "config.yaml", arxiv, provider)
        assert provider.calls >= 2  # the run asked the model about both papers
    project = tmp_path / "my-digest"
    site = project / "outputs" / "site" / "docs" / "MyVenue2026"
    assert site.is_dir() and "Attention Is All You Need" in "".join(p.read_text("utf-8") for p in site.rglob("*.md"))


def test_the_local_model_config_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    local = section("A local model")
    [config_block] = blocks(local, "yaml")
    servers = [argv for argv in commands(local) if "MODEL.gguf" in argv]
    assert servers and all("--port" in argv and "8080" in argv for argv in servers)  # where base_url points
    key_env, key = re.search(r"# export (\w+)=(\S+)", config_block).groups()  # type: ignore[union-attr]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(key_env, key)
    assert main(["init", "local"]) == 0
    config = tmp_path / "local" / "config.yaml"
    raw = yaml.safe_load(config.read_text(encoding="utf-8"))
    raw["llm"] = yaml.safe_load(config_block)["llm"]
    assert raw["llm"]["base_url"] == "http://127.0.0.1:8080/v1" and raw["llm"]["api_key_env"] == key_env
    config.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with FakeArxiv(PAPERS) as arxiv, FakeOpenAI(model=raw["llm"]["model"]) as server:
        point_at(config, arxiv, server)  # the local server's address, answered by the stand-in
        capsys.readouterr()
        assert main(["--config", str(config), "run", "MyVenue2026", "--limit", "1"]) == 0, capsys.readouterr().err
        assert server.requests[0].headers["authorization"] == f"Bearer {key}"
        assert server.requests[0].body["model"] == "local-model"


def test_the_quick_start_is_the_demo_make_demo_runs() -> None:
    quick = section("Quick start")
    make_demo = re.search(r"^demo: .*\n\t(.*)$", (REPO / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert make_demo is not None and make_demo.group(1) == "$(BIN)/summarizer demo --dir examples/demo"
    printed = [" ".join(argv) for argv in commands(quick) if argv[0].startswith(".venv/bin/")]
    # The demo's closing lines (tests/cli/test_demo_loop.py runs them) as the README shows them.
    assert printed[0] == ".venv/bin/summarizer --config examples/demo/config.yaml review serve"
    assert {argv.split()[3] for argv in printed[:4]} == {"review", "regen", "build"}
