"""The desk's queue: every paper that needs a decision, its warnings, filters and order."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

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
from summarizer.core.store import Store

from ..actions import status_label

QUEUE_STATUSES = ("draft", "approved*")
STATUS_FILTERS = ("review", "draft", "approved*", "approved", "rejected", "all")


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
        return self.record.current.number if self.record.current else None


@dataclass
class Filters:
    venue: str = ""
    field: str = ""
    status: str = "review"
    warning: str = ""
    q: str = ""

    def keep(self, row: Row) -> bool:
        current = row.record.current
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
    _duplicates: tuple[frozenset[tuple[str, str]], dict[str, str]] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def paper(self, record: Record) -> list[str]:
        """The current version's warnings, as `review list` finds them (``flags.current_warnings``)."""
        current = record.current
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
            (f"{r.venue}/{r.id}", r.current.summary) for r in records if r.current and r.status != "rejected"
        )
        with self._lock:
            if self._duplicates is not None and self._duplicates[0] == key:
                return self._duplicates[1]
        found = venue_duplicates(records)
        with self._lock:
            self._duplicates = (key, found)
        return found


def load_rows(settings: Settings, store: Store, venue_ids: list[str], cache: WarningCache) -> list[Row]:
    """Every paper with a summary in the venues, most suspicious first (then by venue and id)."""
    records = [r for venue_id in venue_ids for r in store.records(venue_id) if r.current is not None]
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
