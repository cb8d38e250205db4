"""What a stage returns: one report type for fetch, summarize, build and import.

Stages fill a ``Report`` and return it; they print nothing.  The CLI hands it to
``console.print_report``, the one printer; the review desk reads the same
fields without any terminal output.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the CLI imports this at start-up, before it needs pydantic
    from .usage import Usage


@dataclass
class Report:
    """The outcome of one stage over one subject (a venue, a site folder, an imported file)."""

    stage: str
    subject: str  # a venue id; the site folder for build; the file for import
    counts: dict[str, int] = field(default_factory=dict)  # in display order
    failures: list[tuple[str, str]] = field(default_factory=list)  # (paper id, reason)
    usage: Usage | None = None
    problems: list[str] = field(default_factory=list)  # not one paper's, and they fail the stage
    warnings: list[str] = field(default_factory=list)  # shown, but the stage still succeeded
    details: list[str] = field(default_factory=list)  # plain lines after the counts (pages written, removed)
    per_paper: bool = True  # the counts are of papers, so "N failed" belongs in them
    tail: str = ""  # said after the counts on the same line (import: pending drafts, rejected lines)
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # Summarize saves papers in threads while the event loop counts others: one count at a time.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def venue(self) -> str:
        return self.subject

    def count(self, key: str, by: int = 1) -> None:
        with self._lock:
            self.counts[key] = self.counts.get(key, 0) + by

    def fail(self, paper_id: str, reason: str) -> None:
        self.failures.append((paper_id, reason))

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    @property
    def ok(self) -> bool:
        return not self.failures and not self.problems

    def summary_line(self) -> str:
        if not self.counts and not self.failures:
            return "nothing to do" + self.tail
        parts = [f"{n} {key}" for key, n in self.counts.items()]
        if self.per_paper and "failed" not in self.counts:
            parts.append(f"{len(self.failures)} failed")
        return ", ".join(parts) + self.tail


def plural(n: int, noun: str, many: str = "") -> str:
    """``1 paper``, ``2 papers`` (``many`` when adding an s is wrong: ``1 batch``, ``2 batches``)."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def usage_line(usage: Usage) -> str:
    return (
        f"{plural(usage.llm_calls, 'model call')}, {usage.prompt_tokens:,} prompt + "
        f"{usage.completion_tokens:,} completion tokens, ${usage.cost_usd:.4f}"
    )


@dataclass
class Done:
    """What one action on one paper did, in the editor's words: the CLI prints ``lines``, the desk answers with them."""

    lines: list[str] = field(default_factory=list)
    changed: bool = True
