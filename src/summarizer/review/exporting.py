"""JSONL export: a venue's summaries (and notes) in the import format, one paper a line, sorted by id."""

from __future__ import annotations

import json
from typing import IO

from summarizer.core.records import NoteVersion, Record
from summarizer.core.store import Store

from .import_lines import SOURCE_KEYS

EXPORT_KEYS = (
    "venue", "id", "title", "summary", "tags", "field", "status",
    "arxiv_id", "url", "authors", "abstract", "note",
)  # fmt: skip


def export_line(record: Record) -> dict[str, object] | None:
    """The import-format line for a record (its published version, and a pending draft); None without a summary."""
    version = record.summaries.approved or record.summaries.current
    if version is None:
        return None
    values: dict[str, object] = {
        "venue": record.venue,
        "id": record.id,
        "title": record.title,
        "summary": version.summary,
        "tags": version.tags,
        "field": version.field,
        "status": record.summaries.status,
        "arxiv_id": record.arxiv_id,
        "url": record.url or record.link,
        "authors": record.authors,
        "abstract": record.abstract,
        "note": record.summaries.review_note,
    }
    line = {key: values[key] for key in EXPORT_KEYS}
    pending = record.summaries.current if record.summaries.has_pending_draft else None
    if pending is not None:
        line["pending"] = {"summary": pending.summary, "tags": pending.tags, "field": pending.field}
    if record.source_type:
        line.update({key: getattr(record, key) for key in SOURCE_KEYS})
    notes = notes_line(record)
    if notes is not None:
        line["notes"] = notes
    return line


def _note_text(version: NoteVersion) -> dict[str, object]:
    return {"markdown": version.markdown, "header": version.header, "math": version.math}


def notes_line(record: Record) -> dict[str, object] | None:
    """The paper's note as an import line carries it: the published (else newest) version, its review
    state, and a pending draft; None when the paper has no note."""
    notes = record.notes
    version = notes.approved or notes.current
    if version is None:
        return None
    line: dict[str, object] = {"status": notes.status, **_note_text(version), "note": notes.review_note}
    if notes.code_url:
        line["code_url"] = notes.code_url
    if notes.has_pending_draft and notes.current is not None:
        line["pending"] = _note_text(notes.current)
    return line


def export_jsonl(venue_id: str, store: Store, sink: IO[str]) -> tuple[int, int]:
    """Write the venue's records, sorted by id; returns (written, skipped without a summary)."""
    written = skipped = 0
    for record in store.records(venue_id):
        line = export_line(record)
        if line is None:
            skipped += 1
            continue
        sink.write(json.dumps(line, ensure_ascii=False) + "\n")
        written += 1
    return written, skipped
