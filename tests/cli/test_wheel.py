"""The built wheel works outside the checkout: a fresh venv, `summarizer demo` from a folder of its own.

The wheel is built from the checkout, then installed alone (``--no-deps --no-index``) into a new venv
whose dependencies are the running environment's: a ``.pth`` file puts this interpreter's
site-packages after the venv's own, so nothing is downloaded (a plain path line, so the running
environment's own ``.pth`` files, an editable summarizer among them, are not read).  ``summarizer``
itself resolves to the venv's copy, which the test checks.  The build needs the backend: with
hatchling installed here (``[dev]`` has it) it runs without build isolation and offline; without it,
pip fetches hatchling alone from the index.  Slow: a build, a venv, the demo in a subprocess.
"""

from __future__ import annotations

import importlib.util
import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import REPO
from summarizer.core.errors import DISTRIBUTION

pytestmark = pytest.mark.slow

PIP_TIMEOUT_S = 900  # a hang bound (a build that fetches hatchling on a cold cache), far from a normal run


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = PIP_TIMEOUT_S) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (
        f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def _clean_env(home: Path) -> dict[str, str]:
    """The machine's pip settings (index, cache) but nothing that points Python at the checkout."""
    drop = (
        "PYTHONPATH",
        "PYTHONHOME",
        "VIRTUAL_ENV",
        "SUMMARIZER_CONFIG",
        "SUMMARIZER_DEBUG",
        "PIP_REQUIRE_VIRTUALENV",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["SUMMARIZER_NO_PROGRESS"] = "1"
    env.setdefault("HOME", str(home))
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    env = _clean_env(dist)
    offline = ["--no-build-isolation", "--no-index"] if importlib.util.find_spec("hatchling") else []
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *offline, "-q", "-w", str(dist), str(REPO)], dist, env)
    (built,) = dist.glob(f"{DISTRIBUTION.replace('-', '_')}-*.whl")
    return built


def test_the_wheel_ships_prompts_and_demo_files_and_no_outputs(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = REPO / "examples" / "demo"
    expected = {"summarizer/demo_data/config.yaml", "summarizer/demo_data/papers.yaml"}
    expected |= {f"summarizer/demo_data/venues/{p.name}" for p in (shipped / "venues").iterdir()}
    expected |= {f"summarizer/prompts/{p.name}" for p in (REPO / "prompts").iterdir() if p.is_file()}
    expected.add(f"{wheel.name.split('-py3')[0]}.dist-info/licenses/LICENSE")  # AGPL-3.0 (pymupdf's licence)
    assert expected <= names
    assert not [n for n in names if "/outputs/" in n or "/cache/" in n or "__pycache__" in n]


def test_installed_wheel_runs_the_demo_from_any_folder(wheel: Path, tmp_path: Path) -> None:
    env = _clean_env(tmp_path)
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    python = target / "bin" / "python"
    # The dependencies are the running environment's (nothing to download), so pip resolves `[all]` against them:
    # its extras name the distribution itself, which resolves only under the name the wheel carries.
    venv_site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path, env)
    reused = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(venv_site.strip()) / "zz_reuse_running_env.pth").write_text("".join(f"{p}\n" for p in reused))
    where = tmp_path / "somewhere"
    where.mkdir()
    install = ["install", "-q", "--no-compile", "--no-index", f"{wheel}[all]"]
    _run([str(python), "-m", "pip", *install], where, env)  # from a folder of its own, not the checkout
    shown = _run([str(python), "-m", "pip", "show", DISTRIBUTION], where, env)
    assert f"Name: {DISTRIBUTION}" in shown

    located = _run([str(python), "-c", "import summarizer; print(summarizer.__file__)"], where, env)
    assert Path(located.strip()).is_relative_to(target), located  # the installed copy, not the checkout
    out = _run([str(target / "bin" / "summarizer"), "demo"], where, env, timeout=300)

    folder = where / "summarizer-demo"
    assert "demo folder: summarizer-demo/" in out
    # The closing lines name this installation's program, so they run as printed outside the checkout too.
    assert f"\n  {target / 'bin' / 'summarizer'} --config summarizer-demo/config.yaml review serve\n" in out
    page = folder / "outputs" / "site" / "docs" / "ICML2026" / "llm_reasoning" / "index.md"
    assert "🔥 **高频主题：** " in page.read_text("utf-8")
    assert (folder / "outputs" / "site" / "mkdocs.yml").is_file()
    package = Path(located.strip()).parent
    assert not [p for p in package.rglob("*") if p.name in ("outputs", "cache")]  # nothing written into the package
