"""Every command the tool prints as a next step runs as printed: the program as the person invoked it, and the
``--config`` they gave, from the folder they are in.

The command runs in this process with ``sys.argv[0]`` set as the shell sets it for the installed script: its path
as typed, or, for a bare ``summarizer`` found on PATH, the path PATH found.  Each printed hint is then split as a
shell would, checked to name that same program, and run.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from demo_folder import run_demo_in
from summarizer.apps.cli import main

SCRIPT = Path(sys.executable).with_name("summarizer")
pytestmark = [
    pytest.mark.skipif(not SCRIPT.is_file(), reason="needs the summarizer script beside this Python"),
    pytest.mark.slow,  # the printed hints run as a shell would, each in a subprocess: `make test-all`
]
Run = Callable[..., tuple[int, str]]


def hints(said: str) -> list[list[str]]:
    """The printed commands: what follows ``review it:``, ``to publish …:`` or ``(see: …)``, split as a shell would."""
    found = []
    for line in said.splitlines():
        match = re.search(r"(?:review it|to publish the new one|to publish it|see): (.*?summarizer .*?)\)?$", line)
        if match:
            found.append(shlex.split(match.group(1)))
    return found


@pytest.fixture
def as_typed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run a command line as the shell would start it: argv[0] the program as found, the rest to main()."""

    def run(argv: list[str]) -> tuple[int, str]:
        program = shutil.which(argv[0]) if "/" not in argv[0] else argv[0]
        assert program is not None and Path(program).resolve() == SCRIPT.resolve(), argv
        monkeypatch.setattr(sys, "argv", [program, *argv[1:]])
        capsys.readouterr()
        code = main(argv[1:])
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


@pytest.fixture
def demo_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """A demo folder ./demo beside no config.yaml of its own: a hint without --config would find none."""
    folder, _ = run_demo_in(tmp_path, monkeypatch, capsys)
    assert not (tmp_path / "config.yaml").exists()
    return folder


def run_each(printed: list[list[str]], run: Run, program: str) -> None:
    assert printed
    for argv in printed:
        assert argv[:3] == [program, "--config", "demo/config.yaml"], argv
        code, said = run(argv)
        assert code == 0, (argv, said)


@pytest.mark.parametrize("on_path", [False, True], ids=["by-its-path", "on-PATH"])
def test_the_hints_after_regen_edit_and_an_error_run_as_printed(
    on_path: bool, demo_here: Path, as_typed: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    if on_path:
        monkeypatch.setenv("PATH", f"{SCRIPT.parent}:/usr/bin:/bin")
        program = "summarizer"
    else:
        monkeypatch.setenv("PATH", "/usr/bin:/bin")
        program = str(SCRIPT)
    config = ["--config", "demo/config.yaml"]

    code, said = as_typed([program, *config, "regen", "ICML2026/2612.90010", "--feedback", "换个说法"])
    assert code == 0 and "review it: " in said, said
    run_each(hints(said), as_typed, program)

    code, said = as_typed([program, *config, "regen", "ICML2026/2612.90002"])  # an approved paper
    assert code == 0 and "to publish the new one: " in said, said
    run_each(hints(said), as_typed, program)

    summary = "本文提出 CallGate：在每次调用工具前估计调用与直接作答的预期收益，8B agent 的工具调用减少 38%。"
    code, said = as_typed([program, *config, "review", "edit", "ICLR2026/2612.90011", "--summary", summary])
    assert code == 0 and "to publish it: " in said, said
    run_each(hints(said), as_typed, program)

    code, said = as_typed([program, *config, "review", "show", "ICML2026/2699.00000"])
    assert code == 2 and "(see: " in said, said
    run_each(hints(said), as_typed, program)


def test_init_hints_name_the_program_as_invoked_and_its_config(
    tmp_path: Path, as_typed: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{SCRIPT.parent}:/usr/bin:/bin")
    code, said = as_typed(["summarizer", "init", "my-digest"])
    assert code == 0, said
    lines = said.split("next: ", 1)[1].splitlines()[1:]
    printed = [shlex.split(line) for line in lines if line.strip()]
    assert [argv[:3] for argv in printed] == [["summarizer", "--config", "my-digest/config.yaml"]] * 2
    assert str(SCRIPT.parent) not in said  # the bare name PATH finds, not the venv's path
    status = next(argv for argv in printed if argv[3:] == ["status"])
    code, said = as_typed(status)
    assert code == 0, said
