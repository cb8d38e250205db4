"""The optional parts ([openreview], [acl], [desk], [mkdocs]): a core install runs without them.

A missing part is a one-line error, exit 2, naming the ``pip install`` to run.  ``sys.modules[name] = None``
makes ``import name`` raise ImportError, as if the package were not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import summarizer.apps.cli.console as console
from conftest import REPO, Project, RunCli

INSTALL = "pip install 'conference-digest-zh[{extra}]'"


def _one_line_error(err: str, what: str, extra: str) -> None:
    lines = err.strip().splitlines()
    assert lines == [f"error: {what} needs the optional part [{extra}]: {INSTALL.format(extra=extra)}"], err


@pytest.mark.parametrize(
    ("source", "blocked", "what", "extra"),
    [
        ({"type": "openreview", "openreview_venue": "X.cc/2099"}, "openreview", "an openreview source", "openreview"),
        ({"type": "acl_anthology", "volumes": ["2099.acl-long"]}, "acl_anthology", "an acl_anthology source", "acl"),
    ],
)
def test_a_venue_source_without_its_extra_is_one_line_naming_the_pip_install(
    project: Project,
    cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
    source: dict[str, object],
    blocked: str,
    what: str,
    extra: str,
) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)
    project.write_config(venues=[{"id": "X2099", "source": source}])
    result = cli("fetch", "X2099")
    assert result.code == 2
    _one_line_error(result.err, what, extra)


@pytest.mark.parametrize("blocked", ["uvicorn", "starlette"])
def test_the_review_desk_without_its_extra_is_one_line_naming_the_pip_install(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, blocked: str
) -> None:
    monkeypatch.setitem(sys.modules, blocked, None)
    for name in ("app", "security", "note_routes", "web"):  # imported afresh, so starlette is looked for
        monkeypatch.delitem(sys.modules, f"summarizer.apps.desk.{name}", raising=False)
    result = cli("review", "serve", "ICML2026", "--no-browser", "--port", "0")
    assert result.code == 2
    _one_line_error(result.err, "the review desk", "desk")


OPTIONAL = ["openreview", "acl_anthology", "git", "starlette", "uvicorn", "mkdocs", "material"]

CORE_ONLY = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    for name in {optional!r}:
        sys.modules[name] = None  # as if not installed: `import name` raises ImportError
    import summarizer
    desk = ("app", "kind_views", "security", "note_routes", "web")  # the desk's pages and routes: the [desk] extra
    skipped = ("summarizer.__main__", *("summarizer.apps.desk." + name for name in desk))
    for info in pkgutil.walk_packages(summarizer.__path__, "summarizer."):
        if info.name not in skipped:  # __main__ runs the program
            importlib.import_module(info.name)
    from summarizer.apps.cli import main
    sys.exit(main(["--help"]))
    """
)


def test_every_module_but_the_desk_app_imports_without_the_extras() -> None:
    """The optional packages are imported where they are used, never at a module's top."""
    done = subprocess.run(
        [sys.executable, "-c", CORE_ONLY.format(optional=OPTIONAL)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Usage:" in done.stdout


def test_without_mkdocs_the_serve_hint_names_the_pip_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))  # no mkdocs beside it
    monkeypatch.setattr(shutil, "which", lambda name: None)
    hint = console.mkdocs_serve("outputs/site/mkdocs.yml")
    assert hint == f"{INSTALL.format(extra='mkdocs')}, then mkdocs serve -f outputs/site/mkdocs.yml"
