"""Review actions: list, approve, reject, edit — on records, under the caller's venue lock.

Machine output is a draft until a person approves it.  Every change is a new
version in the record, so no action ever loses an approved or human-edited
summary: an edit or a regeneration of an approved paper waits as a *pending
draft* while the approved version stays published; ``review list --status draft``
lists it as approved*.  The CLI and the review desk call these same functions.
"""

from __future__ import annotations

import re

from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected, UsageError
from summarizer.core.records import Record
from summarizer.core.report import Done
from summarizer.core.rules import check_human_summary
from summarizer.core.store import Store

from . import reviewing
from .reviewing import SUMMARY, ReviewState

TAG_SEPARATORS = re.compile(r"[,，、]")


def status_label(record: Record) -> str:
    return reviewing.status_label(record, SUMMARY)


def approvable(store: Store, venue_id: str, paper_ids: list[str]) -> list[Record]:
    """Load the named papers and check each has a summary to approve; change nothing (one bad id approves none)."""
    return reviewing.approvable(store, venue_id, paper_ids, SUMMARY)


def approve_records(store: Store, venue_id: str, records: list[Record]) -> Done:
    return reviewing.approve(store, venue_id, records, SUMMARY)


def approve(settings: Settings, store: Store, venue_id: str, paper_ids: list[str] | None) -> Done:
    """Approve the named papers' current versions, or (None) every paper waiting for review.

    Every named paper is loaded and checked before any is saved: one bad id approves nothing.
    """
    records = None if paper_ids is None else approvable(store, venue_id, paper_ids)
    return reviewing.approve(store, venue_id, records, SUMMARY)


def reject(settings: Settings, store: Store, venue_id: str, paper_id: str, *, reason: str) -> Done:
    return reviewing.reject(store, venue_id, paper_id, reason, SUMMARY)


def edit(
    settings: Settings,
    store: Store,
    venue_id: str,
    paper_id: str,
    *,
    summary: str | None,
    tags: list[str] | None,
    field: str | None,
) -> Done:
    """Edit with values from the command line (call with the venue's lock held); None keeps the current value.

    Without any value, use :func:`edit_in_editor` (unlocked) and :func:`save_editor_result` (locked).
    """
    record = store.load(venue_id, paper_id)
    return save_edit(settings, store, record, summary=summary, tags=tags, field=field)


def save_edit(
    settings: Settings,
    store: Store,
    record: Record,
    *,
    summary: str | None,
    tags: list[str] | None,
    field: str | None,
    found: list[str] | None = None,
) -> Done:
    venue_id, paper_id = record.venue, record.id
    current = record.summaries.current
    if current is not None:
        summary = current.summary if summary is None else summary
        tags = current.tags if tags is None else tags
        field = current.field if field is None else field
    if summary is None or tags is None or field is None:
        raise UsageError(f"{venue_id}/{paper_id} has no summary yet: give --summary, --tags and --field")
    try:
        checked = check_human_summary(summary, tags, field, settings)
    except TextRejected as exc:
        raise UsageError(f"edit not saved: {exc}") from None
    if current is not None and current.same_content(checked.summary, checked.tags, checked.field):
        return Done(["nothing changed"], changed=False)
    warnings = checked.warnings + [w for w in found or [] if w not in checked.warnings]
    version = record.summaries.add_version(checked.summary, checked.tags, checked.field, "human", warnings=warnings)
    store.save(record)
    return reviewing.saved_by_hand(record, version.number, SUMMARY)


def require_version(
    store: Store, venue_id: str, paper_id: str, expected: int | None, *, status: str | None = None
) -> Record:
    """The paper, if its newest summary version is still ``expected`` (and its status ``status``); call locked."""
    return reviewing.require_version(store, venue_id, paper_id, expected, SUMMARY, status=status)


def undo_decision(store: Store, venue_id: str, paper_id: str, before: ReviewState, after: ReviewState) -> Done:
    """Put a decision on a summary back (``reviewing.undo_decision``).  Call locked."""
    return reviewing.undo_decision(store, venue_id, paper_id, before, after, SUMMARY)
