"""What a person sees on the terminal: progress bars, stage reports, messages.

Messages and progress go to stderr; data (export, ``status --json``) goes to
stdout, so pipes stay clean.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:  # annotations only: rich.progress is imported when a bar is shown, the store not at all
    from rich.progress import Progress, TaskID

    from .store import Usage

# Piped output (a file, `less`, a test) has no terminal width: give tables room instead of 80 columns.
PIPE_WIDTH = 160
err = Console(stderr=True, highlight=False, soft_wrap=True, width=None if sys.stderr.isatty() else PIPE_WIDTH)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else PIPE_WIDTH)


@dataclass
class StageReport:
    """The outcome of one stage over one venue: counts in display order and the failures."""

    stage: str
    venue: str
    counts: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (paper id, reason)
    usage: Usage | None = None

    def count(self, key: str, by: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + by

    def fail(self, paper_id: str, reason: str) -> None:
        self.failures.append((paper_id, reason))

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary_line(self) -> str:
        if not self.counts and not self.failures:
            return "nothing to do"
        parts = [f"{n} {key}" for key, n in self.counts.items()]
        if "failed" not in self.counts:
            parts.append(f"{len(self.failures)} failed")
        return ", ".join(parts)


def usage_line(usage: Usage) -> str:
    return (
        f"{usage.llm_calls} model calls, {usage.prompt_tokens:,} prompt + "
        f"{usage.completion_tokens:,} completion tokens, ${usage.cost_usd:.4f}"
    )


def print_report(report: StageReport) -> None:
    style = "green" if report.ok else "yellow"
    err.print(f"[{style}]{report.stage} {escape(report.venue)}: {escape(report.summary_line())}[/{style}]")
    if report.usage is not None and report.usage.llm_calls:
        err.print(f"  usage: {usage_line(report.usage)}")
    if report.failures:
        err.print("[yellow]failures:[/yellow]")
        for paper_id, reason in sorted(report.failures):
            err.print(f"  {escape(paper_id)}: {escape(reason)}")


def info(message: str) -> None:
    err.print(escape(message))


def warn(message: str) -> None:
    err.print(f"[yellow]{escape(message)}[/yellow]")


@contextmanager
def progress(description: str, total: int) -> Iterator[ProgressBar]:
    """A progress bar on stderr; silent when stderr is not a terminal or SUMMARIZER_NO_PROGRESS is set."""
    if not err.is_terminal or os.environ.get("SUMMARIZER_NO_PROGRESS"):
        yield ProgressBar(None, None)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        console=err,
        transient=False,
    )
    with bar:
        task = bar.add_task(description, total=total, note="")
        yield ProgressBar(bar, task)


class ProgressBar:
    """One task of a bar; a silent one (``bar`` None) does nothing."""

    def __init__(self, bar: Progress | None, task: TaskID | None):
        self._bar = bar
        self._task = task

    def advance(self, note: str | None = None) -> None:
        if self._bar is None or self._task is None:
            return
        if note is None:
            self._bar.advance(self._task)
        else:
            self._bar.update(self._task, advance=1, note=escape(note))

    def note(self, note: str) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, note=escape(note))
