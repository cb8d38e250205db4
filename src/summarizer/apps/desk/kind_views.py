"""The desk's pages for one kind of reviewed text (summaries, notes): its queue, an item's page, the way to
the next item after a decision, its actions and its bulk approve.  Each kind says what differs (its rows,
its warnings, its versions, its page's own parts); the steps are written once here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from summarizer.core.config import Settings
from summarizer.core.errors import NoInput
from summarizer.core.records import Record

from .decisions import KEEP
from .desk import Desk, Outcome
from .queue import MAX_BULK_BODY, Filters, QueueKind, QueueOrder, Row, neighbours, next_location, queue_context
from .security import MAX_BODY
from .web import answered, approve_items, int_param, pick_versions, requested_record


class KindViews(ABC):
    """The routes of one kind; a subclass names the kind and fills in its parts."""

    KIND: QueueKind
    WARNING_CACHE: Callable[[Settings], Any]  # each item's warnings, kept until its record changes

    def __init__(self, desk: Desk, templates: Jinja2Templates):
        self.desk = desk
        self.settings = desk.settings
        self.templates = templates
        self.order = QueueOrder()
        self.cache = self.WARNING_CACHE(desk.settings)

    # -- what each kind says ----------------------------------------------------------------------
    @abstractmethod
    def load_rows(self) -> list[Row]:
        """Every item of the desk's venues, as the queue lists them."""

    @abstractmethod
    def warning_choices(self) -> list[tuple[str, str]]:
        """The queue's warning filter: (value, label) pairs."""

    @abstractmethod
    def versions(self, record: Record) -> Sequence[Any]:
        """The record's versions of this kind, oldest first."""

    @abstractmethod
    def sections(self, record: Record) -> list[Any]:
        """The paper's text shown beside the item (raises NoInput when there is none)."""

    @abstractmethod
    def own_context(self, record: Record, row: Row | None) -> dict[str, Any]:
        """What only this kind's page shows."""

    @abstractmethod
    def text_diff(self, older: Any, newer: Any) -> list[Any]:
        """Two versions compared, as the page draws it."""

    @abstractmethod
    def perform(self, data: dict[str, Any]) -> Outcome:
        """A decision posted from the item's page."""

    @abstractmethod
    def approve_many(self, items: list[Any]) -> Outcome:
        """The queue's bulk approve."""

    def approved_version(self, record: Record) -> int | None:
        """The version a diff compares the newest against by default (None: the previous one)."""
        return None

    # -- the steps, written once ------------------------------------------------------------------
    def routes(self) -> list[Route]:
        queue, item = self.KIND.queue_path, self.KIND.item_path
        return [
            Route(queue, self.queue),
            Route(item + "{venue}/{paper}", self.item),
            Route(item + "{venue}/{paper}/next", self.next_item),
            Route(self.KIND.action_api, self.action, methods=["POST"]),
            Route(self.KIND.bulk_api, self.bulk_approve, methods=["POST"]),
        ]

    def rows(self) -> list[Row]:
        """Every item in the session's order."""
        return self.order.arrange(self.load_rows())

    async def queue(self, request: Request) -> Response:
        filters = Filters.of(request.query_params)
        rows = await run_in_threadpool(self.rows)
        page = int_param(request.query_params.get("page"), 1)
        choices = self.warning_choices()
        context = queue_context(self.KIND, self.settings, self.desk, filters, rows, page, choices)
        return self.templates.TemplateResponse(request, "queue.html", context)

    async def item(self, request: Request) -> Response:
        record = await requested_record(self.desk, request)
        if isinstance(record, Response):
            return record
        rows = await run_in_threadpool(self.rows)
        context = await run_in_threadpool(self.context, request, record, rows)
        return self.templates.TemplateResponse(request, self.KIND.template, context)

    async def next_item(self, request: Request) -> Response:
        """After a decision: the next item the queue's filters keep, in the session's order, else the queue."""
        ref = f"{request.path_params['venue']}/{request.path_params['paper']}"
        rows = await run_in_threadpool(self.rows)
        return RedirectResponse(next_location(self.KIND, rows, ref, Filters.of(request.query_params)), status_code=303)

    def context(self, request: Request, record: Record, rows: list[Row]) -> dict[str, Any]:
        ref = f"{record.venue}/{record.id}"
        row = next((r for r in rows if r.ref == ref), None)
        filters = Filters.of(request.query_params)
        decided = frozenset(d.ref for d in self.desk.decisions.recent(KEEP) if d.kind == self.KIND.kind)
        prev, next_ = neighbours(rows, ref, filters, decided)
        try:
            sections, sections_note = self.sections(record), ""
        except NoInput as exc:
            sections, sections_note = [], str(exc)
        versions = list(self.versions(record))
        a, b = pick_versions(request, [v.number for v in versions], self.approved_version(record))
        by_number = {v.number: v for v in versions}
        va, vb = by_number.get(a) if a else None, by_number.get(b) if b else None
        return {
            "kind": self.KIND,
            "record": record,
            "ref": ref,
            "filter_query": filters.query(),
            "decided": self.desk.decisions.recent(1),
            "current": versions[-1] if versions else None,
            "sections": sections,
            "sections_note": sections_note,
            "prev": prev,
            "next": next_,
            "versions": list(reversed(versions)),
            "diff_a": a,
            "diff_b": b,
            "diff": self.text_diff(va, vb) if va and vb else [],
            "feedback": [v for v in versions if v.feedback],
            **self.own_context(record, row),
        }

    async def action(self, request: Request) -> Response:
        return await answered(request, MAX_BODY, "nothing saved", self.KIND.too_long, self.perform)

    async def bulk_approve(self, request: Request) -> Response:
        approve: Callable[[dict[str, Any]], Outcome] = approve_items(self.approve_many)
        advice = f"approve fewer {self.KIND.noun}s at a time"
        return await answered(request, MAX_BULK_BODY, "nothing approved", advice, approve)
