"""The desk's queue: every paper that needs a decision, its warnings, filters, order and pages.

The order is the session's: papers are ranked most suspicious first when the desk first lists them and keep
that place (``QueueOrder``), so a decision or an edit never moves a paper, and `k` finds the one just decided.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from summarizer.core.config import Settings
from summarizer.core.flags import (
    KINDS,
    current_warnings,
    shown_warnings,
    suspicion_score,
    venue_duplicates,
    warning_kind,
)
from summarizer.core.records import Record
from summarizer.core.store import ParsedRecords, Store
from summarizer.review.actions import status_label

from .desk import Desk

QUEUE_STATUSES = ("draft", "approved*")
STATUS_FILTERS = ("review", "draft", "approved*", "approved", "rejected", "all")
PAGE_SIZE = 200  # rows on a page of the queue; the pages go on through any number of papers
START_CHARS = 90  # the start of the summary a row shows, to triage from
# A bulk approve names up to a page of rows: a page of the longest refs (193 characters) fits.
MAX_BULK_BODY = PAGE_SIZE * 300


@dataclass
class Row:
    record: Record
    status: str
    warnings: list[str]
    score: int

    @property
    def ref(self) -> str:
        return f"{self.record.venue}/{self.record.id}"

    @property
    def kinds(self) -> list[str]:
        return sorted({warning_kind(w) for w in self.warnings})

    @property
    def version(self) -> int | None:
        return self.record.summaries.current.number if self.record.summaries.current else None

    @property
    def start(self) -> str:
        """The start of the current summary (its first START_CHARS characters)."""
        summary = self.record.summaries.current.summary if self.record.summaries.current else ""
        return summary if len(summary) <= START_CHARS else summary[:START_CHARS].rstrip() + "…"


@dataclass
class Filters:
    venue: str = ""
    field: str = ""
    status: str = "review"
    warning: str = ""
    q: str = ""

    @classmethod
    def of(cls, query: Any) -> Filters:
        """The filters a page's query string names (unknown values are no filter)."""
        status = query.get("status", "review")
        return cls(
            venue=query.get("venue", ""),
            field=query.get("field", ""),
            status=status if status in STATUS_FILTERS else "review",
            warning=query.get("warning", ""),
            q=query.get("q", "")[:200],
        )

    def query(self) -> str:
        """The query string that names these filters ("" for none), carried from the queue to its papers."""
        pairs = {k: v for k, v in vars(self).items() if v and not (k == "status" and v == "review")}
        return urlencode(pairs)

    def keep(self, row: Row) -> bool:
        current = row.record.summaries.current
        if self.venue and row.record.venue != self.venue:
            return False
        if self.field and (current is None or current.field != self.field):
            return False
        if self.warning and self.warning not in row.kinds:
            return False
        if self.q and self.q.casefold() not in row.record.title.casefold():
            return False
        return _status_matches(row.status, self.status)


def _status_matches(status: str, wanted: str) -> bool:
    if wanted == "all":
        return True
    if wanted == "review":
        return status in QUEUE_STATUSES
    return status == wanted


@dataclass
class WarningCache:
    """Warnings per (ref, version): reading a paper's text for every page view would be slow."""

    settings: Settings
    _paper: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    parsed: ParsedRecords = field(default_factory=dict)  # the records as last read, for Store.records
    _duplicates: tuple[frozenset[tuple[str, str]], dict[str, str]] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def paper(self, record: Record) -> list[str]:
        """The current version's warnings, as `review list` finds them (``flags.current_warnings``)."""
        current = record.summaries.current
        if current is None:
            return []
        key = (f"{record.venue}/{record.id}", current.number)
        with self._lock:
            cached = self._paper.get(key)
        if cached is None:
            cached = current_warnings(self.settings, record, current)
            with self._lock:
                self._paper[key] = cached
        return cached

    def duplicates(self, records: list[Record]) -> dict[str, str]:
        """Near-duplicates within each venue, found anew when any summary or status changed."""
        key = frozenset(
            (f"{r.venue}/{r.id}", r.summaries.current.summary)
            for r in records
            if r.summaries.current and r.summaries.status != "rejected"
        )
        with self._lock:
            if self._duplicates is not None and self._duplicates[0] == key:
                return self._duplicates[1]
        found = venue_duplicates(records)
        with self._lock:
            self._duplicates = (key, found)
        return found


def load_rows(settings: Settings, store: Store, venue_ids: list[str], cache: WarningCache) -> list[Row]:
    """Every paper with a summary in the venues, most suspicious first (then by venue and id).

    Records unchanged on disk since the last listing are not read again (``cache.parsed``).
    """
    records = [
        r
        for venue_id in venue_ids
        for r in store.records(venue_id, parsed=cache.parsed)
        if r.summaries.current is not None
    ]
    duplicates = cache.duplicates(records)
    rows = []
    for record in records:
        warnings = shown_warnings(record, cache.paper(record), duplicates.get(f"{record.venue}/{record.id}"))
        rows.append(Row(record, status_label(record), warnings, suspicion_score(warnings)))
    rows.sort(key=lambda r: (-r.score, r.record.venue, r.record.id))
    return rows


def counts(rows: list[Row]) -> dict[str, int]:
    out = {status: 0 for status in ("draft", "approved*", "approved", "rejected")}
    for row in rows:
        out[row.status] = out.get(row.status, 0) + 1
    return out


def warning_choices() -> list[tuple[str, str]]:
    return [(kind, label) for kind, (label, _) in KINDS.items()]


class QueueOrder:
    """The session's order: each paper keeps the place it was given when the desk first listed it.

    Papers listed for the first time (the first queue, or new ones from a command meanwhile) are placed
    after the rest, most suspicious first.
    """

    def __init__(self) -> None:
        self._rank: dict[str, int] = {}
        self._lock = threading.Lock()

    def arrange(self, rows: list[Row]) -> list[Row]:
        """``rows`` (most suspicious first) in the session's order."""
        with self._lock:
            for row in rows:
                self._rank.setdefault(row.ref, len(self._rank))
            rank = dict(self._rank)
        return sorted(rows, key=lambda row: rank[row.ref])


def neighbours(
    rows: list[Row], ref: str, filters: Filters, decided: frozenset[str] = frozenset()
) -> tuple[str | None, str | None]:
    """The papers before and after ``ref`` in the queue's order that the filters keep (needing a decision,
    by default), or that were ``decided`` this session: a paper keeps its place once decided, so `k` goes
    back to the one just decided and `j` on from it."""
    at = next((i for i, r in enumerate(rows) if r.ref == ref), -1)
    kept = [(i, r.ref) for i, r in enumerate(rows) if r.ref != ref and (filters.keep(r) or r.ref in decided)]
    before = [r for i, r in kept if i < at]
    after = [r for i, r in kept if i > at]
    return (before[-1] if before else None), (after[0] if after else None)


def next_after(rows: list[Row], ref: str, filters: Filters) -> str | None:
    """The paper to open after a decision on ``ref``: the next one the filters keep, else the first before it."""
    at = next((i for i, r in enumerate(rows) if r.ref == ref), -1)
    kept = [(i, r.ref) for i, r in enumerate(rows) if r.ref != ref and filters.keep(r)]
    after = [r for i, r in kept if i > at]
    return after[0] if after else (kept[0][1] if kept else None)


@dataclass
class Page:
    """One page of the filtered queue: its rows, where it starts, and the pages beside it (1-based)."""

    rows: list[Row]
    number: int
    count: int
    first: int  # the 1-based position of its first row in the filtered queue

    @classmethod
    def of(cls, rows: list[Row], number: int, size: int = PAGE_SIZE) -> Page:
        count = max(1, -(-len(rows) // size))
        number = min(max(1, number), count)
        start = (number - 1) * size
        return cls(rows[start : start + size], number, count, start + 1)


@dataclass(frozen=True)
class QueueKind:
    """One kind of reviewed text on the desk (summaries or notes): its queue's address, its items' address and
    page, where a decision and a bulk approve are posted, and what to say when a decision is too long."""

    kind: str
    queue_path: str
    item_path: str
    bulk_api: str
    noun: str
    template: str
    action_api: str
    too_long: str


def next_location(kind: QueueKind, rows: list[Row], ref: str, filters: Filters) -> str:
    """After a decision on ``ref``: the next item the filters keep, in the session's order, else the queue."""
    found = next_after(rows, ref, filters)
    query = f"?{filters.query()}" if filters.query() else ""
    return f"{kind.item_path}{found}{query}" if found else f"{kind.queue_path}{query}"


def queue_context(kind: QueueKind, settings: Settings, desk: Desk, filters: Filters, rows: list[Row], page_number: int,
                  warning_kinds: list[tuple[str, str]]) -> dict[str, Any]:  # fmt: skip
    """The queue page's template context: the filtered rows' page, the counts, the filters' choices."""
    shown = [r for r in rows if filters.keep(r)]
    page = Page.of(shown, page_number)
    return {
        "kind": kind.kind,
        "queue_path": kind.queue_path,
        "item_path": kind.item_path,
        "bulk_api": kind.bulk_api,
        "noun": kind.noun,
        "filters": filters,
        "filter_query": filters.query(),
        "rows": page.rows,
        "page": page,
        "page_size": PAGE_SIZE,
        "total": len(shown),
        "decided": desk.decisions.recent(),
        "counts": counts(rows),
        "venues": desk.venue_ids,
        "fields": settings.fields,
        "statuses": STATUS_FILTERS,
        "warning_kinds": warning_kinds,
        "field_names": {f.id: f"{f.emoji} {f.name}" for f in settings.fields},
        "corrupt": sorted(f"{path}: {why}" for path, why in desk.store.corrupt.items()),
    }
