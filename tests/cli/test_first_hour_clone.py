"""The first hour, as printed: a fresh clone, `make demo`, then every command line of the README's Quick start
and of the demo's closing lines, run by a shell as printed; each exits 0.

Offline: the clone's `.venv` is made by `make demo` itself, through a stand-in `python3` that, after making a
venv, puts the running environment's site-packages on its path (a plain ``.pth`` line), and pip is told to use no
index; so `make demo`'s own `pip install -e ".[desk,mkdocs]"` runs and resolves every extra it names against what
is installed here (the stand-in also writes the venv's `mkdocs` program, which pip writes only for a package it
installs).  The desk runs with `--no-browser` until its first line; `mkdocs serve` until it serves.  The
wheel lines run in a venv of their own, with the wheel built in the clone as the README's comment says.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import site
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from summarizer.core.errors import DISTRIBUTION

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("make") is None, reason="needs make")]

TIMEOUT_S = 900  # a hang bound on a loaded machine, far from a normal run


def environment(home: Path) -> dict[str, str]:
    """No path back to this checkout, no index to download from, no isolated builds (hatchling is installed here)."""
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "SUMMARIZER_CONFIG", "SUMMARIZER_DEBUG", "OPENAI_API_KEY")
    # A make that runs the tests (make test-all) would make the clone's `make demo` a sub-make, which prints
    # "make[1]: Entering directory" lines around the demo's own; a user's shell has none of these.
    drop += ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.update(SUMMARIZER_NO_PROGRESS="1", PYTHONUNBUFFERED="1", HOME=str(home))
    return env


def stand_in_python(folder: Path) -> Path:
    """A `python3` that is the base interpreter, and after `-m venv DIR` makes DIR reuse this environment."""
    reused = "\n".join(p for p in site.getsitepackages() if Path(p).is_dir())
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "python3"
    script.write_text(
        "#!/bin/sh\n"
        f'{shlex.quote(sys._base_executable)} "$@" || exit $?\n'
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
        '  purelib=$("$3/bin/python" -c "import sysconfig; print(sysconfig.get_path(\'purelib\'))")\n'
        f"  printf '%s\\n' {shlex.quote(reused)} > \"$purelib/zz_reuse_running_env.pth\"\n"
        # The reused packages' programs: pip installs none for a requirement already satisfied.
        '  printf \'#!/bin/sh\\nexec "%s/bin/python" -m mkdocs "$@"\\n\' "$(cd "$3" && pwd)" > "$3/bin/mkdocs"\n'
        '  chmod +x "$3/bin/mkdocs"\n'
        "fi\n"
    )
    script.chmod(0o755)
    return script


def shell(line: str, cwd: Path, env: dict[str, str]) -> str:
    """``line`` run by bash as printed, exiting 0; what it wrote on stdout."""
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, f"{line!r} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def until_first_line(line: str, cwd: Path, env: dict[str, str], says: str) -> str:
    """A server started by a shell as printed, stopped once it says ``says``; that line."""
    process = subprocess.Popen(
        ["bash", "-c", f"exec {line}"], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert process.stdout is not None
        for said in process.stdout:
            if says in said:
                return said
        raise AssertionError(f"{line!r} stopped before saying {says!r}")
    finally:
        process.terminate()
        process.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_as_printed(line: str, cwd: Path, env: dict[str, str]) -> None:
    """One printed command line; the desk and `mkdocs serve` until their first line."""
    if " review serve" in line:
        said = until_first_line(f"{line} --no-browser", cwd, env, "review desk: ")
        assert said.startswith("review desk: http://127.0.0.1:"), said
    elif " serve -f " in line:
        until_first_line(f"{line} --dev-addr 127.0.0.1:{free_port()}", cwd, env, "Serving on")
    else:
        shell(line, cwd, env)


def sh_blocks(section: str) -> list[list[str]]:
    return [
        [line for line in block.splitlines() if line.strip()]
        for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    ]


def closing_lines(out: str) -> list[str]:
    lines = out.split("\nNext: ", 1)[1].splitlines()[1:]
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def test_a_fresh_clone_runs_the_quick_start_and_the_demo_closing_lines_as_printed(tmp_path: Path) -> None:
    if subprocess.run(["git", "-C", str(REPO), "status", "--porcelain"], capture_output=True, text=True).stdout:
        pytest.skip("the checkout has uncommitted changes: a clone would not hold them")
    env = environment(tmp_path)
    env["PATH"] = f"{stand_in_python(tmp_path / 'bin').parent}:{env['PATH']}"
    readme = (REPO / "README.md").read_text("utf-8")
    quick = readme.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    clone_block, printed_block, wheel_block = sh_blocks(quick)
    assert clone_block == ["git clone <this repository> summarizer && cd summarizer", "make demo"]

    shell(clone_block[0].replace("<this repository>", shlex.quote(str(REPO))), tmp_path, env)
    checkout = tmp_path / "summarizer"
    out = shell(clone_block[1], checkout, env)
    printed = closing_lines(out)
    assert printed[0] == ".venv/bin/summarizer --config examples/demo/config.yaml review serve"
    for line in printed_block:
        assert line in printed, line  # the README shows what the demo prints
    for line in [*printed_block, *(line for line in printed if line not in printed_block)]:
        run_as_printed(line, checkout, env)

    shell(f"{checkout}/.venv/bin/python -m pip wheel --no-deps -q -w . .", checkout, env)
    wheel_venv = tmp_path / "wheel-venv"
    shell(f"{tmp_path}/bin/python3 -m venv {wheel_venv}", tmp_path, env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(next(checkout.glob(f"{DISTRIBUTION.replace('-', '_')}-*.whl")), elsewhere)
    wheel_env = {**env, "PATH": f"{wheel_venv / 'bin'}:{env['PATH']}"}
    for line in wheel_block:
        command = line.split("  #", 1)[0].strip().replace("PATH", str(tmp_path / "named-demo"))
        shell(command, elsewhere, wheel_env)
    assert (elsewhere / "summarizer-demo" / "outputs" / "site" / "mkdocs.yml").is_file()
    assert (tmp_path / "named-demo" / "outputs" / "site" / "mkdocs.yml").is_file()
