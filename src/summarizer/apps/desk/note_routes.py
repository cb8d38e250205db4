"""The desk's notes: their queue (``/notes``), a note's page beside the paper's text (``/note/VENUE/ID``),
and the actions on notes (``/api/note-action``, ``/api/note-approve-many``).

The steps are the summaries' (``kind_views``): the same templates, filters, session order, paging,
just-decided list, undo, body limits and gate; the work is ``note_desk``'s.
"""

from __future__ import annotations

import functools
from typing import Any

from summarizer.core.note_flags import current_note_warnings
from summarizer.core.paper_text import note_sections
from summarizer.core.records import NoteVersion, Record
from summarizer.review.actions import status_label
from summarizer.review.note_actions import note_status_label

from .desk import Outcome
from .diff import line_diff
from .kind_views import KindViews
from .note_desk import NoteDesk
from .note_page import note_page
from .note_queue import NoteWarningCache, has_note_to_review, load_note_rows, note_warning_choices
from .queue import QueueKind, Row


class NoteViews(KindViews):
    """The desk's notes: their queue at ``/notes``, a note's page, its decisions."""

    KIND = QueueKind(
        "note",
        "/notes",
        "/note/",
        "/api/note-approve-many",
        "note",
        "note.html",
        "/api/note-action",
        "shorten the note",
    )
    WARNING_CACHE = NoteWarningCache

    @functools.cached_property
    def notes(self) -> NoteDesk:
        return NoteDesk(self.desk)

    def load_rows(self) -> list[Row]:
        return load_note_rows(self.desk.store, self.desk.venue_ids, self.cache)

    def warning_choices(self) -> list[tuple[str, str]]:
        return note_warning_choices()

    def versions(self, record: Record) -> list[NoteVersion]:
        return record.notes.versions

    def approved_version(self, record: Record) -> int | None:
        return record.notes.approved_version

    def sections(self, record: Record) -> list[Any]:
        return note_sections(self.settings, record)

    def text_diff(self, older: NoteVersion, newer: NoteVersion) -> list[Any]:
        return line_diff(older.markdown, newer.markdown)

    def own_context(self, record: Record, row: Row | None) -> dict[str, Any]:
        current = record.notes.current
        warnings = row.warnings if row else current_note_warnings(self.settings, record)
        return {
            "status": note_status_label(record),
            "summary_status": status_label(record),
            "reviewable": has_note_to_review(record),
            "note": note_page(self.settings, record, current, warnings) if current else None,
        }

    def perform(self, data: dict[str, Any]) -> Outcome:
        return self.notes.perform(data)

    def approve_many(self, items: list[Any]) -> Outcome:
        return self.notes.approve_many(items)
