"""The desk's notes queue: every paper whose summary is approved and that has a note, with the note's warnings.

A note is reviewed once its paper's summary is approved (its header and 一句话总结 come from that
summary), so a paper whose summary is not approved is not listed.  The rows are ``queue.Row``s
whose status, version and start are the note's: the queue's filters, order, pages and neighbours
work on them unchanged.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from summarizer.core.config import Settings
from summarizer.core.flags import KINDS, suspicion_score
from summarizer.core.note_flags import current_note_warnings
from summarizer.core.note_rules import split_sections
from summarizer.core.records import Record
from summarizer.core.store import ParsedRecords, Store
from summarizer.review.note_actions import note_status_label

from .queue import START_CHARS, Row

NOTE_WARNING_KINDS = ("numbers", "length", "other")
_MARKUP = re.compile(r"^\s*(?:\d+\.|[-+*])\s+|[*_#|>`]+|\\[()\[\]]", re.MULTILINE)


class NoteRow(Row):
    """A paper in the notes queue: its note's status, newest note version and opening words."""

    @property
    def version(self) -> int | None:
        current = self.record.notes.current
        return current.number if current else None

    @property
    def start(self) -> str:
        """The start of the note's first section, its Markdown marks left out (its first START_CHARS characters)."""
        current = self.record.notes.current
        sections = split_sections(current.markdown) if current else []
        text = " ".join(_MARKUP.sub("", sections[0].body).split()) if sections else ""
        return text if len(text) <= START_CHARS else text[:START_CHARS].rstrip() + "…"


@dataclass
class NoteWarningCache:
    """A note's warnings per (ref, note version, approved summary): an edit or an import is checked against
    the paper's text, too slow to read again for every page."""

    settings: Settings
    _found: dict[tuple[str, int, int | None], list[str]] = field(default_factory=dict)
    parsed: ParsedRecords = field(default_factory=dict)  # the records as last read, for Store.records
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def warnings(self, record: Record) -> list[str]:
        """The newest note version's warnings, as `review notes list` finds them."""
        current = record.notes.current
        if current is None:
            return []
        key = (f"{record.venue}/{record.id}", current.number, record.summaries.approved_version)
        with self._lock:
            cached = self._found.get(key)
        if cached is None:
            cached = current_note_warnings(self.settings, record, current)
            with self._lock:
                self._found[key] = cached
        return cached


def has_note_to_review(record: Record) -> bool:
    """A note, on a paper whose summary is approved."""
    return record.notes.current is not None and record.summaries.approved is not None


def load_note_rows(store: Store, venue_ids: list[str], cache: NoteWarningCache) -> list[Row]:
    """Every paper of the venues with a note to review, most suspicious first (then by venue and id)."""
    rows: list[Row] = []
    for venue_id in venue_ids:
        for record in store.records(venue_id, parsed=cache.parsed):
            if has_note_to_review(record):
                warnings = cache.warnings(record)
                rows.append(NoteRow(record, note_status_label(record), warnings, suspicion_score(warnings)))
    rows.sort(key=lambda r: (-r.score, r.record.venue, r.record.id))
    return rows


def note_warning_choices() -> list[tuple[str, str]]:
    return [(kind, KINDS[kind][0]) for kind in NOTE_WARNING_KINDS]
