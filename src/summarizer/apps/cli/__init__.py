"""The command line: parses arguments, calls the stages, turns errors into one line and an exit code.

``commands`` and ``review_commands`` hold the commands, ``context`` what they share (settings,
store, locks), ``console`` everything that reaches the terminal, ``views`` and ``status`` the
tables, ``desk_server`` the review desk's server, ``demo`` the bundled sample venue.  Only this
package prints; the stages report through ``core.progress`` and return a ``core.report.Report``.

Exit codes: 0 all done; 1 some papers failed (the rest is saved, the
failures are listed with reasons); 2 a usage or configuration error.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import traceback
from collections.abc import Callable

import click

import summarizer.apps.cli.console as console
from summarizer.core import limits
from summarizer.core.errors import FileSystemError, SummarizerError, clip

from . import invocation
from .commands import PipeClosed, cli
from .context import Context

__all__ = ["cli", "entry", "main"]


def main(argv: list[str] | None = None, *, on_work_start: Callable[[], None] = lambda: None) -> int:
    """Run one command; its exit code.  ``on_work_start`` is called once the command's work begins."""
    console.set_verbosity(console.NORMAL)  # until the options say otherwise (an in-process run starts afresh)
    invocation.reset()
    context = Context(None, on_work_start)
    code = _run(argv, context)
    if context.corrupt:
        console.warn(
            f"{context.corrupt} corrupt record{'s' if context.corrupt > 1 else ''} skipped (named above): "
            "everything else was done"
        )
        code = code or 1
    return code


def _run(argv: list[str] | None, context: Context) -> int:
    """The error boundary: every error becomes one line and an exit code (SUMMARIZER_DEBUG=1: a traceback)."""
    debug = os.environ.get("SUMMARIZER_DEBUG") == "1"
    try:
        cli.main(args=argv, prog_name="summarizer", standalone_mode=False, obj=context)
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        return _interrupted(exc, debug)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except (BrokenPipeError, PipeClosed):
        return _closed_pipe()
    except (SummarizerError, OSError) as exc:
        if debug:
            traceback.print_exc()
        error = _one_line(exc)
        said = console.as_invoked(str(error))
        console.err.print(f"[red]error:[/red] {console.shown(clip(said, limits.SHOWN_MESSAGE))}")
        return error.exit_code
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def _interrupted(exc: BaseException, debug: bool) -> int:
    """Ctrl-C (which click turns into Abort) or an abort at a prompt: one line, exit 130."""
    if isinstance(exc, KeyboardInterrupt) and debug:
        raise exc
    ctrl_c = isinstance(exc, KeyboardInterrupt) or isinstance(exc.__cause__, KeyboardInterrupt)
    if ctrl_c:
        console.err.print("interrupted: finished papers are saved; run the same command again to resume")
    else:
        console.err.print("aborted")
    return 130


def _one_line(exc: SummarizerError | OSError) -> SummarizerError:
    if not isinstance(exc, OSError):
        return exc
    if exc.filename is not None:
        return FileSystemError.from_os_error(exc)
    return SummarizerError(f"{type(exc).__name__}: {exc}")  # a network or system error with no path


def _closed_pipe() -> int:
    """The reader went away (``export | head -1``): stop quietly, as cat does, with nothing more on stdout."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    return 0


def entry() -> None:
    """The ``summarizer`` program: one command in a process of its own.

    Start-up makes ~100,000 objects that live until the process ends (the classes of openai,
    pydantic, rich …).  Left alone, the cyclic garbage collector walks them all over and over while
    the imports make them (~200 collections), in every full collection during the work, and once
    more at exit to free them one by one: ~0.3 s of a ``summarize`` (benchmarks/RESULTS.md,
    "Profile").  So the collector is off through start-up; once the work begins (the settings
    loaded, the command's modules imported) what start-up made is frozen and the collector is on
    again; at exit everything is frozen, which leaves the memory to the OS.
    """
    gc.disable()
    code = main(on_work_start=_collector_after_start_up())
    gc.freeze()  # streams are still flushed and atexit handlers still run
    sys.exit(code)


def _collector_after_start_up() -> Callable[[], None]:
    """Freeze start-up's objects and turn the collector back on, the first time it is called."""
    started = False

    def start() -> None:
        nonlocal started
        if not started:
            started = True
            gc.freeze()
            gc.enable()

    return start
