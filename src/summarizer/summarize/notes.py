"""``summarizer notes``: a per-paper note for every paper whose summary is approved, online or batched.

The same run as summaries (``plan``, ``online``, ``batch``) over ``note_task.NoteTask``: one model
call per paper, ``llm.max_concurrency`` at a time, paced, cached, resumed after a kill, or through
the Batch API at its price.  ``regenerate_note`` is ``regen VENUE/ID --notes --feedback TEXT``: one
fresh call with the previous note and the editor's words; the result waits as a draft note.
"""

from __future__ import annotations

import asyncio

from summarizer.core.config import Settings
from summarizer.core.errors import LLMError
from summarizer.core.progress import QUIET, Progress
from summarizer.core.report import Done, Report, usage_line
from summarizer.core.store import Store

from .batch import DEFAULT_LIMITS, summarize_venue_batch
from .batch_api import BatchLimits
from .llm import usage_of
from .note_task import NoteTask, add_note_version
from .online import ask_fresh, summarize_venue


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


def regenerate_note(settings: Settings, store: Store, venue_id: str, paper_id: str, *, feedback: str | None) -> Done:
    """One fresh model call for the paper's note (the cache ignored); the result is a new draft note.  Call locked.

    On an approved note the approved version stays published and the new one waits as a pending draft.
    A failure is recorded with the paper (stage ``notes``, the model's last output) and raised.
    """
    record = store.load(venue_id, paper_id)
    task = NoteTask(settings)
    try:
        draft, usage = asyncio.run(ask_fresh(task, record, feedback=feedback))
    except LLMError as exc:
        record.usage.add(usage_of(exc))
        record.fail("notes", exc.reason, attempts=exc.attempt, raw_output=exc.raw_output)
        store.save(record)
        raise
    version = add_note_version(settings, record, draft, feedback=feedback)
    record.usage.add(usage)
    store.save(record)
    ref = f"{venue_id}/{paper_id}"
    done = Done([f"{ref}: note version {version.number} written by {draft.model} ({usage_line(usage)})"])
    if record.notes.has_pending_draft:
        done.lines.append(
            f"note version {record.notes.approved_version} stays published; "
            f"to publish the new one: summarizer review notes approve {ref}"
        )
    else:
        done.lines.append(f"review it: summarizer review notes show {ref}")
    return done
