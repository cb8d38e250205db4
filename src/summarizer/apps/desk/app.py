"""The review desk's ASGI app: the queue (in pages, in the session's order), the paper view, the preview,
the actions and their undo; the notes' queue, pages and actions (``note_routes``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from summarizer.core.config import Settings
from summarizer.core.errors import NoInput, SummarizerError
from summarizer.core.paper_text import paper_sections
from summarizer.review.note_actions import note_status_label
from summarizer.site import MATHJAX_CONFIG, draft_field_page

from .actions import Desk
from .decisions import KEEP
from .diff import word_diff
from .highlight import flagged_tokens, mark_flagged
from .note_page import to_html
from .note_routes import NoteViews
from .queue import (
    MAX_BULK_BODY,
    Filters,
    QueueKind,
    QueueOrder,
    Row,
    WarningCache,
    load_rows,
    neighbours,
    next_location,
    queue_context,
    warning_choices,
)
from .security import MAX_BODY
from .web import answered, approve_items, int_param, pick_versions, requested_record, web_url

HERE = Path(__file__).resolve().parent
MATHJAX_CDN = "https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"
# The site's config subscribes to Material's document$; the desk has no Material, MathJax typesets on load.
DOCUMENT_SHIM = "window.document$ = window.document$ || { subscribe: function () {} };\n"


SUMMARIES = QueueKind("summary", "/", "/paper/", "/api/approve-many", "paper")


class DeskApp:
    def __init__(self, settings: Settings, venue_ids: list[str], mathjax_dir: Path | None):
        self.desk = Desk(settings, venue_ids)
        self.settings = settings
        self.cache = WarningCache(settings)
        self.order = QueueOrder()
        self.mathjax_src = "/mathjax/tex-mml-chtml.js" if mathjax_dir else MATHJAX_CDN
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals["mathjax_src"] = self.mathjax_src
        self.templates.env.filters["web_url"] = web_url
        self.notes = NoteViews(self.desk, self.templates)

    def rows(self) -> list[Row]:
        """Every paper with a summary, in the session's order."""
        return self.order.arrange(load_rows(self.settings, self.desk.store, self.desk.venue_ids, self.cache))

    async def queue(self, request: Request) -> Response:
        filters = Filters.of(request.query_params)
        rows = await run_in_threadpool(self.rows)
        page = int_param(request.query_params.get("page"), 1)
        context = queue_context(SUMMARIES, self.settings, self.desk, filters, rows, page, warning_choices())
        return self.templates.TemplateResponse(request, "queue.html", context)

    async def paper(self, request: Request) -> Response:
        record = await requested_record(self.desk, request)
        if isinstance(record, Response):
            return record
        rows = await run_in_threadpool(self.rows)
        return self.templates.TemplateResponse(request, "paper.html", self._paper_context(request, record, rows))

    async def next_paper(self, request: Request) -> Response:
        """After a decision: the next paper the queue's filters keep, in the session's order, else the queue."""
        ref = f"{request.path_params['venue']}/{request.path_params['paper']}"
        rows = await run_in_threadpool(self.rows)
        return RedirectResponse(next_location(SUMMARIES, rows, ref, Filters.of(request.query_params)), status_code=303)

    def _paper_context(self, request: Request, record: Any, rows: list[Row]) -> dict[str, Any]:
        ref = f"{record.venue}/{record.id}"
        row = next((r for r in rows if r.ref == ref), None)
        filters = Filters.of(request.query_params)
        decided = frozenset(d.ref for d in self.desk.decisions.recent(KEEP) if d.kind == "summary")
        prev, next_ = neighbours(rows, ref, filters, decided)
        try:
            sections = paper_sections(self.settings, record)
            sections_note = ""
        except NoInput as exc:
            sections, sections_note = [], str(exc)
        numbers = [v.number for v in record.versions]
        a, b = pick_versions(request, numbers)
        va, vb = record.version(a) if a else None, record.version(b) if b else None
        current = record.current
        warnings = row.warnings if row else []
        return {
            "record": record,
            "ref": ref,
            "filter_query": filters.query(),
            "summary_parts": mark_flagged(current.summary, flagged_tokens(warnings)) if current else [],
            "decided": self.desk.decisions.recent(1),
            "status": row.status if row else "unsummarized",
            "current": current,
            "field": self.settings.field(current.field) if current else None,
            "fields": self.settings.fields,
            "warnings": warnings,
            "sections": sections,
            "sections_note": sections_note,
            "prev": prev,
            "next": next_,
            "versions": list(reversed(record.versions)),
            "diff_a": a,
            "diff_b": b,
            "diff": word_diff(va.summary, vb.summary) if va and vb else [],
            "feedback": [v for v in record.versions if v.feedback],
            "note_status": note_status_label(record) if record.notes.current else None,
        }

    async def preview(self, request: Request) -> Response:
        venue, field = request.path_params["venue"], request.path_params["field"]
        if venue not in self.desk.venue_ids or self.settings.field(field) is None:  # the desk's venues only
            return PlainTextResponse("no such venue or field", status_code=404)
        html = await run_in_threadpool(self._preview_html, venue, field)
        context = {"venue": venue, "field": field, "html": html}
        return self.templates.TemplateResponse(request, "preview.html", context)

    def _preview_html(self, venue_id: str, field_id: str) -> str | None:
        """The field page as `build --drafts` writes it (same templates), turned into HTML as MkDocs would."""
        page = draft_field_page(self.settings, self.desk.store, venue_id, field_id)
        if page is None:
            return None
        page = re.sub(r"\A---\n.*?\n---\n", "", page, flags=re.DOTALL)
        page = re.sub(r"\(\.\./\.\./([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)/index\.md\)", r"(/preview/\1/\2)", page)
        return to_html(page)  # as the site shows it: the site's Markdown, then its sanitiser

    async def action(self, request: Request) -> Response:
        return await answered(request, MAX_BODY, "nothing saved", "shorten the text", self.desk.perform)

    async def approve_many(self, request: Request) -> Response:
        approve = approve_items(self.desk.approve_many)
        return await answered(request, MAX_BULK_BODY, "nothing approved", "approve fewer papers at a time", approve)

    async def undo(self, request: Request) -> Response:
        return await answered(
            request, MAX_BODY, "nothing undone", "undo one decision at a time",
            lambda data: self.desk.undo(data.get("ref"), data.get("kind")),
        )  # fmt: skip

    async def mathjax_config(self, request: Request) -> Response:
        text = DOCUMENT_SHIM + MATHJAX_CONFIG.read_text(encoding="utf-8")
        return Response(text, media_type="application/javascript")


def create_app(settings: Settings, venue_ids: list[str], *, mathjax_dir: Path | None) -> Starlette:
    desk = DeskApp(settings, venue_ids, mathjax_dir)
    routes = [
        Route("/", desk.queue),
        Route("/paper/{venue}/{paper}", desk.paper),
        Route("/paper/{venue}/{paper}/next", desk.next_paper),
        Route("/preview/{venue}/{field}", desk.preview),
        Route("/api/action", desk.action, methods=["POST"]),
        Route("/api/approve-many", desk.approve_many, methods=["POST"]),
        Route("/api/undo", desk.undo, methods=["POST"]),
        *desk.notes.routes(),
        Route("/site/mathjax.js", desk.mathjax_config),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    if mathjax_dir is not None:
        routes.append(Mount("/mathjax", StaticFiles(directory=str(mathjax_dir)), name="mathjax"))
    return Starlette(routes=routes, exception_handlers={SummarizerError: _error_page})


async def _error_page(request: Request, exc: Exception) -> Response:
    """A broken record or config: the one-line message the CLI would print, as text."""
    return PlainTextResponse(f"error: {exc}", status_code=500)
