"""Review actions on per-paper notes: list, approve, reject, edit — on records, under the caller's venue lock.

A note is reviewed on its own, with the same rules as a summary: a model's note is a draft until a
person approves it; every change is a new note version, so an approved or human-written note is
never lost; an edit or a regeneration of an approved note waits as a pending draft (``approved*``)
while the approved version stays published.  The CLI calls these (``review notes …``), and so does
the review desk, with its checks of the version a page showed (``require_note_version``) and its undo.
"""

from __future__ import annotations

from summarizer.core.errors import NothingToApprove, TextRejected, UsageError
from summarizer.core.note_rules import check_human_note
from summarizer.core.records import Record
from summarizer.core.report import Done
from summarizer.core.store import Store

from . import reviewing
from .actions import status_label
from .reviewing import NOTE, ReviewState


def note_status_label(record: Record) -> str:
    return reviewing.status_label(record, NOTE)


def approvable_notes(store: Store, venue_id: str, paper_ids: list[str]) -> list[Record]:
    """Load the named papers and check each has a note; change nothing (one bad id approves none)."""
    return reviewing.approvable(store, venue_id, paper_ids, NOTE)


def approve_notes(store: Store, venue_id: str, records: list[Record] | None) -> Done:
    """Approve the named papers' newest notes, or (None) every note of the venue waiting for review."""
    return reviewing.approve(store, venue_id, records, NOTE)


def reject_note(store: Store, venue_id: str, paper_id: str, *, reason: str) -> Done:
    """The paper's note is rejected (kept off the site; ``notes`` skips it unless --force); the summary is not."""
    return reviewing.reject(store, venue_id, paper_id, reason, NOTE)


def save_note_edit(store: Store, record: Record, markdown: str, *, found: list[str] | None = None) -> Done:
    """A person's Markdown as the paper's newest note version (origin human); call locked.

    Checked as human text (``core.note_rules.check_human_note``): only what cannot be published safely
    refuses it (``UsageError`` naming every problem); everything else is a warning kept with it.  An
    imported note's own header and math style stay with the edit of it.
    """
    base = record.notes.current
    header = base.header if base is not None else None
    try:
        checked = check_human_note(markdown, header)
    except TextRejected as exc:
        raise UsageError(f"note not saved: {exc}") from None
    math = base.math if base is not None else "tex"
    if base is not None and base.same_content(checked.markdown, checked.header, math):
        return Done(["nothing changed"], changed=False)
    warnings = checked.warnings + [w for w in found or [] if w not in checked.warnings]
    version = record.notes.add_version(checked.markdown, "human", header=header, math=math, warnings=warnings)
    store.save(record)
    return reviewing.saved_by_hand(record, version.number, NOTE)


def require_note_version(
    store: Store, venue_id: str, paper_id: str, expected: int | None, *, status: str | None = None
) -> Record:
    """The paper, if its newest note version is still ``expected`` (and its note status ``status``); call locked."""
    return reviewing.require_version(store, venue_id, paper_id, expected, NOTE, status=status)


def require_approved_summary(record: Record) -> None:
    """A note is reviewed once its paper's summary is approved: its 一句话总结 and header come from that summary."""
    if record.summaries.approved is None:
        raise NothingToApprove(
            f"{record.venue}/{record.id}: its summary is not approved ({status_label(record)}), so its note is not "
            f"reviewed yet; approve the summary first: summarizer review approve {record.venue}/{record.id}"
        )


def undo_note_decision(store: Store, venue_id: str, paper_id: str, before: ReviewState, after: ReviewState) -> Done:
    """Put a decision on a note back (``reviewing.undo_decision``).  Call locked."""
    return reviewing.undo_decision(store, venue_id, paper_id, before, after, NOTE)
