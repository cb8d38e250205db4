"""The review desk's ASGI app: the queue (in pages, in the session's order), the paper view, the preview,
the actions and their undo; the notes' queue, pages and actions (``note_routes``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from summarizer.core.config import Settings
from summarizer.core.errors import SummarizerError
from summarizer.core.paper_text import paper_sections
from summarizer.core.records import Record, Version
from summarizer.review.note_actions import note_status_label
from summarizer.site import MATHJAX_CONFIG, draft_field_page

from .desk import Desk, Outcome
from .diff import word_diff
from .highlight import flagged_tokens, mark_flagged
from .kind_views import KindViews
from .note_page import to_html
from .note_routes import NoteViews
from .queue import (
    QueueKind,
    Row,
    WarningCache,
    load_rows,
    warning_choices,
)
from .security import MAX_BODY
from .web import answered, web_url

HERE = Path(__file__).resolve().parent
MATHJAX_CDN = "https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"
# The site's config subscribes to Material's document$; the desk has no Material, MathJax typesets on load.
DOCUMENT_SHIM = "window.document$ = window.document$ || { subscribe: function () {} };\n"


class SummaryViews(KindViews):
    """The desk's summaries: the queue at ``/``, a paper's page, its decisions."""

    KIND = QueueKind(
        "summary", "/", "/paper/", "/api/approve-many", "paper", "paper.html", "/api/action", "shorten the text"
    )
    WARNING_CACHE = WarningCache

    def load_rows(self) -> list[Row]:
        return load_rows(self.settings, self.desk.store, self.desk.venue_ids, self.cache)

    def warning_choices(self) -> list[tuple[str, str]]:
        return warning_choices()

    def versions(self, record: Record) -> list[Version]:
        return record.summaries.versions

    def sections(self, record: Record) -> list[Any]:
        return paper_sections(self.settings, record)

    def text_diff(self, older: Version, newer: Version) -> list[Any]:
        return word_diff(older.summary, newer.summary)

    def own_context(self, record: Record, row: Row | None) -> dict[str, Any]:
        current = record.summaries.current
        warnings = row.warnings if row else []
        return {
            "summary_parts": mark_flagged(current.summary, flagged_tokens(warnings)) if current else [],
            "status": row.status if row else "unsummarized",
            "field": self.settings.field(current.field) if current else None,
            "fields": self.settings.fields,
            "warnings": warnings,
            "note_status": note_status_label(record) if record.notes.current else None,
        }

    def perform(self, data: dict[str, Any]) -> Outcome:
        return self.desk.perform(data)

    def approve_many(self, items: list[Any]) -> Outcome:
        return self.desk.approve_many(items)


class DeskApp:
    def __init__(self, settings: Settings, venue_ids: list[str], mathjax_dir: Path | None):
        self.desk = Desk(settings, venue_ids)
        self.settings = settings
        self.mathjax_src = "/mathjax/tex-mml-chtml.js" if mathjax_dir else MATHJAX_CDN
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.templates.env.globals["mathjax_src"] = self.mathjax_src
        self.templates.env.filters["web_url"] = web_url
        self.summaries = SummaryViews(self.desk, self.templates)
        self.notes = NoteViews(self.desk, self.templates)

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
        *desk.summaries.routes(),
        Route("/preview/{venue}/{field}", desk.preview),
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
