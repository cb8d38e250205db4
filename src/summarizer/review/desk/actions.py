"""The desk's actions: the CLI's review functions, under the venue lock, on the version the page showed.

A regen asks the model without the lock (minutes, at worst) and takes it only to save; a bulk approve
saves all its papers or none (one write batch).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from summarizer.core import limits, locks
from summarizer.core.config import Settings
from summarizer.core.errors import (
    ChangedSince,
    LLMError,
    LockedError,
    Problems,
    SummarizerError,
    SummaryRejected,
    UsageError,
)
from summarizer.core.records import Record
from summarizer.core.report import plural
from summarizer.core.rules import check_human_summary
from summarizer.core.sanitize import clean_line
from summarizer.core.store import Store
from summarizer.summarize.online import ask_again, record_failure, save_regenerated

from .. import actions as review
from ..actions import TAG_SEPARATORS, ReviewState
from .decisions import Decision, Decisions

# A click while a command holds the venue waits this long for it, then names the holder.
LOCK_WAIT_S = 3.0


@dataclass
class Outcome:
    status: int
    body: dict[str, Any]


class Desk:
    def __init__(self, settings: Settings, venue_ids: list[str], *, lock_wait_s: float = LOCK_WAIT_S):
        self.settings = settings
        self.venue_ids = venue_ids
        self.lock_wait_s = lock_wait_s
        self.store = Store(settings.outputs_dir)
        self.decisions = Decisions()

    def split(self, ref: object) -> tuple[str, str]:
        venue_id, sep, paper = str(ref).partition("/")
        if not sep or venue_id not in self.venue_ids:
            raise UsageError(f"not a paper of this desk: {str(ref)[:80]!r}")
        self.store.path(venue_id, paper)  # refuses an unsafe id
        return venue_id, paper

    def locked(self, venue_id: str) -> contextlib.ExitStack:
        """The venue's lock; while a command holds it, wait a little, then say who holds it."""
        return locks.wait_for(lambda: locks.venue(self.store, venue_id), self.lock_wait_s)

    def perform(self, data: dict[str, Any]) -> Outcome:
        try:
            venue_id, paper = self.split(data.get("ref"))
            seen = Seen(_version(data.get("version")), str(data.get("status") or "") or None)
            if data.get("action") == "regen":
                message = self._regen(venue_id, paper, seen, data)
            else:
                with self.locked(venue_id):
                    message = self._act(venue_id, paper, seen, data)
        except Problems as exc:
            return Outcome(422, {"error": "not saved: fix what is marked", "problems": exc.problems})
        except ChangedSince as exc:
            return Outcome(409, {"error": str(exc)})
        except LockedError as exc:
            return Outcome(423, {"error": str(exc)})
        except SummarizerError as exc:
            return Outcome(400, {"error": str(exc)})
        return Outcome(200, {"message": message})

    def _act(self, venue_id: str, paper: str, seen: Seen, data: dict[str, Any]) -> str:
        action = data.get("action")
        record = review.require_version(self.store, venue_id, paper, seen.version, status=seen.status)
        if action == "approve":
            review.approve_records(self.store, venue_id, review.approvable(self.store, venue_id, [paper]))
            self._decided("approved", record)
            return f"approved {venue_id}/{paper} (version {seen.version})"
        if action == "reject":
            note = clean_line(str(data.get("note") or ""))
            if not note:
                raise Problems(["say why in a note: it stays in the record for the next editor"])
            review.reject(self.settings, self.store, venue_id, paper, note=note)
            self._decided("rejected", record)
            return f"rejected {venue_id}/{paper}"
        if action == "edit":
            return self._edit(venue_id, paper, data)
        raise UsageError(f"unknown action {str(action)[:20]!r}")

    def _decided(self, action: str, before: Record) -> None:
        """Remember a decision on ``before`` (the record as it was, now saved changed), for "just decided" and undo."""
        after = self.store.load(before.venue, before.id)
        self._remember(action, before, ReviewState.of(before), ReviewState.of(after))

    def _remember(self, action: str, record: Record, before: ReviewState, after: ReviewState) -> None:
        self.decisions.add(Decision(f"{record.venue}/{record.id}", action, record.title, before, after))

    def undo(self, ref: object) -> Outcome:
        """Undo the newest decision (on ``ref`` when given), if the paper is still as the decision left it."""
        decision = self.decisions.latest(str(ref) if ref else None)
        if decision is None:
            return Outcome(400, {"error": "nothing to undo: no decision of this desk's session is left to undo"})
        try:
            venue_id, paper = self.split(decision.ref)
            with self.locked(venue_id):
                done = review.undo_decision(self.store, venue_id, paper, decision.before, decision.after)
        except ChangedSince as exc:
            self.decisions.drop(decision)  # the paper moved on: this decision can no longer be put back
            return Outcome(409, {"error": str(exc)})
        except LockedError as exc:
            return Outcome(423, {"error": str(exc)})
        except SummarizerError as exc:
            return Outcome(400, {"error": str(exc)})
        self.decisions.drop(decision)
        return Outcome(200, {"message": done.lines[0], "paper": f"/paper/{decision.ref}"})

    def _regen(self, venue_id: str, paper: str, seen: Seen, data: dict[str, Any]) -> str:
        """The model is asked with no lock held; the lock is taken to save, if the page's version is still current."""
        feedback = clean_line(str(data.get("feedback") or "")) or None
        if feedback is not None and len(feedback) > limits.REVIEW_NOTE:
            raise Problems([f"the feedback is {len(feedback)} characters (at most {limits.REVIEW_NOTE})"])
        # A stale page pays for no call: checked before asking, and again before saving.
        record = review.require_version(self.store, venue_id, paper, seen.version, status=seen.status)
        try:
            answer = ask_again(self.settings, record, feedback=feedback)
        except LLMError as exc:
            with self.locked(venue_id):
                record_failure(self.store, venue_id, paper, exc)
            raise
        with self.locked(venue_id):
            record = review.require_version(self.store, venue_id, paper, seen.version, status=seen.status)
            save_regenerated(self.settings, self.store, record, answer)
        now = record.current
        return f"{venue_id}/{paper}: version {now.number if now else '?'} written, waiting for review"

    def _edit(self, venue_id: str, paper: str, data: dict[str, Any]) -> str:
        summary = str(data.get("summary") or "")
        tags = [t for t in (clean_line(t) for t in TAG_SEPARATORS.split(str(data.get("tags") or ""))) if t]
        field = str(data.get("field") or "")
        try:  # the rules `review edit` applies, checked first so every problem shows beside the form
            check_human_summary(summary, tags, field, self.settings)
        except SummaryRejected as exc:
            raise Problems(exc.problems) from None
        before = self.store.load(venue_id, paper).current
        review.edit(self.settings, self.store, venue_id, paper, summary=summary, tags=tags, field=field)
        after = self.store.load(venue_id, paper).current
        if before is not None and after is not None and after.number == before.number:
            return "nothing changed"
        return f"saved {venue_id}/{paper} version {after.number if after else '?'} (human), waiting for review"

    def approve_many(self, items: list[Any]) -> Outcome:
        """All or nothing: every venue locked and every paper checked, then every approval saved in one batch."""
        try:
            wanted = self._wanted(items)
            # A store of its own: the batch must not take in what other requests save meanwhile.
            store = Store(self.settings.outputs_dir)
            with contextlib.ExitStack() as held:
                for venue_id in wanted:
                    held.enter_context(self.locked(venue_id))
                checked = {
                    venue_id: [
                        review.require_version(store, venue_id, p, seen.version, status=seen.status)
                        for p, seen in papers
                    ]
                    for venue_id, papers in wanted.items()
                }
                before = {id(r): ReviewState.of(r) for records in checked.values() for r in records}
                with store.all_or_nothing():
                    for venue_id, records in checked.items():
                        review.approve_records(store, venue_id, records)
                for record in (r for records in checked.values() for r in records):  # approved as saved
                    self._remember("approved", record, before[id(record)], ReviewState.of(record))
        except ChangedSince as exc:
            return Outcome(409, {"error": f"nothing approved: {exc}"})
        except LockedError as exc:
            return Outcome(423, {"error": f"nothing approved: {exc}"})
        except SummarizerError as exc:
            return Outcome(400, {"error": f"nothing approved: {exc}"})
        total = sum(len(r) for r in checked.values())
        return Outcome(200, {"message": f"{plural(total, 'paper')} approved"})

    def _wanted(self, items: list[Any]) -> dict[str, list[tuple[str, Seen]]]:
        if not isinstance(items, list) or not items:
            raise UsageError("no papers named")
        wanted: dict[str, list[tuple[str, Seen]]] = {}
        for item in items:
            venue_id, paper = self.split(item.get("ref") if isinstance(item, dict) else None)
            status = item.get("status")
            seen = Seen(_version(item.get("version")), str(status) if status else None)
            wanted.setdefault(venue_id, []).append((paper, seen))
        return wanted


@dataclass(frozen=True)
class Seen:
    """What the page showed of a paper: its newest version and its status."""

    version: int | None
    status: str | None


def _version(value: object) -> int | None:
    """A version from the page: an integer, or null for a paper with none (``true`` is no version)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise UsageError(f"the version must be an integer, not {str(value)[:20]!r}")
