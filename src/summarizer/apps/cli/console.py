"""What a person sees on the terminal: progress bars, stage reports, messages.

Messages and progress go to stderr; data (export, ``status --json``) goes to
stdout, so pipes stay clean.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from summarizer.core import limits
from summarizer.core import progress as stage_progress
from summarizer.core.errors import clip
from summarizer.core.progress import Bar
from summarizer.core.report import Report, usage_line
from summarizer.core.sanitize import terminal_safe

from .invocation import as_invoked, installed_program, mkdocs_serve, summarizer_program

if TYPE_CHECKING:  # annotations only: rich.progress is imported when a bar is shown, the store not at all
    from rich.progress import Progress, TaskID


# Piped output (a file, `less`, a test) has no terminal width: give tables room instead of 80 columns.
PIPE_WIDTH = 160
# More failures than this with one reason print as one line: a count, the first few ids, where to see all.
GROUP_OVER = 20
GROUP_SHOWN = 3
# Without a terminal (a log, CI, nohup) a long stage says where it is at least this often.
PLAIN_PROGRESS_EVERY_S = 10.0
QUIET, NORMAL, VERBOSE, DEBUG = -1, 0, 1, 2
_verbosity = NORMAL  # set once per command by the CLI (-q / -v / -vv)
_log_handler: logging.Handler | None = None
# No emoji codes: outside text quoted in a message (``in100.jsonl:100:``) must show as written, and
# ``shown`` escapes markup, not ``:100:``.  The tool's own words use neither.
err = Console(
    stderr=True, highlight=False, emoji=False, soft_wrap=True, width=None if sys.stderr.isatty() else PIPE_WIDTH
)
out = Console(highlight=False, emoji=False, soft_wrap=True, width=None if sys.stdout.isatty() else PIPE_WIDTH)


__all__ = ["as_invoked", "installed_program", "mkdocs_serve", "summarizer_program"]  # the CLI's: see invocation


def shown(text: str) -> str:
    """Stored or outside text made safe to print: controls escaped (textsafe), rich markup inert."""
    return escape(terminal_safe(text))


def shown_line(text: str) -> str:
    """``shown``, and a line break inside (a file's name may hold one) shown as ``\\n``: one line stays one."""
    return shown(text).replace("\n", "\\n")


def print_report(report: Report) -> None:
    """The one printer of stage reports: the counts on one line, then usage, notes, warnings, failures.

    Under ``-q`` only what went wrong: the problems and the failures.
    """
    if _verbosity <= QUIET:
        for line in report.problems:
            err.print(f"[yellow]{shown_line(clip(as_invoked(line), limits.SHOWN_MESSAGE))}[/yellow]")
        for line in failure_lines(report) if report.failures else []:
            err.print(f"{shown(report.stage)} {shown(report.subject)}: {shown_line(line)}")
        return
    style = "green" if report.ok else "yellow"
    err.print(f"[{style}]{report.stage} {shown(report.subject)}: {shown(report.summary_line())}[/{style}]")
    if report.usage is not None and report.usage.llm_calls:
        err.print(f"  usage: {usage_line(report.usage)}")
    for line in report.details:
        info(line)
    for line in report.warnings + report.problems:
        warn(line.replace("\n", "\\n"))
    if report.failures:
        err.print("[yellow]failures:[/yellow]")
        for line in failure_lines(report):
            err.print(f"  {shown_line(line)}")


def failure_lines(report: Report) -> list[str]:
    """One line a failure; a reason shared by more than GROUP_OVER papers is one line with a count."""
    by_reason: dict[str, list[str]] = {}
    for paper_id, reason in sorted(report.failures):
        by_reason.setdefault(reason, []).append(paper_id)
    lines = []
    for reason, ids in by_reason.items():
        if len(ids) > GROUP_OVER:
            first = ", ".join(clip(i) for i in ids[:GROUP_SHOWN])
            lines.append(
                f"{len(ids)} papers: {clip(reason, 300)} (first: {first} …; "
                f"all: summarizer status {report.venue} --json)"
            )
        else:
            lines.extend(f"{clip(paper_id)}: {clip(reason, 300)}" for paper_id in ids)
    return sorted(as_invoked(line) for line in lines)


def info(message: str) -> None:
    """A line for the person; a ``summarizer COMMAND`` hint in it is printed as it runs from here."""
    if _verbosity > QUIET:
        err.print(shown(clip(as_invoked(message), limits.SHOWN_MESSAGE)))


def warn(message: str) -> None:
    if _verbosity > QUIET:
        err.print(f"[yellow]{shown(clip(as_invoked(message), limits.SHOWN_MESSAGE))}[/yellow]")


_LOG_STYLES = {logging.DEBUG: "dim", logging.INFO: "dim", logging.WARNING: "yellow"}


class _LogLines(logging.Handler):
    """Diagnostics (retries, backoffs, pacing waits …) as lines on stderr, inert like every message."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = shown(clip(f"{record.name}: {record.getMessage()}", limits.SHOWN_MESSAGE))
            style = _LOG_STYLES.get(record.levelno, "red")
            err.print(f"[{style}]{text}[/{style}]")
        except Exception:  # a logging handler must never break the command
            self.handleError(record)


def set_verbosity(level: int) -> None:
    """Once per command: QUIET shows only errors, VERBOSE adds INFO diagnostics, DEBUG adds DEBUG ones."""
    global _verbosity, _log_handler
    _verbosity = level
    logger = logging.getLogger("summarizer")
    if _log_handler is not None:  # in-process runs (the tests) configure again
        logger.removeHandler(_log_handler)
    _log_handler = _LogLines()
    logger.addHandler(_log_handler)
    logger.propagate = False
    levels = {QUIET: logging.ERROR, NORMAL: logging.WARNING, VERBOSE: logging.INFO}
    logger.setLevel(levels.get(level, logging.DEBUG))


@contextmanager
def progress(description: str, total: int) -> Iterator[Bar]:
    """A progress bar on stderr; without a terminal, a plain line at least every PLAIN_PROGRESS_EVERY_S.

    SUMMARIZER_NO_PROGRESS=1 (the tests' own output stays readable) and ``-q`` silence both.
    """
    if _bars_off():
        yield Bar()
    elif err.is_terminal:
        with _rich_bar(description, total) as bar:
            yield bar
    else:
        lines = _PlainLines(description, total)
        try:
            yield lines
        finally:
            lines.close()


@contextmanager
def terminal_bar(description: str, total: int) -> Iterator[Bar]:
    """A bar for a long wait that prints its own line when something moves (a batch on the provider's
    side): drawn in a terminal only; in a log, the plain lines' timer would add one every few seconds
    for hours."""
    if _bars_off() or not err.is_terminal:
        yield Bar()
    else:
        with _rich_bar(description, total) as bar:
            yield bar


def _bars_off() -> bool:
    return bool(os.environ.get("SUMMARIZER_NO_PROGRESS")) or _verbosity <= QUIET


@contextmanager
def _rich_bar(description: str, total: int) -> Iterator[Bar]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
        TextColumn("eta"),  # how long: from the pace so far (summarize's text beside the bar says what it spent)
        TimeRemainingColumn(compact=True),
        console=err,
        transient=False,
    )
    with bar:
        task = bar.add_task(description, total=total, status="")
        yield _RichBar(bar, task)


class _RichBar(Bar):
    def __init__(self, bar: Progress, task: TaskID):
        self._bar = bar
        self._task = task

    def advance(self, text: str | None = None) -> None:
        if text is None:
            self._bar.advance(self._task)
        else:
            self._bar.update(self._task, advance=1, status=shown(text))

    def show(self, text: str) -> None:
        self._bar.update(self._task, status=shown(text))

    def reach(self, done: int, text: str) -> None:
        self._bar.update(self._task, completed=done, status=shown(text))


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"


class _PlainLines(Bar):
    """``summarize ICML2026: 120/900 · … · $0.0123 (2m10s, about 14m05s left)`` on stderr, for logs: no bar,
    no carriage returns; the time left is the pace so far applied to what is left.

    Printed when a paper finishes and at least PLAIN_PROGRESS_EVERY_S have passed, and by a timer
    thread while nothing finishes, so a log never goes quiet for longer than that.
    """

    def __init__(self, description: str, total: int, clock: Callable[[], float] = time.monotonic):
        self.description = description
        self.total = total
        self.done = 0
        self.text = ""
        self.clock = clock
        self.started = self.last = clock()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._timer = threading.Thread(target=self._tick, name="progress-lines", daemon=True)
        self._timer.start()

    def advance(self, text: str | None = None) -> None:
        with self._lock:
            self.done += 1
            self.text = text if text is not None else self.text
        self._emit_if_due()

    def show(self, text: str) -> None:
        with self._lock:
            self.text = text
        self._emit_if_due()

    def reach(self, done: int, text: str) -> None:
        with self._lock:
            self.done, self.text = done, text
        self._emit_if_due()

    def close(self) -> None:
        self._stop.set()
        self._timer.join()
        if self.total:
            self._emit()

    def _tick(self) -> None:
        while not self._stop.wait(PLAIN_PROGRESS_EVERY_S or 1.0):
            self._emit_if_due()

    def _emit_if_due(self) -> None:
        if self.clock() - self.last >= PLAIN_PROGRESS_EVERY_S:
            self._emit()

    def line(self) -> str:
        """The line as of now (call holding the lock)."""
        elapsed = self.clock() - self.started
        note = f" · {self.text}" if self.text else ""
        left = ""
        if 0 < self.done < self.total:
            left = f", about {_duration(elapsed / self.done * (self.total - self.done))} left"
        return f"{self.description}: {self.done}/{self.total}{note} ({_duration(elapsed)}{left})"

    def _emit(self) -> None:
        with self._lock:
            self.last = self.clock()
            line = self.line()
        err.print(shown(line))


class TerminalProgress(stage_progress.Progress):
    """How a stage's progress reaches the terminal: bars and plain lines on stderr, info and warnings."""

    def bar(self, description: str, total: int) -> contextlib.AbstractContextManager[Bar]:
        return progress(description, total)

    def wait_bar(self, description: str, total: int) -> contextlib.AbstractContextManager[Bar]:
        return terminal_bar(description, total)

    def say(self, message: str) -> None:
        info(message)

    def warn(self, message: str) -> None:
        warn(message)


PROGRESS = TerminalProgress()
