"""Summarize online: each paper asked of the model, ``llm.max_concurrency`` at a time.

``answer_online`` of a summaries run writes a draft version into every fetched paper's record that has none (the
PDF's text, or the arXiv abstract when only that is known).  Answers are cached (``answer_cache``),
so a re-run makes no call.  ``--force`` ignores the cache and redoes model drafts and rejected
papers, but never touches an approved paper or one whose current version a person wrote or
imported.  Each record is saved as soon as its paper finishes (in a thread, while its worker asks
about the next paper), so an interrupted run loses only the papers in flight.

``regenerate`` is the one-paper action behind ``regen VENUE/ID --feedback TEXT``, and its steps
(``ask_again``, ``save_regenerated``, ``record_failure``) the review desk's regenerate button: one
fresh call (more only when an attempt fails), no cache, the previous summary and the feedback
(审稿意见) in the prompt; the result waits as a draft.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from summarizer.core.config import Settings
from summarizer.core.errors import LLMError, NoInput, PaperError, UsageError
from summarizer.core.flags import DuplicateIndex
from summarizer.core.progress import QUIET, Bar, Progress
from summarizer.core.records import Record, Reviewed, Stage
from summarizer.core.report import Done, Report, usage_line
from summarizer.core.store import Store
from summarizer.core.usage import Usage

from .drafts import Draft, add_llm_version
from .llm import LLMClient, usage_of
from .plan import AnswerRun, Job, Pick, ask_model, run_together
from .task import SummaryTask, Task

A = TypeVar("A")  # a kind of answer: a summary's Draft, a NoteDraft


async def aregenerate_summary(
    settings: Settings, record: Record, *, feedback: str | None = None
) -> tuple[Draft, Usage]:
    """One fresh model call for one paper (more only if an attempt fails), ignoring the cache.

    With ``feedback`` the prompt carries the previous summary and the editor's
    words (审稿意见).  Nothing is written: the caller adds the version
    (``add_llm_version(record, draft, feedback=feedback)``), adds the usage to
    ``record.usage`` and saves.  Raises ``UsageError`` when the paper has nothing
    to summarise, ``MissingAPIKeyError`` / ``AuthenticationFailed`` (exit 2),
    or ``LLMError`` / ``OutputInvalidError`` (``.raw_output`` kept) when the
    attempts run out; ``llm.usage_of(error)`` is what the failed calls cost.
    """
    return await ask_fresh(SummaryTask(settings), record, feedback=feedback)


async def ask_fresh(task: Task, record: Record, *, feedback: str | None) -> tuple[Any, Usage]:
    """One fresh call of ``task`` for ``record`` (the cache ignored); ``UsageError`` when it has nothing to read."""
    try:
        messages = task.messages(record, feedback=feedback)
    except NoInput as exc:
        raise UsageError(f"{record.venue}/{record.id}: {exc}") from exc
    async with LLMClient(task.settings.llm) as client:
        return await ask_model(client, task, messages, record.id)


def regenerate_summary(settings: Settings, record: Record, *, feedback: str | None = None) -> tuple[Draft, Usage]:
    """Synchronous ``aregenerate_summary``."""
    return asyncio.run(aregenerate_summary(settings, record, feedback=feedback))


@dataclass
class Regenerated(Generic[A]):
    """A fresh answer for one paper (a summary's ``Draft``, a ``NoteDraft``), not saved yet (``ask_again``,
    ``notes.ask_note_again``; ``save_regenerated``, ``notes.save_regenerated_note`` save it)."""

    draft: A
    usage: Usage
    feedback: str | None


def ask_again(settings: Settings, record: Record, *, feedback: str | None) -> Regenerated[Draft]:
    """The model's fresh answer for ``record`` as loaded: needs no lock and writes nothing.

    Raises as ``regenerate_summary``; on an ``LLMError`` the caller notes it with ``record_failure``.
    """
    draft, usage = regenerate_summary(settings, record, feedback=feedback)
    return Regenerated(draft, usage, feedback)


def record_failure(store: Store, venue_id: str, paper_id: str, error: LLMError, *, stage: Stage = "summarize") -> None:
    """Note a failed regeneration in the paper's record (what it cost, the model's last output).  Call locked."""
    record = store.load(venue_id, paper_id)
    record.usage.add(usage_of(error))
    record.fail(stage, error.reason, attempts=error.attempt, raw_output=error.raw_output)
    store.save(record)


def save_regenerated(settings: Settings, store: Store, record: Record, answer: Regenerated[Draft]) -> Done:
    """Add the answer to ``record`` as its new draft version and save.  Call locked, ``record`` loaded under the lock.

    On an approved paper the approved version stays published and the new one waits as a pending draft.
    """
    duplicates = DuplicateIndex.of(store.records(record.venue))
    version = add_llm_version(record, answer.draft, feedback=answer.feedback, settings=settings, duplicates=duplicates)
    return saved_regenerated(store, record, answer, version.number, record.summaries)


def saved_regenerated(
    store: Store, record: Record, answer: Regenerated[Any], number: int, reviewed: Reviewed[Any], *, notes: bool = False
) -> Done:
    """Save ``record``, which holds the answer as version ``number`` of ``reviewed`` (the paper's summaries, its
    ``notes``), with what the answer cost; what was done, and what to review.  Call locked."""
    record.usage.add(answer.usage)
    store.save(record)
    ref = f"{record.venue}/{record.id}"
    kind, review = ("note version", "summarizer review notes") if notes else ("version", "summarizer review")
    done = Done([f"{ref}: {kind} {number} written by {answer.draft.model} ({usage_line(answer.usage)})"])
    if reviewed.has_pending_draft:
        done.lines.append(
            f"{kind} {reviewed.approved_version} stays published; to publish the new one: {review} approve {ref}"
        )
    else:
        done.lines.append(f"review it: {review} show {ref}")
    return done


class AskAgain(Protocol):
    def __call__(self, settings: Settings, record: Record, *, feedback: str | None) -> Regenerated[Any]: ...


@dataclass(frozen=True)
class Regeneration:
    """One kind's regenerate steps (``SUMMARIES`` here, ``notes.NOTES``): ``ask`` the model with no lock held
    (``UsageError`` when the paper has nothing to read, ``LLMError`` when the attempts run out); then, locked,
    ``save`` the answer (``settings, store, record loaded under the lock, answer``) or ``fail``: note the
    ``LLMError`` in the paper's record (``store, venue_id, paper_id, error``)."""

    ask: AskAgain
    save: Callable[[Settings, Store, Record, Regenerated[Any]], Done]
    fail: Callable[[Store, str, str, LLMError], None]

    def regenerate(
        self, settings: Settings, store: Store, venue_id: str, paper_id: str, *, feedback: str | None
    ) -> Done:
        """The three steps under the venue's lock, held for the whole call (the caller's): a failure is recorded
        with the paper, with the model's last raw output, and raised."""
        record = store.load(venue_id, paper_id)
        try:
            answer = self.ask(settings, record, feedback=feedback)
        except LLMError as exc:  # this paper's failure; a refused key (AuthenticationFailed) is not one
            self.fail(store, venue_id, paper_id, exc)
            raise
        return self.save(settings, store, record, answer)


SUMMARIES = Regeneration(ask_again, save_regenerated, record_failure)


def regenerate(settings: Settings, store: Store, venue_id: str, paper_id: str, *, feedback: str | None) -> Done:
    """One fresh model call (the cache is ignored); the result is a new draft version.  Call locked.

    The venue's lock is held for the whole call (``summarizer regen``).  The review desk takes the
    same steps without holding it while the model thinks: ``ask_again`` unlocked, then, locked,
    its stale-page check and ``save_regenerated`` (or ``record_failure``).  A failure is recorded in
    the paper's record, with the model's last raw output, and raised.
    """
    return SUMMARIES.regenerate(settings, store, venue_id, paper_id, feedback=feedback)


class _OnlinePass:
    """Every job answered, from the cache or by the model, with ``workers`` papers at the model at once.

    Jobs are planned (the paper's text read, its prompt rendered, the cache looked up) one at a time
    on the event loop beside the workers: the first requests go out once the first papers are
    planned, and the rest are planned while the model answers those.
    """

    def __init__(self, run: AnswerRun, bar: Bar, *, workers: int, force: bool):
        self.run = run
        self.bar = bar
        self.workers = workers
        self.force = force
        self.todo: asyncio.Queue[Job | None] = asyncio.Queue()
        self._client: LLMClient | None = None  # made for the first cache miss: a run the cache answers needs no key

    async def answer(self, jobs: Iterator[Job]) -> None:
        try:
            await run_together(self._plan(jobs), *(self._work() for _ in range(self.workers)))
        finally:
            if self._client is not None:
                await self._client.close()

    def client(self) -> LLMClient:
        if self._client is None:
            self._client = LLMClient(self.run.settings.llm)
        return self._client

    async def _plan(self, jobs: Iterator[Job]) -> None:
        for job in jobs:
            draft = None if self.force else self.run.cached_draft(job)
            if draft is None:
                self.todo.put_nowait(job)
            else:
                await asyncio.to_thread(self.run.save, job, draft, Usage())
                self._counted(draft, Usage())
            await asyncio.sleep(0)  # the workers send what is planned before the next paper is
        for _ in range(self.workers):
            self.todo.put_nowait(None)

    async def _work(self) -> None:
        run = self.run
        saving: asyncio.Task[None] | None = None
        try:
            while (job := await self.todo.get()) is not None:
                try:
                    draft, usage = await ask_model(self.client(), run.task, job.messages, job.record.id)
                except PaperError as exc:  # this paper only; a RunError (a refused key, a full disk) ends the run
                    run.fail(job, exc, usage_of(exc))
                    self.bar.advance(run.progress_line())
                    continue
                # The answer is written while this worker asks about its next paper, one answer at a
                # time: a write that failed (a full disk) ends the run when the next answer comes in.
                previous, saving = saving, asyncio.create_task(self._save(job, draft, usage))
                if previous is not None:
                    await asyncio.shield(previous)
        finally:
            if saving is not None:
                await asyncio.shield(saving)

    async def _save(self, job: Job, draft: Any, usage: Usage) -> None:
        # The writes (record, answer cache; fsync'd) and the suspicion checks run in a thread, off
        # the event loop that every worker's requests and answers go through.
        await asyncio.to_thread(self.run.persist, job, draft, usage)
        self._counted(draft, usage)

    def _counted(self, draft: Any, usage: Usage) -> None:
        self.run.count(draft, usage)
        self.bar.advance(self.run.progress_line())


def answer_online(run: AnswerRun, pick: Pick, progress: Progress = QUIET) -> Report:
    """Ask the model, ``llm.max_concurrency`` papers at a time, for the picked papers the run's task (summaries, notes)
    has no answer for yet (see the module doc)."""
    papers = run.skip_batched(run.papers_to_answer(pick))
    total = len(papers) if pick.limit is None else min(pick.limit, len(papers))
    with progress.bar(f"{run.task.command} {run.venue_id}", total=total) as bar:
        if total:
            workers = min(run.settings.llm.max_concurrency, total)
            online = _OnlinePass(run, bar, workers=workers, force=pick.force)
            asyncio.run(online.answer(run.plan_jobs(papers, pick.limit, bar)))
    return run.report
