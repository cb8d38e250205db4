"""The desk's notes: their queue (``/notes``), a note's page beside the paper's text (``/note/VENUE/ID``),
and the actions on notes (``/api/note-action``, ``/api/note-approve-many``).

Built as the summaries' pages are (``app``): the same templates, filters, session order, paging,
just-decided list, undo, body limits and gate; the work is ``note_desk``'s.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from summarizer.core.errors import NoInput
from summarizer.core.note_flags import current_note_warnings
from summarizer.core.paper_text import note_sections
from summarizer.core.records import Record
from summarizer.review.actions import status_label
from summarizer.review.note_actions import note_status_label

from .actions import Desk
from .decisions import KEEP
from .diff import line_diff
from .note_desk import NoteDesk
from .note_page import note_page
from .note_queue import NoteWarningCache, has_note_to_review, load_note_rows, note_warning_choices
from .queue import (
    MAX_BULK_BODY,
    Filters,
    QueueKind,
    QueueOrder,
    Row,
    neighbours,
    next_location,
    queue_context,
)
from .security import MAX_BODY
from .web import answered, approve_items, int_param, pick_versions, requested_record

NOTES = QueueKind("note", "/notes", "/note/", "/api/note-approve-many", "note")


class NoteViews:
    def __init__(self, desk: Desk, templates: Jinja2Templates):
        self.desk = desk
        self.settings = desk.settings
        self.notes = NoteDesk(desk)
        self.templates = templates
        self.cache = NoteWarningCache(desk.settings)
        self.order = QueueOrder()

    def routes(self) -> list[Route]:
        return [
            Route("/notes", self.queue),
            Route("/note/{venue}/{paper}", self.note),
            Route("/note/{venue}/{paper}/next", self.next_note),
            Route("/api/note-action", self.action, methods=["POST"]),
            Route("/api/note-approve-many", self.approve_many, methods=["POST"]),
        ]

    def rows(self) -> list[Row]:
        """Every paper with a note to review, in the session's order."""
        return self.order.arrange(load_note_rows(self.desk.store, self.desk.venue_ids, self.cache))

    async def queue(self, request: Request) -> Response:
        filters = Filters.of(request.query_params)
        rows = await run_in_threadpool(self.rows)
        page = int_param(request.query_params.get("page"), 1)
        context = queue_context(NOTES, self.settings, self.desk, filters, rows, page, note_warning_choices())
        return self.templates.TemplateResponse(request, "queue.html", context)

    async def note(self, request: Request) -> Response:
        record = await requested_record(self.desk, request)
        if isinstance(record, Response):
            return record
        rows = await run_in_threadpool(self.rows)
        context = await run_in_threadpool(self._note_context, request, record, rows)
        return self.templates.TemplateResponse(request, "note.html", context)

    async def next_note(self, request: Request) -> Response:
        """After a decision: the next note the queue's filters keep, in the session's order, else the queue."""
        ref = f"{request.path_params['venue']}/{request.path_params['paper']}"
        rows = await run_in_threadpool(self.rows)
        return RedirectResponse(next_location(NOTES, rows, ref, Filters.of(request.query_params)), status_code=303)

    def _note_context(self, request: Request, record: Record, rows: list[Row]) -> dict[str, Any]:
        ref = f"{record.venue}/{record.id}"
        row = next((r for r in rows if r.ref == ref), None)
        filters = Filters.of(request.query_params)
        decided = frozenset(d.ref for d in self.desk.decisions.recent(KEEP) if d.kind == "note")
        prev, next_ = neighbours(rows, ref, filters, decided)
        try:
            sections, sections_note = note_sections(self.settings, record), ""
        except NoInput as exc:
            sections, sections_note = [], str(exc)
        notes = record.notes
        current = notes.current
        warnings = row.warnings if row else current_note_warnings(self.settings, record)
        numbers = [v.number for v in notes.versions]
        a, b = pick_versions(request, numbers, notes.approved_version)
        va, vb = (notes.version(a) if a else None), (notes.version(b) if b else None)
        return {
            "record": record,
            "ref": ref,
            "filter_query": filters.query(),
            "decided": self.desk.decisions.recent(1),
            "status": note_status_label(record),
            "summary_status": status_label(record),
            "reviewable": has_note_to_review(record),
            "current": current,
            "note": note_page(self.settings, record, current, warnings) if current else None,
            "sections": sections,
            "sections_note": sections_note,
            "prev": prev,
            "next": next_,
            "versions": list(reversed(notes.versions)),
            "diff_a": a,
            "diff_b": b,
            "diff": line_diff(va.markdown, vb.markdown) if va and vb else [],
            "feedback": [v for v in notes.versions if v.feedback],
        }

    async def action(self, request: Request) -> Response:
        return await answered(request, MAX_BODY, "nothing saved", "shorten the note", self.notes.perform)

    async def approve_many(self, request: Request) -> Response:
        approve = approve_items(self.notes.approve_many)
        return await answered(request, MAX_BULK_BODY, "nothing approved", "approve fewer notes at a time", approve)
