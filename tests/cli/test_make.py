"""`make` recovers from a .venv it cannot use: one made by a Python older than 3.11, or never finished.

The Makefile runs in a scratch copy with stand-in Pythons (shell scripts that answer the version check as a
3.10 or a 3.12 would), so nothing is installed: `make -n` prints what it would do after the check ran.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def fake_python(path: Path, version: str, new_enough: bool) -> Path:
    """A script answering `-V` with ``version`` and the Makefile's version check as that Python would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    code = 0 if new_enough else 1
    path.write_text(f'#!/bin/sh\n[ "$1" = "-V" ] && echo "Python {version}" && exit 0\nexit {code}\n')
    path.chmod(0o755)
    return path


def make(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = ["make", "--no-print-directory", *args]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=60)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return tmp_path


def test_a_venv_from_an_old_python_is_made_again(checkout: Path) -> None:
    fake_python(checkout / ".venv" / "bin" / "python", "3.10.12", new_enough=False)
    (checkout / ".venv" / ".installed").touch()
    result = make(checkout, "-n", "demo")
    said = ".venv was made by a Python older than 3.11, or never finished: making it again"
    assert result.stdout.splitlines()[0] == said
    assert not (checkout / ".venv").exists()
    assert "-m venv .venv" in result.stdout


def test_a_venv_never_finished_is_made_again_and_a_good_one_is_kept(checkout: Path) -> None:
    fake_python(checkout / ".venv" / "bin" / "python", "3.12.3", new_enough=True)
    assert "making it again" in make(checkout, "-n", "demo").stdout  # no stamp: the install never finished
    fake_python(checkout / ".venv" / "bin" / "python", "3.12.3", new_enough=True)
    (checkout / ".venv" / ".installed").touch()
    result = make(checkout, "-n", "demo")
    assert "making it again" not in result.stdout and (checkout / ".venv" / "bin" / "python").exists()


def test_an_old_python_is_refused_in_one_line_before_any_venv(checkout: Path) -> None:
    old = fake_python(checkout / "old" / "python3", "3.10.12", new_enough=False)
    result = make(checkout, "demo", f"PYTHON={old}")
    assert result.returncode != 0
    assert f"summarizer needs Python 3.11 or newer, and {old} is Python 3.10.12" in result.stdout
    assert not (checkout / ".venv").exists()
