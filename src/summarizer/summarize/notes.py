"""``summarizer notes``: a per-paper note for every paper whose summary is approved, online or batched.

The same run as summaries (``plan``, ``online``, ``batch``) over ``note_task.NoteTask``: one model
call per paper, ``llm.max_concurrency`` at a time, paced, cached, resumed after a kill, or through
the Batch API at its price.  ``regenerate_note`` is ``regen VENUE/ID --notes --feedback TEXT``: one
fresh call with the previous note and the editor's words; the result waits as a draft note.  Its steps
(``ask_note_again``, ``save_regenerated_note``, ``record_note_failure``) are the review desk's regenerate
of a note.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from summarizer.core.config import Settings
from summarizer.core.errors import LLMError
from summarizer.core.progress import QUIET, Progress
from summarizer.core.records import Record
from summarizer.core.report import Done, Report, usage_line
from summarizer.core.store import Store
from summarizer.core.usage import Usage

from .batch import DEFAULT_LIMITS, summarize_venue_batch
from .batch_api import BatchLimits
from .note_task import NoteDraft, NoteTask, add_note_version
from .online import ask_fresh, record_failure, summarize_venue


def notes_venue(
    settings: Settings,
    store: Store,
    venue_id: str,
    *,
    only: list[str] | None = None,
    limit: int | None = None,
    force: bool = False,
    progress: Progress = QUIET,
) -> Report:
    """A draft note for each of the venue's papers (``only``: these) with an approved summary and no note yet."""
    task = NoteTask(settings)
    return summarize_venue(settings, store, venue_id, limit=limit, force=force, progress=progress, task=task, only=only)


def notes_venue_batch(
    settings: Settings,
    store: Store,
    venue_id: str,
    *,
    only: list[str] | None = None,
    limit: int | None = None,
    force: bool = False,
    wait: bool = True,
    limits: BatchLimits = DEFAULT_LIMITS,
    progress: Progress = QUIET,
) -> Report:
    """``notes_venue`` through the Batch API (its own state file, ``outputs/state/VENUE.notes.json``)."""
    task = NoteTask(settings)
    return summarize_venue_batch(
        settings, store, venue_id, limit=limit, force=force, wait=wait, limits=limits, progress=progress,
        task=task, only=only,
    )  # fmt: skip


@dataclass
class RegeneratedNote:
    """A fresh note from the model, not yet in any record: what ``ask_note_again`` returns."""

    draft: NoteDraft
    usage: Usage
    feedback: str | None


def ask_note_again(settings: Settings, record: Record, *, feedback: str | None) -> RegeneratedNote:
    """The model's fresh note for ``record`` as loaded (the cache ignored): needs no lock and writes nothing.

    Raises ``UsageError`` when the paper has nothing to read, ``LLMError`` when the attempts run out
    (the caller notes it with ``record_note_failure``).
    """
    draft, usage = asyncio.run(ask_fresh(NoteTask(settings), record, feedback=feedback))
    return RegeneratedNote(draft, usage, feedback)


def record_note_failure(store: Store, venue_id: str, paper_id: str, error: LLMError) -> None:
    """Note a failed regeneration in the paper's record (stage ``notes``, the model's last output).  Call locked."""
    record_failure(store, venue_id, paper_id, error, stage="notes")


def save_regenerated_note(settings: Settings, store: Store, record: Record, answer: RegeneratedNote) -> Done:
    """Add the answer to ``record`` as its newest draft note and save.  Call locked, ``record`` loaded under the lock.

    On an approved note the approved version stays published and the new one waits as a pending draft.
    """
    version = add_note_version(settings, record, answer.draft, feedback=answer.feedback)
    record.usage.add(answer.usage)
    store.save(record)
    ref = f"{record.venue}/{record.id}"
    done = Done([f"{ref}: note version {version.number} written by {answer.draft.model} ({usage_line(answer.usage)})"])
    if record.notes.has_pending_draft:
        done.lines.append(
            f"note version {record.notes.approved_version} stays published; "
            f"to publish the new one: summarizer review notes approve {ref}"
        )
    else:
        done.lines.append(f"review it: summarizer review notes show {ref}")
    return done


def regenerate_note(settings: Settings, store: Store, venue_id: str, paper_id: str, *, feedback: str | None) -> Done:
    """One fresh model call for the paper's note (the cache ignored); the result is a new draft note.  Call locked.

    The venue's lock is held for the whole call (``regen --notes``).  The review desk takes the same
    steps without holding it while the model thinks: ``ask_note_again`` unlocked, then, locked, its
    stale-page check and ``save_regenerated_note`` (or ``record_note_failure``).  A failure is recorded
    with the paper (stage ``notes``, the model's last output) and raised.
    """
    record = store.load(venue_id, paper_id)
    try:
        answer = ask_note_again(settings, record, feedback=feedback)
    except LLMError as exc:
        record_note_failure(store, venue_id, paper_id, exc)
        raise
    return save_regenerated_note(settings, store, record, answer)
