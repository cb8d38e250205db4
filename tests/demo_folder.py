"""A demo folder as `make demo` leaves it (examples/demo copied, the demo run there), and its closing lines."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import pytest

from conftest import REPO
from summarizer.apps.cli import main
from summarizer.apps.demo import run as demo
from summarizer.core.config_file import load_settings
from summarizer.core.store import Store

DEMO_KEY = "SUMMARIZER_DEMO_KEY"


def run_demo_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    """The demo run in ./demo of ``tmp_path`` (made the working directory), with no key anywhere; (folder, stdout)."""
    monkeypatch.setattr(demo, "REPLAY_LATENCY_S", 0.0)
    monkeypatch.delenv(DEMO_KEY, raising=False)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "demo"
    shutil.copytree(REPO / "examples" / "demo", folder, ignore=shutil.ignore_patterns("outputs", "cache"))
    capsys.readouterr()
    assert main(["demo", "--dir", "demo"]) == 0
    return folder, capsys.readouterr().out


def store_of(folder: Path) -> Store:
    return Store(load_settings(folder / "config.yaml").outputs_dir)


def closing_commands(out: str) -> list[list[str]]:
    """The closing note's command lines (each follows its `# what it does` line), split as a shell would."""
    lines = out.split("\nNext: ", 1)[1].splitlines()[1:]
    return [shlex.split(line) for line in lines if line.strip() and not line.strip().startswith("#")]


def closing_command(out: str, *words: str) -> list[str]:
    """The closing line whose command (after `--config PATH`) starts with ``words``."""
    return next(argv for argv in closing_commands(out) if argv[3 : 3 + len(words)] == list(words))
