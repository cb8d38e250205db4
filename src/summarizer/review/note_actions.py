"""Review actions on per-paper notes: list, approve, reject, edit — on records, under the caller's venue lock.

A note is reviewed on its own, with the same rules as a summary: a model's note is a draft until a
person approves it; every change is a new note version, so an approved or human-written note is
never lost; an edit or a regeneration of an approved note waits as a pending draft (``approved*``)
while the approved version stays published.  The CLI calls these (``review notes …``), and so does
the review desk, with its checks of the version a page showed (``require_note_version``) and its undo.
"""

from __future__ import annotations

from summarizer.core.errors import ChangedSince, NothingToApprove, TextRejected, UsageError
from summarizer.core.note_rules import check_human_note
from summarizer.core.records import NoteVersion, Record
from summarizer.core.report import Done
from summarizer.core.store import Store

from .actions import ReviewState, clean_reason, status_label


def note_status_label(record: Record) -> str:
    notes = record.notes
    if not notes.versions:
        return "no note"
    return "approved*" if notes.has_pending_draft else notes.status


def _matches(record: Record, status: str | None) -> bool:
    notes = record.notes
    if status is None:
        return bool(notes.versions)
    if status == "draft":
        return notes.needs_review
    return bool(notes.versions) and notes.status == status


def listed_notes(store: Store, venue_id: str, *, status: str | None) -> list[Record]:
    """The venue's papers that have a note (under ``status``: draft = a note waiting for review)."""
    return [r for r in store.records(venue_id) if _matches(r, status)]


def listed_note(record: Record, status: str | None) -> NoteVersion | None:
    """Under --status approved the published note, else the newest (what a reviewer acts on)."""
    if status == "approved" and record.notes.approved is not None:
        return record.notes.approved
    return record.notes.current


def approvable_notes(store: Store, venue_id: str, paper_ids: list[str]) -> list[Record]:
    """Load the named papers and check each has a note; change nothing (one bad id approves none)."""
    records: list[Record] = []
    for paper_id in dict.fromkeys(paper_ids):
        record = store.load(venue_id, paper_id)
        if record.notes.current is None:
            raise NothingToApprove(
                f"{venue_id}/{paper_id} has no note to approve (write one: summarizer notes {venue_id} {paper_id})"
            )
        records.append(record)
    return records


def approve_notes(store: Store, venue_id: str, records: list[Record] | None) -> Done:
    """Approve the named papers' newest notes, or (None) every note of the venue waiting for review."""
    everything = records is None
    if records is None:
        records = [r for r in store.records(venue_id) if r.notes.needs_review]
    done = Done()
    for record in records:
        record.notes.approve()
        store.save(record)
        done.lines.append(f"approved the note of {venue_id}/{record.id} (version {record.notes.approved_version})")
    if everything:
        done.lines.append(f"{len(records)} notes approved in {venue_id}")
    return done


def reject_note(store: Store, venue_id: str, paper_id: str, *, reason: str) -> Done:
    """The paper's note is rejected (kept off the site; ``notes`` skips it unless --force); the summary is not."""
    reason = clean_reason(reason)
    record = store.load(venue_id, paper_id)
    if record.notes.current is None:
        raise NothingToApprove(f"{venue_id}/{paper_id} has no note to reject")
    record.notes.status = "rejected"
    record.notes.review_note = reason or None
    store.save(record)
    return Done([f"rejected the note of {venue_id}/{paper_id}: it stays off the site and `notes` skips it"])


def save_note_edit(store: Store, record: Record, markdown: str, *, found: list[str] | None = None) -> Done:
    """A person's Markdown as the paper's newest note version (origin human); call locked.

    Checked as human text (``core.note_rules.check_human_note``): only what cannot be published safely
    refuses it (``UsageError`` naming every problem); everything else is a warning kept with it.  An
    imported note's own header and math style stay with the edit of it.
    """
    venue_id, paper_id = record.venue, record.id
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
    ref = f"{venue_id}/{paper_id}"
    done = Done([f"saved the note of {ref}, version {version.number} (human)"])
    if record.notes.status == "approved":
        done.lines.append(
            f"note version {record.notes.approved_version} stays published until: summarizer review notes approve {ref}"
        )
    else:
        done.lines.append(f"to publish it: summarizer review notes approve {ref}")
    return done


def require_note_version(
    store: Store, venue_id: str, paper_id: str, expected: int | None, *, status: str | None = None
) -> Record:
    """The paper, if its newest note version is still ``expected`` (and its note status still ``status``); call locked.

    The review desk sends the note version a page showed with every action on a note, so an action
    taken on a page the CLI or another tab has changed since is refused, not applied.
    """
    record = store.load(venue_id, paper_id)
    now = record.notes.current.number if record.notes.current else None
    if now != expected or (status is not None and note_status_label(record) != status):
        raise ChangedSince(
            f"the note of {venue_id}/{paper_id} changed since this page was loaded "
            f"(now version {now}, {note_status_label(record)}): nothing saved; reload to see the change"
        )
    return record


def require_approved_summary(record: Record) -> None:
    """A note is reviewed once its paper's summary is approved: its 一句话总结 and header come from that summary."""
    if record.summaries.approved is None:
        raise NothingToApprove(
            f"{record.venue}/{record.id}: its summary is not approved ({status_label(record)}), so its note is not "
            f"reviewed yet; approve the summary first: summarizer review approve {record.venue}/{record.id}"
        )


def undo_note_decision(store: Store, venue_id: str, paper_id: str, before: ReviewState, after: ReviewState) -> Done:
    """Put a decision on a note back: its review state as ``before``, if it is still ``after``.  Call locked.

    A note changed since (a new version, another decision) is not touched: ``ChangedSince``.
    """
    record = store.load(venue_id, paper_id)
    now = ReviewState.of_note(record)
    if now != after:
        raise ChangedSince(
            f"the note of {venue_id}/{paper_id} changed since it was decided (now version {now.version}, "
            f"{note_status_label(record)}): nothing undone; open it to see the change"
        )
    record.notes.status = before.status
    record.notes.approved_version = before.approved_version
    record.notes.review_note = before.review_note
    store.save(record)
    return Done([f"undone: the note of {venue_id}/{paper_id} is {note_status_label(record)} again"])
