"""A paper's note asked again: ``regen VENUE/ID --notes``, and the review desk's regenerate of a note.

``summarizer notes`` is the same run as summaries (``plan``, ``online``, ``batch``) over
``note_task.NoteTask``: one model call per paper, ``llm.max_concurrency`` at a time, paced, cached,
resumed after a kill, or through the Batch API at its price.  ``regenerate_note`` is
``regen VENUE/ID --notes --feedback TEXT``: one fresh call with the previous note and the editor's words;
the result waits as a draft note.  Its steps (``ask_note_again``, ``save_regenerated_note``,
``record_note_failure``) are the review desk's regenerate of a note.
"""

from __future__ import annotations

import asyncio

from summarizer.core.config import Settings
from summarizer.core.errors import LLMError
from summarizer.core.records import Record
from summarizer.core.report import Done
from summarizer.core.store import Store

from .note_task import NoteDraft, NoteTask, add_note_version
from .online import Regenerated, Regeneration, ask_fresh, record_failure, saved_regenerated

RegeneratedNote = Regenerated[NoteDraft]


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
    return saved_regenerated(store, record, answer, version.number, record.notes, notes=True)


NOTES = Regeneration(ask_note_again, save_regenerated_note, record_note_failure)


def regenerate_note(settings: Settings, store: Store, venue_id: str, paper_id: str, *, feedback: str | None) -> Done:
    """One fresh model call for the paper's note (the cache ignored); the result is a new draft note.  Call locked.

    The venue's lock is held for the whole call (``regen --notes``).  The review desk takes the same
    steps without holding it while the model thinks: ``ask_note_again`` unlocked, then, locked, its
    stale-page check and ``save_regenerated_note`` (or ``record_note_failure``).  A failure is recorded
    with the paper (stage ``notes``, the model's last output) and raised.
    """
    return NOTES.regenerate(settings, store, venue_id, paper_id, feedback=feedback)
