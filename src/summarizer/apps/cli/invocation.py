"""How the person ran summarizer, so every command it prints runs as printed from where they are.

A hint names the program as it was invoked (``summarizer`` when that is what PATH finds, else the path they
typed, or ``python -m summarizer``) and carries the ``--config`` the command was given.  The stages write
their hints as ``summarizer COMMAND …``; ``as_invoked`` rewrites them when they reach the terminal.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import click

from summarizer.core.errors import DISTRIBUTION, pip_install

NAME = "summarizer"
# A command line in the tool's own words: ``summarizer`` followed by one of its commands, not inside a path
# or a word (``summarizer's``, ``mysummarizer``, ``summarizer/0.1``).
_HINT = re.compile(
    r"(?<![\w./-])summarizer (?=(?:fetch|summarize|run|regen|notes|review|build|import|export|status|demo|eval|init)\b)"
)
_prefix: str | None = None  # the program and its --config, set once per command by the CLI


def invoked_program() -> str:
    """``summarizer`` as the person ran it (``as_typed``); inside another program (a test), this installation's."""
    return as_typed() or summarizer_program()


def as_typed() -> str | None:
    """The program as the person ran it: the bare name when PATH finds this very script, the path they typed
    otherwise, ``python -m summarizer`` for the module; None when summarizer runs inside another program."""
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name == NAME and Path(argv0).is_file():
        return NAME if _same_file(shutil.which(NAME), argv0) else shlex.quote(_near(argv0))
    if Path(argv0).name == "__main__.py" and Path(argv0).parent.name == NAME:
        python = Path(sys.executable).name
        shown = python if _same_file(shutil.which(python), sys.executable) else _near(sys.executable)
        return f"{shlex.quote(shown)} -m {NAME}"
    return None


def _same_file(found: str | None, path: str) -> bool:
    try:
        return found is not None and os.path.samefile(found, path)
    except OSError:
        return False


def _near(path: str) -> str:
    """``path`` relative to here when it is below here, else absolute."""
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else os.path.abspath(path)


def set_invocation(config_path: str | None) -> None:
    """Once per command: the prefix every printed hint starts with (``--config PATH`` when one was given).

    Run inside another program (``main()`` called by a test) there is no command line to repeat: hints stay
    as the stages wrote them."""
    global _prefix
    program = as_typed()
    config = f" --config {shlex.quote(config_path)}" if config_path else ""
    _prefix = f"{program}{config}" if program is not None else None


def reset() -> None:
    global _prefix
    _prefix = None


def as_invoked(text: str) -> str:
    """``text`` with each ``summarizer COMMAND`` hint in it made to run as printed from here."""
    if _prefix is None or "summarizer " not in text:
        return text
    return _HINT.sub(lambda _: f"{_prefix} ", text)


def command_prefix(config: Path | str | None) -> str:
    """The start of a printed command line: the program as invoked, with ``--config CONFIG`` when given."""
    quoted = f" --config {shlex.quote(str(config))}" if config is not None else ""
    return f"{invoked_program()}{quoted}"


def installed_program(name: str) -> str | None:
    """How to run this installation's ``name`` from here: the bare name when PATH finds the one beside this
    Python (a venv's bin/), else that one by its path (so it works without activating the venv); else one on
    PATH; None when there is neither."""
    beside = Path(sys.executable).with_name(name)
    if beside.is_file():
        return name if _same_file(shutil.which(name), str(beside)) else _near(str(beside))
    return name if shutil.which(name) else None


def summarizer_program() -> str:
    """``summarizer`` as this installation runs it (``python -m summarizer`` when no script is installed)."""
    return installed_program(NAME) or f"{shlex.quote(sys.executable)} -m {NAME}"


def mkdocs_serve(config: str) -> str:
    """``mkdocs serve -f CONFIG`` as this installation runs it; without MkDocs (the ``[mkdocs]`` extra), how to
    get it."""
    command = installed_program("mkdocs")
    if command is None:
        return f"{pip_install('mkdocs')}, then mkdocs serve -f {config}"
    return f"{shlex.quote(command)} serve -f {config}"


def print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the installed distribution's version (the package index knows it as DISTRIBUTION)."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import PackageNotFoundError, version  # start-up: see the module doc

    try:
        shown = version(DISTRIBUTION)
    except PackageNotFoundError:
        shown = f"unknown ({DISTRIBUTION} is not installed: pip install -e . in the checkout)"
    click.echo(f"summarizer, version {shown}")
    ctx.exit()
