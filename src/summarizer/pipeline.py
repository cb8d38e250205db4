"""A venue's run, in the order it happens: fetch → summarize → notes, then the preview site.

The command line (``run``, ``fetch``, ``summarize``, ``notes``) and the demo call this module rather than the
stages one by one, so the order lives here once.  (The desk works one paper at a time: its regenerate is the
summarize stage's ``Regeneration``.)  It prints nothing: each step returns its ``Report`` and hands it to
``on_report`` as it finishes, so the caller can show it before the next step.

The stages are imported inside the steps: the command line's start-up (``--help``, ``review``,
``status``) does not pay for the model client's import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from summarizer.core import locks
from summarizer.core.config import Settings
from summarizer.core.progress import QUIET, Progress
from summarizer.core.report import Report
from summarizer.core.store import Store

if TYPE_CHECKING:
    from summarizer.summarize.plan import Pick
    from summarizer.summarize.task import Task


def _ignore(_: Report) -> None:
    pass


@dataclass
class VenueRun:
    """One venue's run: its settings, its records, how it asks the model and where its reports go.

    ``batch``: through the provider's Batch API; ``wait``: with ``batch``, wait for the results (else submit
    and return; the same call later collects).  ``limit``: only the first N papers.
    """

    settings: Settings
    store: Store
    venue_id: str
    batch: bool = False
    wait: bool = True
    limit: int | None = None
    progress: Progress = QUIET
    on_report: Callable[[Report], None] = _ignore
    reports: list[Report] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(report.ok for report in self.reports)

    @contextmanager
    def locked(self) -> Iterator[VenueRun]:
        """The venue's lock, held for as long as the block runs: one writing command at a time."""
        with locks.venue(self.store, self.venue_id):
            yield self

    def _done(self, report: Report) -> Report:
        self.reports.append(report)
        self.on_report(report)
        return report

    def fetch(self) -> Report:
        """The venue's list read, each paper's metadata, PDF and text (the caller holds the lock)."""
        from summarizer.fetch import fetch_venue

        report = fetch_venue(self.settings, self.store, self.venue_id, limit=self.limit, progress=self.progress)
        return self._done(report)

    def summarize(self, *, force: bool = False) -> Report:
        """A draft summary for every fetched paper that has none (the caller holds the lock)."""
        from summarizer.summarize.plan import Pick

        return self._answer(None, Pick(self.limit, force))

    def notes(self, *, only: list[str] | None = None, force: bool = False) -> Report:
        """A draft note for each paper whose summary is approved (the caller holds the lock)."""
        from summarizer.summarize.note_task import NoteTask
        from summarizer.summarize.plan import Pick

        return self._answer(NoteTask(self.settings), Pick(self.limit, force, only))

    def _answer(self, task: Task | None, pick: Pick) -> Report:
        """The task's answers (summaries when None), online or through the Batch API."""
        from summarizer.summarize.batch import answer_batch
        from summarizer.summarize.online import answer_online
        from summarizer.summarize.plan import start_run

        run = start_run(self.settings, self.store, self.venue_id, task)
        if self.batch:
            return self._done(answer_batch(run, pick, self.progress, wait=self.wait))
        return self._done(answer_online(run, pick, self.progress))

    def run(
        self,
        *,
        with_notes: bool,
        after_summaries: Callable[[], None] = lambda: None,
        after_notes: Callable[[], None] = lambda: None,
    ) -> list[Report]:
        """fetch → summarize → (notes), under the venue's lock; every step's report.

        ``after_summaries`` and ``after_notes`` run after their step, still under the lock: the demo approves
        there what it wrote, since a note is written only for an approved summary.
        """
        with self.locked():
            self.fetch()
            self.summarize()
            after_summaries()
            if with_notes:
                self.notes()
                after_notes()
        return self.reports


def build_preview(settings: Settings, store: Store, *, drafts: bool = True, progress: Progress = QUIET) -> Report:
    """Every venue's site (drafts shown with ``drafts``), under the site folder's lock."""
    from summarizer.site import build_site

    with locks.site(settings.outputs_dir, drafts=drafts):
        return build_site(settings, store, None, drafts=drafts, progress=progress)
