"""The desk's actions on a paper's note: approve, reject, edit its Markdown, regenerate it with feedback.

The same rules as for summaries (``actions``): each action carries the note version and status the
page showed and is refused when the note changed since; the venue's lock is held only to check and
save, never while the model writes; a note is reviewed only once its paper's summary is approved.
The work is ``review.note_actions`` (the CLI's ``review notes …``) and ``summarize.notes``'s steps
of ``regen --notes``.
"""

from __future__ import annotations

from typing import Any

from summarizer.core.errors import Problems, TextRejected, UsageError
from summarizer.core.note_rules import check_human_note
from summarizer.core.records import Record
from summarizer.review import note_actions as notes
from summarizer.summarize.notes import NOTES

from .desk import NOTE, Desk, Outcome, Seen, answer, feedback_of, reason_of


class NoteDesk:
    """What the keys of a note's page do; ``desk`` holds the store, the locks and the session's decisions."""

    def __init__(self, desk: Desk):
        self.desk = desk

    def perform(self, data: dict[str, Any]) -> Outcome:
        def work() -> str:
            venue_id, paper = self.desk.split(data.get("ref"))
            seen = Seen.of(data)
            if data.get("action") == "regen":
                return self._regen(venue_id, paper, seen, data)
            with self.desk.locked(venue_id):
                record = NOTE.as_seen(self.desk.store, venue_id, paper, seen)
                return self._act(record, data)

        return answer(work)

    def approve_many(self, items: list[Any]) -> Outcome:
        return self.desk.approve_many(items, NOTE)

    def _act(self, record: Record, data: dict[str, Any]) -> str:
        action = data.get("action")
        store, ref = self.desk.store, f"{record.venue}/{record.id}"
        if action == "approve":
            notes.approve_notes(store, record.venue, notes.approvable_notes(store, record.venue, [record.id]))
            self.desk.decided("approved", record, NOTE)
            return f"approved the note of {ref} (version {data.get('version')})"
        if action == "reject":
            notes.reject_note(store, record.venue, record.id, reason=reason_of(data))
            self.desk.decided("rejected", record, NOTE)
            return f"rejected the note of {ref}"
        if action == "edit":
            return self._edit(record, data)
        raise UsageError(f"unknown action {str(action)[:20]!r}")

    def _edit(self, record: Record, data: dict[str, Any]) -> str:
        """The page's Markdown as a new note version by a human (the rules of `review notes edit`)."""
        markdown = str(data.get("markdown") or "")
        current = record.notes.current
        try:  # checked first, so every problem shows beside the form and the text stays there
            check_human_note(markdown, current.header if current else None)
        except TextRejected as exc:
            raise Problems(exc.problems) from None
        done = notes.save_note_edit(self.desk.store, record, markdown)
        if not done.changed:
            return "nothing changed"
        now = record.notes.current
        number = now.number if now else "?"
        return f"saved the note of {record.venue}/{record.id} version {number} (human), waiting for review"

    def _regen(self, venue_id: str, paper: str, seen: Seen, data: dict[str, Any]) -> str:
        feedback, desk = feedback_of(data), self.desk
        as_seen = lambda: NOTE.as_seen(desk.store, venue_id, paper, seen)  # noqa: E731
        record = desk.regenerate_unlocked(NOTES, venue_id, paper, feedback, as_seen=as_seen)
        now = record.notes.current
        return f"{venue_id}/{paper}: note version {now.number if now else '?'} written, waiting for review"
