"""The desk's actions: the CLI's review functions, under the venue lock, on the version the page showed.

A regen asks the model without the lock (minutes, at worst) and takes it only to save; a bulk approve
saves all its papers or none (one write batch).  Approve, bulk approve and undo act on a paper's
summary or on its note (a ``Subject``); what only a note's page does is in ``note_desk``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
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
    TextRejected,
    UsageError,
)
from summarizer.core.records import Record
from summarizer.core.report import Done, plural
from summarizer.core.rules import check_human_summary
from summarizer.core.sanitize import clean_line
from summarizer.core.store import Store
from summarizer.review import actions as review
from summarizer.review import note_actions as notes
from summarizer.review.actions import TAG_SEPARATORS, ReviewState
from summarizer.summarize.online import SUMMARIES, Regeneration

from .decisions import Decision, Decisions

# A click while a command holds the venue waits this long for it, then names the holder.
LOCK_WAIT_S = 3.0


@dataclass
class Outcome:
    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class Seen:
    """What the page showed of a paper (or of its note): the newest version and the status."""

    version: int | None
    status: str | None

    @classmethod
    def of(cls, data: dict[str, Any]) -> Seen:
        """What a request says its page showed."""
        status = data.get("status")
        return cls(_version(data.get("version")), str(status) if status else None)


def _version(value: object) -> int | None:
    """A version from the page: an integer, or null for a paper with none (``true`` is no version)."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise UsageError(f"the version must be an integer, not {str(value)[:20]!r}")


def answer(work: Callable[[], str], *, prefix: str = "") -> Outcome:
    """``work``'s message, or the error the page shows, with the HTTP status that says why."""
    try:
        message = work()
    except Problems as exc:
        return Outcome(422, {"error": "not saved: fix what is marked", "problems": exc.problems})
    except ChangedSince as exc:
        return Outcome(409, {"error": prefix + str(exc)})
    except LockedError as exc:
        return Outcome(423, {"error": prefix + str(exc)})
    except SummarizerError as exc:
        return Outcome(400, {"error": prefix + str(exc)})
    return Outcome(200, {"message": message})


def _summary_as_seen(store: Store, venue_id: str, paper: str, seen: Seen) -> Record:
    return review.require_version(store, venue_id, paper, seen.version, status=seen.status)


def _note_as_seen(store: Store, venue_id: str, paper: str, seen: Seen) -> Record:
    record = notes.require_note_version(store, venue_id, paper, seen.version, status=seen.status)
    notes.require_approved_summary(record)
    return record


@dataclass(frozen=True)
class Subject:
    """What a decision acts on: a paper's summary, or its note (reviewed on its own, once the summary is approved)."""

    kind: str
    noun: str
    as_seen: Callable[[Store, str, str, Seen], Record]  # the record, if what the page showed is still current
    approve: Callable[[Store, str, list[Record]], Done]
    state: Callable[[Record], ReviewState]
    undo: Callable[[Store, str, str, ReviewState, ReviewState], Done]


SUMMARY = Subject("summary", "paper", _summary_as_seen, review.approve_records, ReviewState.of, review.undo_decision)
NOTE = Subject("note", "note", _note_as_seen, notes.approve_notes, ReviewState.of_note, notes.undo_note_decision)


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
        def work() -> str:
            venue_id, paper = self.split(data.get("ref"))
            seen = Seen.of(data)
            if data.get("action") == "regen":
                return self._regen(venue_id, paper, seen, data)
            with self.locked(venue_id):
                return self._act(venue_id, paper, seen, data)

        return answer(work)

    def _act(self, venue_id: str, paper: str, seen: Seen, data: dict[str, Any]) -> str:
        action = data.get("action")
        record = review.require_version(self.store, venue_id, paper, seen.version, status=seen.status)
        if action == "approve":
            review.approve_records(self.store, venue_id, review.approvable(self.store, venue_id, [paper]))
            self.decided("approved", record)
            return f"approved {venue_id}/{paper} (version {seen.version})"
        if action == "reject":
            review.reject(self.settings, self.store, venue_id, paper, reason=reason_of(data))
            self.decided("rejected", record)
            return f"rejected {venue_id}/{paper}"
        if action == "edit":
            return self._edit(venue_id, paper, data)
        raise UsageError(f"unknown action {str(action)[:20]!r}")

    def decided(self, action: str, before: Record, subject: Subject = SUMMARY) -> None:
        """Remember a decision on ``before`` (the record as it was, now saved changed), for "just decided" and undo."""
        after = self.store.load(before.venue, before.id)
        self._remember(action, before, subject.state(before), subject.state(after), subject)

    def _remember(self, action: str, record: Record, before: ReviewState, after: ReviewState, subject: Subject) -> None:
        ref = f"{record.venue}/{record.id}"
        self.decisions.add(Decision(ref, action, record.title, before, after, subject.kind))

    def undo(self, ref: object, kind: object = None) -> Outcome:
        """Undo the newest decision (on ``ref``, on its ``kind``: summary or note, when given), if the paper is still
        as the decision left it."""
        decision = self.decisions.latest(str(ref) if ref else None, str(kind) if kind else None)
        if decision is None:
            return Outcome(400, {"error": "nothing to undo: no decision of this desk's session is left to undo"})
        subject = NOTE if decision.kind == NOTE.kind else SUMMARY
        try:
            venue_id, paper = self.split(decision.ref)
            with self.locked(venue_id):
                done = subject.undo(self.store, venue_id, paper, decision.before, decision.after)
        except ChangedSince as exc:
            self.decisions.drop(decision)  # the paper moved on: this decision can no longer be put back
            return Outcome(409, {"error": str(exc)})
        except LockedError as exc:
            return Outcome(423, {"error": str(exc)})
        except SummarizerError as exc:
            return Outcome(400, {"error": str(exc)})
        self.decisions.drop(decision)
        return Outcome(200, {"message": done.lines[0], "paper": decision.page})

    def _regen(self, venue_id: str, paper: str, seen: Seen, data: dict[str, Any]) -> str:
        feedback = feedback_of(data)
        record = self.regenerate_unlocked(
            SUMMARIES,
            venue_id,
            paper,
            feedback,
            as_seen=lambda: SUMMARY.as_seen(self.store, venue_id, paper, seen),
        )
        now = record.summaries.current
        return f"{venue_id}/{paper}: version {now.number if now else '?'} written, waiting for review"

    def regenerate_unlocked(
        self, kind: Regeneration, venue_id: str, paper: str, feedback: str | None, *, as_seen: Callable[[], Record]
    ) -> Record:
        """``kind``'s regeneration with no lock held while the model writes (a click must not block every command
        meanwhile); the lock is taken to save, if the page's version is still current (``as_seen`` raises when it
        is not: a stale page pays for no call, checked before asking and again before saving); the record saved."""
        record = as_seen()
        try:
            fresh = kind.ask(self.settings, record, feedback=feedback)
        except LLMError as exc:
            with self.locked(venue_id):
                kind.fail(self.store, venue_id, paper, exc)
            raise
        with self.locked(venue_id):
            record = as_seen()
            kind.save(self.settings, self.store, record, fresh)
        return record

    def _edit(self, venue_id: str, paper: str, data: dict[str, Any]) -> str:
        summary = str(data.get("summary") or "")
        tags = [t for t in (clean_line(t) for t in TAG_SEPARATORS.split(str(data.get("tags") or ""))) if t]
        field = str(data.get("field") or "")
        try:  # the rules `review edit` applies, checked first so every problem shows beside the form
            check_human_summary(summary, tags, field, self.settings)
        except TextRejected as exc:
            raise Problems(exc.problems) from None
        before = self.store.load(venue_id, paper).summaries.current
        review.edit(self.settings, self.store, venue_id, paper, summary=summary, tags=tags, field=field)
        after = self.store.load(venue_id, paper).summaries.current
        if before is not None and after is not None and after.number == before.number:
            return "nothing changed"
        return f"saved {venue_id}/{paper} version {after.number if after else '?'} (human), waiting for review"

    def approve_many(self, items: list[Any], subject: Subject = SUMMARY) -> Outcome:
        """All or nothing: every venue locked and every paper checked, then every approval saved in one batch."""

        def work() -> str:
            wanted = self._wanted(items)
            # A store of its own: the batch must not take in what other requests save meanwhile.
            store = Store(self.settings.outputs_dir)
            with contextlib.ExitStack() as held:
                for venue_id in wanted:
                    held.enter_context(self.locked(venue_id))
                checked = {
                    venue_id: [subject.as_seen(store, venue_id, p, seen) for p, seen in papers]
                    for venue_id, papers in wanted.items()
                }
                records = [r for venue_records in checked.values() for r in venue_records]
                before = {id(r): subject.state(r) for r in records}
                with store.all_or_nothing():
                    for venue_id, venue_records in checked.items():
                        subject.approve(store, venue_id, venue_records)
                for record in records:  # approved as saved
                    self._remember("approved", record, before[id(record)], subject.state(record), subject)
            return f"{plural(len(records), subject.noun)} approved"

        return answer(work, prefix="nothing approved: ")

    def _wanted(self, items: list[Any]) -> dict[str, list[tuple[str, Seen]]]:
        if not isinstance(items, list) or not items:
            raise UsageError("no papers named")
        wanted: dict[str, list[tuple[str, Seen]]] = {}
        for item in items:
            venue_id, paper = self.split(item.get("ref") if isinstance(item, dict) else None)
            wanted.setdefault(venue_id, []).append((paper, Seen.of(item)))
        return wanted


def reason_of(data: dict[str, Any]) -> str:
    """The reviewer's reason for a rejection, from the page (its ``note`` field): required, kept in the record."""
    reason = clean_line(str(data.get("note") or ""))
    if not reason:
        raise Problems(["say why: the reason stays in the record for the next editor"])
    return reason


def feedback_of(data: dict[str, Any]) -> str | None:
    """A regenerate's feedback from the page (审稿意见), bounded as on the command line."""
    feedback = clean_line(str(data.get("feedback") or "")) or None
    if feedback is not None and len(feedback) > limits.REVIEW_NOTE:
        raise Problems([f"the feedback is {len(feedback)} characters (at most {limits.REVIEW_NOTE})"])
    return feedback
