"""The desk's actions: the CLI's review functions, under the venue lock, on the version the page showed."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from summarizer.core import limits, locks
from summarizer.core.config import Settings
from summarizer.core.errors import ChangedSince, LockedError, Problems, SummarizerError, SummaryRejected, UsageError
from summarizer.core.rules import check_human_summary
from summarizer.core.sanitize import clean_line
from summarizer.core.store import Store
from summarizer.summarize.online import regenerate

from .. import actions as review
from ..actions import TAG_SEPARATORS

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
            with self.locked(venue_id):
                message = self._act(venue_id, paper, data)
        except Problems as exc:
            return Outcome(422, {"error": "not saved: fix what is marked", "problems": exc.problems})
        except ChangedSince as exc:
            return Outcome(409, {"error": str(exc)})
        except LockedError as exc:
            return Outcome(423, {"error": str(exc)})
        except SummarizerError as exc:
            return Outcome(400, {"error": str(exc)})
        return Outcome(200, {"message": message})

    def _act(self, venue_id: str, paper: str, data: dict[str, Any]) -> str:
        action = data.get("action")
        version = data.get("version")
        expected = version if isinstance(version, int) else None
        review.require_version(self.store, venue_id, paper, expected, status=str(data.get("status") or "") or None)
        if action == "approve":
            review.approve_records(self.store, venue_id, review.approvable(self.store, venue_id, [paper]))
            return f"approved {venue_id}/{paper} (version {expected})"
        if action == "reject":
            note = clean_line(str(data.get("note") or ""))
            if not note:
                raise Problems(["say why in a note: it stays in the record for the next editor"])
            review.reject(self.settings, self.store, venue_id, paper, note=note)
            return f"rejected {venue_id}/{paper}"
        if action == "edit":
            return self._edit(venue_id, paper, data)
        if action == "regen":
            feedback = clean_line(str(data.get("feedback") or "")) or None
            if feedback is not None and len(feedback) > limits.REVIEW_NOTE:
                raise Problems([f"the feedback is {len(feedback)} characters (at most {limits.REVIEW_NOTE})"])
            regenerate(self.settings, self.store, venue_id, paper, feedback=feedback)
            now = self.store.load(venue_id, paper).current
            return f"{venue_id}/{paper}: version {now.number if now else '?'} written, waiting for review"
        raise UsageError(f"unknown action {str(action)[:20]!r}")

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
        """All or nothing: every venue locked and every paper checked before anything is saved."""
        try:
            wanted: dict[str, list[tuple[str, int | None, str | None]]] = {}
            for item in items if isinstance(items, list) else []:
                venue_id, paper = self.split(item.get("ref") if isinstance(item, dict) else None)
                version = item.get("version")
                status = item.get("status")
                wanted.setdefault(venue_id, []).append(
                    (paper, version if isinstance(version, int) else None, str(status) if status else None)
                )
            with contextlib.ExitStack() as locks:
                for venue_id in wanted:
                    locks.enter_context(self.locked(venue_id))
                checked = {
                    venue_id: [review.require_version(self.store, venue_id, p, v, status=s) for p, v, s in papers]
                    for venue_id, papers in wanted.items()
                }
                for venue_id, records in checked.items():
                    review.approve_records(self.store, venue_id, records)
        except ChangedSince as exc:
            return Outcome(409, {"error": f"nothing approved: {exc}"})
        except LockedError as exc:
            return Outcome(423, {"error": f"nothing approved: {exc}"})
        except SummarizerError as exc:
            return Outcome(400, {"error": f"nothing approved: {exc}"})
        total = sum(len(r) for r in checked.values())
        return Outcome(200, {"message": f"{total} papers approved"})
