"""One venue's run of a ``Task`` (summaries or notes), shared by the online and the Batch API paths.

A run (``AnswerRun``, made by ``start_run``) holds its venue: which papers need an answer
(``papers_to_answer`` of a ``Pick``, the task's ``skip_reason``; ``skip_batched``), each paper's
prompt and cache key (``plan_jobs``), answers from the cache (``cached_draft``, ``serve_cached``),
and a paid answer saved for good (``persist``: the record first, then the answer cache).  One
paper asked of the model is ``ask_model``.  ``online`` and ``batch`` are peers over this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any

from summarizer.core.config import Settings
from summarizer.core.errors import FileSystemError, LLMError, NoInput, PaperError
from summarizer.core.progress import Bar
from summarizer.core.records import Record
from summarizer.core.report import Report
from summarizer.core.store import Store
from summarizer.core.usage import Usage

from .answer_cache import AnswerCache
from .batch_state import VenueState, load_state
from .llm import LLMClient
from .task import SummaryTask, Task


async def ask_model(
    client: LLMClient,
    task: Task,
    messages: list[dict[str, str]],
    paper_id: str,
    *,
    max_attempts: int | None = None,
) -> tuple[Any, Usage]:
    """One paper's checked answer and what it cost; ``LLMError`` (its ``usage`` set) when the attempts run out."""
    result = await client.complete_validated(messages, task.spec(), paper_id=paper_id, max_attempts=max_attempts)
    return task.answered(result.value, result.model, task.prompt_hash), result.usage


@dataclass
class Job:
    """One paper to ask about: its record, the messages the model gets, the answer-cache key."""

    record: Record
    messages: list[dict[str, str]]
    key: str


@dataclass
class Pick:
    """Which of a venue's papers a run asks about: ``only`` these ids (else every one), those answered already
    again with ``force`` (as the task allows), at most ``limit`` of them."""

    limit: int | None = None
    force: bool = False
    only: list[str] | None = None


@dataclass
class AnswerRun:
    """One venue's run of a task (summaries or notes; online or batch): its settings, counts, usage and report."""

    settings: Settings
    store: Store
    venue_id: str
    task: Task
    cache: AnswerCache
    report: Report
    usage: Usage = field(default_factory=Usage)
    done: int = 0
    cached: int = 0
    failed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def progress_line(self) -> str:
        tokens = self.usage.prompt_tokens + self.usage.completion_tokens
        return (
            f"{self.done} done · {self.failed} failed · {self.cached} cached · "
            f"{tokens:,} tokens · ${self.usage.cost_usd:.4f} spent"
        )

    def papers_to_answer(self, pick: Pick) -> list[Record]:
        """The venue's papers that need an answer, in order (``pick.only``: these ids); the others are counted under
        why.

        No paper's text is read here.  ``UnknownPaper`` names an id of ``only`` the venue has no record of.
        """
        records = self.store.records(self.venue_id)
        self.task.prepare(records)
        if not records:
            self.report.warn(
                f"{self.venue_id} has no papers yet: run `summarizer fetch {self.venue_id}` (or import) first"
            )
        if pick.only is not None:
            records = self._named(records, pick.only)
        papers: list[Record] = []
        for record in records:
            skip = self.task.skip_reason(record, pick.force)
            if skip is None:
                papers.append(record)
            else:
                self.report.count(skip)
        return papers

    def _named(self, records: list[Record], only: list[str]) -> list[Record]:
        by_id = {record.id: record for record in records}
        for paper_id in only:
            if paper_id not in by_id:
                self.store.load(self.venue_id, paper_id)  # UnknownPaper, in the store's words (or a corrupt record's)
        return [by_id[paper_id] for paper_id in dict.fromkeys(only) if paper_id in by_id]

    def skip_batched(self, papers: list[Record], state: VenueState | None = None) -> list[Record]:
        """The papers not waiting in a submitted batch (those are counted, not asked twice)."""
        pending = (state or load_state(self.settings.outputs_dir, self.venue_id, self.task.kind)).pending_papers()
        kept = [record for record in papers if record.id not in pending]
        if len(kept) < len(papers):
            collect = f"collect: {self.task.command} {self.venue_id} --batch"
            label = "in a batch submitted before" if state else f"waiting in a batch ({collect})"
            self.report.count(label, len(papers) - len(kept))
        return kept

    def plan_jobs(self, papers: list[Record], limit: int | None = None, bar: Bar | None = None) -> Iterator[Job]:
        """Each paper's job (its messages and cache key), made as it is asked for; at most ``limit`` of them.

        A paper whose text cannot be read fails with the reason (one more done on ``bar``) and does not
        count towards ``limit`` (it counts papers that will really be asked about).
        """
        planned = 0
        for record in papers:
            if limit is not None and planned >= limit:
                return
            try:
                messages = self.task.messages(record)
            except NoInput as exc:
                self.fail(Job(record, [], ""), exc, Usage())
                if bar is not None:
                    bar.advance(self.progress_line())
                continue
            planned += 1
            yield Job(record, messages, self.task.cache_key(messages))

    def cached_draft(self, job: Job) -> Any | None:
        """The job's answer from the cache, when it is there and still passes the checks."""
        entry = self.cache.get(job.key)
        return self.task.from_cache(entry) if entry else None

    def serve_cached(self, jobs: list[Job], bar: Bar, *, force: bool = False) -> list[Job]:
        """Save every job whose answer is cached (unless ``force``); the rest (the misses) are returned."""
        misses: list[Job] = []
        for job in jobs:
            draft = None if force else self.cached_draft(job)
            if draft is None:
                misses.append(job)
            else:
                self.succeed(job, draft, Usage())
                bar.advance(self.progress_line())
        return misses

    def succeed(self, job: Job, draft: Any, usage: Usage) -> None:
        self.save(job, draft, usage)
        self.count(draft, usage)

    def save(self, job: Job, draft: Any, usage: Usage) -> None:
        """The paper's new version into its record, on disk (touches only this job's record: thread-safe)."""
        record = job.record
        for label in self.task.apply(record, draft):
            self.report.count(label)
        record.usage.add(usage)
        self.store.save(record)

    def persist(self, job: Job, draft: Any, usage: Usage) -> None:
        """A paid answer is kept: the record first, then the cache; a cache that cannot be written is
        reported once for the run, not fatal.  When the record cannot be written, the cache still gets
        the answer, so the next run (once the folder is fixed) does not pay for it again."""
        try:
            self.save(job, draft, usage)
        except BaseException:
            with contextlib.suppress(Exception):
                self._cache_put(job, draft, usage)
            raise
        try:
            self._cache_put(job, draft, usage)
        except FileSystemError as exc:
            self.cache_failed(exc)

    def _cache_put(self, job: Job, draft: Any, usage: Usage) -> None:
        self.cache.put(job.key, self.task.cache_entry(draft), draft.model, draft.prompt_hash, usage)

    def cache_failed(self, error: FileSystemError) -> None:
        """Told once a run: the answers are in the records, so nothing is lost, but a re-run would pay."""
        with self.lock:
            if self.report.problems:
                return
            self.report.problems.append(
                f"could not write the answer cache: {error}; every answer is saved in its record "
                f"(nothing paid for is lost), but until {self.cache.root} is writable no answer is reused"
            )

    def count(self, draft: Any, usage: Usage) -> None:
        self.usage.add(usage)
        if draft.cached:
            self.cached += 1
            self.report.count("cached")
        else:
            self.done += 1
            self.report.count(self.task.done_label)

    def fail(self, job: Job, error: PaperError, usage: Usage) -> None:
        record = job.record
        record.usage.add(usage)
        self.usage.add(usage)
        if isinstance(error, LLMError):
            record.fail(self.task.stage, error.reason, attempts=error.attempt, raw_output=error.raw_output)
        else:
            record.fail(self.task.stage, error.reason)
        self.store.save(record)
        self.failed += 1
        self.report.fail(record.id, error.reason)


async def run_together(*coroutines: Coroutine[Any, Any, None]) -> None:
    """Run these at once; the first exception (a RunError) cancels the rest and is raised."""
    tasks = [asyncio.create_task(coroutine) for coroutine in coroutines]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def start_run(settings: Settings, store: Store, venue_id: str, task: Task | None = None) -> AnswerRun:
    """A run of ``task`` (default: summaries) over one configured venue (the report carries the run's usage)."""
    settings.venue(venue_id)
    task = task or SummaryTask(settings)
    cache = AnswerCache(settings.cache_dir)
    cache.remove_leftover_temp_files()
    run = AnswerRun(settings, store, venue_id, task, cache, Report(task.command, venue_id))
    run.report.usage = run.usage
    return run
