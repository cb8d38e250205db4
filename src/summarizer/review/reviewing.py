"""The review of either kind of reviewed text — a paper's summaries, its note — written once: its status as a
reviewer reads it, which papers a listing shows, approve, reject, the stale-page check and the undo.

A kind (``SUMMARY``, ``NOTE``) says where its versions and review state live in the record and how its
lines name it; ``actions`` (summaries) and ``note_actions`` (notes) add what only that kind does (its edit)
and keep the names the CLI and the desk call.  Every function works under the caller's venue lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from summarizer.core import limits
from summarizer.core.errors import ChangedSince, NothingToApprove, UsageError
from summarizer.core.records import Record, Reviewed, Status
from summarizer.core.report import Done, plural
from summarizer.core.sanitize import clean_text
from summarizer.core.store import Store


@dataclass(frozen=True)
class ReviewedKind:
    """One kind of reviewed text, as the review sees it: where the record keeps it, and its words."""

    noun: str  # "summary", "note"
    of: Callable[[Record], Reviewed[Any]]  # where the record keeps its versions and review state
    none_label: str  # a paper's status when it has no version of this kind
    counted: str  # what ``approve --all`` counts: "paper", "note"
    skipped_by: str  # the command that skips a rejected one
    approve_command: str  # the command that approves one
    missing_hint: str  # what to run when there is nothing to approve ({venue}, {paper} filled in)
    of_ref: str  # a ref as a line names it ({ref} filled in)

    @property
    def lists_every_paper(self) -> bool:
        """An unfiltered listing of summaries shows papers without one too (it lists papers); of notes, not."""
        return self.counted == "paper"

    def written_as(self, ref: str) -> str:
        return self.of_ref.format(ref=ref)


def _summaries(record: Record) -> Reviewed[Any]:
    return record.summaries


def _notes(record: Record) -> Reviewed[Any]:
    return record.notes


SUMMARY = ReviewedKind("summary", _summaries, "unsummarized", "paper", "summarize", "review approve",
                       "see: summarizer review show {venue}/{paper}", "{ref}")  # fmt: skip
NOTE = ReviewedKind("note", _notes, "no note", "note", "`notes`", "review notes approve",
                    "write one: summarizer notes {venue} {paper}", "the note of {ref}")  # fmt: skip


def status_label(record: Record, kind: ReviewedKind) -> str:
    reviewed = kind.of(record)
    if not reviewed.versions:
        return kind.none_label
    return "approved*" if reviewed.has_pending_draft else reviewed.status


def matches_status(record: Record, status: str | None, kind: ReviewedKind) -> bool:
    """Whether a listing under ``--status STATUS`` shows the paper (draft = waiting for review)."""
    reviewed = kind.of(record)
    if status is None:
        return kind.lists_every_paper or bool(reviewed.versions)
    if status == "draft":
        return reviewed.needs_review
    return bool(reviewed.versions) and reviewed.status == status


def listed(store: Store, venue_id: str, status: str | None, kind: ReviewedKind) -> list[Record]:
    """The venue's papers a listing under ``status`` shows."""
    return [r for r in store.records(venue_id) if matches_status(r, status, kind)]


def listed_version(record: Record, status: str | None, kind: ReviewedKind) -> Any:
    """Under --status approved the published version, else the newest (what a reviewer acts on)."""
    reviewed = kind.of(record)
    if status == "approved" and reviewed.approved is not None:
        return reviewed.approved
    return reviewed.current


def approvable(store: Store, venue_id: str, paper_ids: list[str], kind: ReviewedKind) -> list[Record]:
    """Load the named papers and check each has a version to approve; change nothing.

    Raises UsageError (no such paper) or NothingToApprove at the first paper that does not exist or has none, so a
    caller that checks every ref first approves all of them or none.
    """
    records: list[Record] = []
    for paper_id in dict.fromkeys(paper_ids):  # a ref given twice is approved once
        record = store.load(venue_id, paper_id)
        if kind.of(record).current is None:
            hint = kind.missing_hint.format(venue=venue_id, paper=paper_id)
            raise NothingToApprove(f"{venue_id}/{paper_id} has no {kind.noun} to approve ({hint})")
        records.append(record)
    return records


def approve(store: Store, venue_id: str, records: list[Record] | None, kind: ReviewedKind) -> Done:
    """Approve the given papers' newest versions, or (None) every one of the venue waiting for review."""
    everything = records is None
    if records is None:
        records = [r for r in store.records(venue_id) if kind.of(r).needs_review]
    done = Done()
    for record in records:
        reviewed = kind.of(record)
        reviewed.approve(what=kind.noun)
        store.save(record)
        done.lines.append(
            f"approved {kind.written_as(f'{venue_id}/{record.id}')} (version {reviewed.approved_version})"
        )
    if everything:
        done.lines.append(f"{plural(len(records), kind.counted)} approved in {venue_id}")
    return done


def saved_by_hand(record: Record, number: int, kind: ReviewedKind) -> Done:
    """What a person's edit did (version ``number`` saved) and what publishes it."""
    reviewed, ref = kind.of(record), f"{record.venue}/{record.id}"
    done = Done([f"saved {kind.written_as(ref)} version {number} (human)"])
    publish = f"summarizer {kind.approve_command} {ref}"
    if reviewed.status == "approved":
        word = "version" if kind is SUMMARY else f"{kind.noun} version"  # a summary is the paper's own text
        done.lines.append(f"{word} {reviewed.approved_version} stays published until: {publish}")
    else:
        done.lines.append(f"to publish it: {publish}")
    return done


def clean_reason(reason: str) -> str:
    """A reviewer's reason for a rejection, as kept with the record: one clean text, bounded."""
    reason = clean_text(reason).strip()
    if len(reason) > limits.REVIEW_NOTE:
        raise UsageError(f"the reason: {len(reason)} characters (at most {limits.REVIEW_NOTE}); shorten it")
    return reason


def reject(store: Store, venue_id: str, paper_id: str, reason: str, kind: ReviewedKind) -> Done:
    """Rejected with the reviewer's reason: it stays off the site and its command skips it.  A paper is rejected
    with or without a summary (it is left out whole); a note needs to exist to be rejected."""
    reason = clean_reason(reason)
    record = store.load(venue_id, paper_id)
    reviewed = kind.of(record)
    if not kind.lists_every_paper and reviewed.current is None:
        raise NothingToApprove(f"{venue_id}/{paper_id} has no {kind.noun} to reject")
    reviewed.status = "rejected"
    reviewed.review_note = reason or None
    store.save(record)
    ref = kind.written_as(f"{venue_id}/{paper_id}")
    return Done([f"rejected {ref}: it stays off the site and {kind.skipped_by} skips it"])


def require_version(
    store: Store, venue_id: str, paper_id: str, expected: int | None, kind: ReviewedKind, *, status: str | None = None
) -> Record:
    """The paper, if its newest version is still ``expected`` (and its status still ``status``); call locked.

    The review desk sends the version a page showed with every action, so an action taken on a page the CLI or
    another tab has changed since is refused, not applied.
    """
    record = store.load(venue_id, paper_id)
    current = kind.of(record).current
    now = current.number if current else None
    if now != expected or (status is not None and status_label(record, kind) != status):
        raise ChangedSince(
            f"{kind.written_as(f'{venue_id}/{paper_id}')} changed since this page was loaded "
            f"(now version {now}, {status_label(record, kind)}): nothing saved; reload to see the change"
        )
    return record


@dataclass(frozen=True)
class ReviewState:
    """What a decision (approve, reject) changes in one kind's review state, and the newest version, which it keeps."""

    status: Status
    approved_version: int | None
    review_note: str | None
    version: int | None

    @classmethod
    def of(cls, record: Record, kind: ReviewedKind = SUMMARY) -> ReviewState:
        reviewed = kind.of(record)
        current = reviewed.current.number if reviewed.current else None
        return cls(reviewed.status, reviewed.approved_version, reviewed.review_note, current)

    @classmethod
    def of_note(cls, record: Record) -> ReviewState:
        return cls.of(record, NOTE)


def undo_decision(
    store: Store, venue_id: str, paper_id: str, before: ReviewState, after: ReviewState, kind: ReviewedKind = SUMMARY
) -> Done:
    """Put a decision back: the review state as ``before``, if it is still ``after`` (what the decision left).
    Call locked.  Changed since (a new version, another decision): not touched, ``ChangedSince``."""
    record = store.load(venue_id, paper_id)
    ref = kind.written_as(f"{venue_id}/{paper_id}")
    now = ReviewState.of(record, kind)
    if now != after:
        raise ChangedSince(
            f"{ref} changed since it was decided (now version {now.version}, {status_label(record, kind)}): "
            "nothing undone; open it to see the change"
        )
    reviewed = kind.of(record)
    reviewed.status, reviewed.approved_version, reviewed.review_note = (
        before.status,
        before.approved_version,
        before.review_note,
    )
    store.save(record)
    return Done([f"undone: {ref} is {status_label(record, kind)} again"])
