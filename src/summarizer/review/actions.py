"""Review actions: list, approve, reject, edit — on records, under the caller's venue lock.

Machine output is a draft until a person approves it.  Every change is a new
version in the record, so no action ever loses an approved or human-edited
summary: an edit or a regeneration of an approved paper waits as a *pending
draft* while the approved version stays published; ``review list --status draft``
lists it as approved*.  The CLI and the review desk call these same functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from summarizer.core import limits
from summarizer.core.config import Settings
from summarizer.core.errors import ChangedSince, NothingToApprove, TextRejected, UsageError
from summarizer.core.records import Record, Status, Version
from summarizer.core.report import Done, plural
from summarizer.core.rules import check_human_summary
from summarizer.core.sanitize import clean_text
from summarizer.core.store import Store

TAG_SEPARATORS = re.compile(r"[,，、]")


def status_label(record: Record) -> str:
    if not record.summaries.versions:
        return "unsummarized"
    return "approved*" if record.summaries.has_pending_draft else record.summaries.status


def matches_status(record: Record, status: str | None) -> bool:
    """Whether ``review list --status STATUS`` lists the paper (draft = waiting for review)."""
    if status is None:
        return True
    if status == "draft":
        return record.summaries.needs_review
    return record.summaries.versions != [] and record.summaries.status == status


def listed(store: Store, venue_id: str, *, status: str | None) -> list[Record]:
    """The venue's papers for ``review list`` (under ``status``: draft = waiting for review)."""
    return [r for r in store.records(venue_id) if matches_status(r, status)]


def listed_version(record: Record, status: str | None) -> Version | None:
    """Under --status approved the published version, else the newest (what a reviewer acts on)."""
    if status == "approved" and record.summaries.approved is not None:
        return record.summaries.approved
    return record.summaries.current


def approvable(store: Store, venue_id: str, paper_ids: list[str]) -> list[Record]:
    """Load the named papers and check each has a summary to approve; change nothing.

    Raises UsageError (no such paper) or NothingToApprove at the first paper that does not exist or has no summary, so
    a caller that checks every ref first approves all of them or none.
    """
    records: list[Record] = []
    for paper_id in dict.fromkeys(paper_ids):  # a ref given twice is approved once
        record = store.load(venue_id, paper_id)
        if record.summaries.current is None:
            raise NothingToApprove(
                f"{venue_id}/{paper_id} has no summary to approve (see: summarizer review show {venue_id}/{paper_id})"
            )
        records.append(record)
    return records


def approve_records(store: Store, venue_id: str, records: list[Record]) -> Done:
    done = Done()
    for record in records:
        record.summaries.approve()
        store.save(record)
        done.lines.append(f"approved {venue_id}/{record.id} (version {record.summaries.approved_version})")
    return done


def approve(settings: Settings, store: Store, venue_id: str, paper_ids: list[str] | None) -> Done:
    """Approve the named papers' current versions, or (None) every paper waiting for review.

    Every named paper is loaded and checked before any is saved: one bad id approves nothing.
    """
    if paper_ids is None:
        records = [r for r in store.records(venue_id) if r.summaries.needs_review]
    else:
        records = approvable(store, venue_id, paper_ids)
    done = approve_records(store, venue_id, records)
    if paper_ids is None:
        done.lines.append(f"{plural(len(records), 'paper')} approved in {venue_id}")
    return done


def clean_reason(reason: str) -> str:
    """A reviewer's reason for a rejection, as kept with the record: one clean text, bounded."""
    reason = clean_text(reason).strip()
    if len(reason) > limits.REVIEW_NOTE:
        raise UsageError(f"the reason: {len(reason)} characters (at most {limits.REVIEW_NOTE}); shorten it")
    return reason


def reject(settings: Settings, store: Store, venue_id: str, paper_id: str, *, reason: str) -> Done:
    reason = clean_reason(reason)
    record = store.load(venue_id, paper_id)
    record.summaries.status = "rejected"
    record.summaries.review_note = reason or None
    store.save(record)
    return Done([f"rejected {venue_id}/{paper_id}: it stays off the site and summarize skips it"])


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
    done = Done([f"saved {venue_id}/{paper_id} version {version.number} (human)"])
    if record.summaries.status == "approved":
        done.lines.append(
            f"version {record.summaries.approved_version} stays published until: "
            f"summarizer review approve {venue_id}/{paper_id}"
        )
    elif record.summaries.status == "draft":
        done.lines.append(f"to publish it: summarizer review approve {venue_id}/{paper_id}")
    return done


def require_version(
    store: Store, venue_id: str, paper_id: str, expected: int | None, *, status: str | None = None
) -> Record:
    """The paper, if its newest version is still ``expected`` (and its status still ``status``); call locked.

    The review desk sends the version a page showed with every action, so an action
    taken on a page the CLI or another tab has changed since is refused, not applied.
    """
    record = store.load(venue_id, paper_id)
    now = record.summaries.current.number if record.summaries.current else None
    if now != expected or (status is not None and status_label(record) != status):
        raise ChangedSince(
            f"{venue_id}/{paper_id} changed since this page was loaded (now version {now}, {status_label(record)}): "
            "nothing saved; reload to see the change"
        )
    return record


@dataclass(frozen=True)
class ReviewState:
    """What a decision (approve, reject) changes in a record or its note, and the newest version, which it keeps."""

    status: Status
    approved_version: int | None
    review_note: str | None
    version: int | None

    @classmethod
    def of(cls, record: Record) -> ReviewState:
        current = record.summaries.current.number if record.summaries.current else None
        return cls(record.summaries.status, record.summaries.approved_version, record.summaries.review_note, current)

    @classmethod
    def of_note(cls, record: Record) -> ReviewState:
        """The same for the paper's note, which has a review state of its own."""
        notes = record.notes
        current = notes.current.number if notes.current else None
        return cls(notes.status, notes.approved_version, notes.review_note, current)


def undo_decision(store: Store, venue_id: str, paper_id: str, before: ReviewState, after: ReviewState) -> Done:
    """Put a decision back: the paper's review state as ``before``, if it is still ``after`` (what the decision left).
    Call locked.  A paper changed since (a new version, another decision) is not touched: ``ChangedSince``."""
    record = store.load(venue_id, paper_id)
    if ReviewState.of(record) != after:
        raise ChangedSince(
            f"{venue_id}/{paper_id} changed since it was decided (now version {ReviewState.of(record).version}, "
            f"{status_label(record)}): nothing undone; open it to see the change"
        )
    record.summaries.status = before.status
    record.summaries.approved_version = before.approved_version
    record.summaries.review_note = before.review_note
    store.save(record)
    return Done([f"undone: {venue_id}/{paper_id} is {status_label(record)} again"])
