"""One venue's summarize run, shared by the online and the Batch API paths.

Which papers need a summary (``papers_to_summarize``, ``skip_reason``), each paper's prompt and
cache key (``plan_jobs``), answers from the cache (``cached_draft``, ``serve_cached``), one paper
asked of the model (``ask_model``), and a paid answer saved for good (``persist``: the record
first, then the answer cache).  ``online`` and ``batch`` are peers over this module.
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
from summarizer.core.flags import DuplicateIndex
from summarizer.core.paper_text import paper_sections
from summarizer.core.progress import Bar
from summarizer.core.records import Record
from summarizer.core.report import Report
from summarizer.core.store import Store
from summarizer.core.usage import Usage

from .answer import answer_spec
from .answer_cache import AnswerCache
from .batch_state import VenueState, load_state
from .drafts import Draft, add_llm_version, draft_from_cache
from .llm import LLMClient
from .prompts import Prompts


async def ask_model(
    client: LLMClient,
    settings: Settings,
    prompts: Prompts,
    messages: list[dict[str, str]],
    paper_id: str,
    *,
    max_attempts: int | None = None,
) -> tuple[Draft, Usage]:
    """One paper's checked draft and what it cost; ``LLMError`` (its ``usage`` set) when the attempts run out."""
    result = await client.complete_validated(
        messages, answer_spec(settings, prompts), paper_id=paper_id, max_attempts=max_attempts
    )
    checked = result.value
    draft = Draft(
        summary=checked.summary,
        tags=checked.tags,
        field=checked.field,
        warnings=checked.warnings,
        model=result.model,
        prompt_hash=prompts.hash,
    )
    return draft, result.usage


@dataclass
class Job:
    """One paper to summarise: its record, the messages the model gets, the answer-cache key."""

    record: Record
    messages: list[dict[str, str]]
    key: str


@dataclass
class SummarizeRun:
    """One venue's summarize run (online or batch): its settings, counts, usage and report."""

    settings: Settings
    store: Store
    prompts: Prompts
    cache: AnswerCache
    report: Report
    usage: Usage = field(default_factory=Usage)
    done: int = 0
    cached: int = 0
    failed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    duplicates: DuplicateIndex | None = None  # the venue's summaries, for the near-duplicate warning

    def progress_line(self) -> str:
        tokens = self.usage.prompt_tokens + self.usage.completion_tokens
        return (
            f"{self.done} done · {self.failed} failed · {self.cached} cached · "
            f"{tokens:,} tokens · ${self.usage.cost_usd:.4f} spent"
        )

    def succeed(self, job: Job, draft: Draft, usage: Usage) -> None:
        self.save(job, draft, usage)
        self.count(draft, usage)

    def save(self, job: Job, draft: Draft, usage: Usage) -> None:
        """The paper's new version into its record, on disk (touches only this job's record: thread-safe)."""
        record = job.record
        if record.status == "rejected":
            record.status = "draft"  # --force: the paper goes back to review
            self.report.count("back in review (were rejected)")
        current = record.current
        if current is not None and current.same_content(draft.summary, draft.tags, draft.field):
            record.clear_failure("summarize")  # --force got the same answer: no second, identical version
            self.report.count("unchanged")
        else:
            add_llm_version(record, draft, settings=self.settings, duplicates=self.duplicates)
        record.usage.add(usage)
        self.store.save(record)

    def cache_failed(self, error: FileSystemError) -> None:
        """Told once a run: the answers are in the records, so nothing is lost, but a re-run would pay."""
        with self.lock:
            if self.report.problems:
                return
            self.report.problems.append(
                f"could not write the answer cache: {error}; every answer is saved in its record "
                f"(nothing paid for is lost), but until {self.cache.root} is writable no answer is reused"
            )

    def count(self, draft: Draft, usage: Usage) -> None:
        self.usage.add(usage)
        if draft.cached:
            self.cached += 1
            self.report.count("cached")
        else:
            self.done += 1
            self.report.count("summarized")

    def fail(self, job: Job, error: PaperError, usage: Usage) -> None:
        record = job.record
        record.usage.add(usage)
        self.usage.add(usage)
        if isinstance(error, LLMError):
            record.fail("summarize", error.reason, attempts=error.attempt, raw_output=error.raw_output)
        else:
            record.fail("summarize", error.reason)
        self.store.save(record)
        self.failed += 1
        self.report.fail(record.id, error.reason)


def skip_reason(record: Record, force: bool) -> str | None:
    """None when the paper is to be summarised, else the count it goes under."""
    current = record.current
    if record.status == "rejected" and not force:
        return "rejected (skipped)"
    if current is None:
        return None
    if not force:
        return "already summarized"
    if record.status == "approved" or current.origin != "llm":
        return "approved or edited (kept)"
    return None


def persist(run: SummarizeRun, job: Job, draft: Draft, usage: Usage) -> None:
    """A paid answer is kept: the record first, then the cache; a cache that cannot be written is
    reported once for the run, not fatal.  When the record cannot be written, the cache still gets
    the answer, so the next run (once the folder is fixed) does not pay for it again."""
    try:
        run.save(job, draft, usage)
    except BaseException:
        with contextlib.suppress(Exception):
            run.cache.put(job.key, draft, usage)
        raise
    try:
        run.cache.put(job.key, draft, usage)
    except FileSystemError as exc:
        run.cache_failed(exc)


async def run_together(*coroutines: Coroutine[Any, Any, None]) -> None:
    """Run these at once; the first exception (a RunError) cancels the rest and is raised."""
    tasks = [asyncio.create_task(coroutine) for coroutine in coroutines]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def start_run(settings: Settings, store: Store, venue_id: str) -> SummarizeRun:
    """A summarize run over one configured venue (the report carries the run's usage)."""
    settings.venue(venue_id)
    run = SummarizeRun(
        settings, store, Prompts.load(settings), AnswerCache(settings.cache_dir), Report("summarize", venue_id)
    )
    run.report.usage = run.usage
    return run


def papers_to_summarize(run: SummarizeRun, venue_id: str, *, force: bool = False) -> list[Record]:
    """The venue's papers that need a summary, in order; the others are counted under why (no text is read)."""
    records = run.store.records(venue_id)
    run.duplicates = DuplicateIndex.of(records)
    if not records:
        run.report.warn(f"{venue_id} has no papers yet: run `summarizer fetch {venue_id}` (or import) first")
    papers: list[Record] = []
    for record in records:
        skip = skip_reason(record, force) or _unfetched(run.settings, record)
        if skip is None:
            papers.append(record)
        else:
            run.report.count(skip)
    return papers


def _unfetched(settings: Settings, record: Record) -> str | None:
    """The count a paper `fetch` has not reached goes under: no text yet, and not one summarised from its abstract."""
    if record.fetch.text_path or record.fetch.abstract_only:
        return None
    try:
        paper_sections(settings, record)  # reads no file: without a text, only the abstract can be there
    except NoInput:
        return "not fetched"
    return None


def plan_jobs(
    run: SummarizeRun, papers: list[Record], limit: int | None = None, bar: Bar | None = None
) -> Iterator[Job]:
    """Each paper's job (its messages and cache key), made as it is asked for; at most ``limit`` of them.

    A paper whose text cannot be read fails with the reason (one more done on ``bar``) and does not
    count towards ``limit`` (it counts papers that will really be asked about).
    """
    planned = 0
    for record in papers:
        if limit is not None and planned >= limit:
            return
        try:
            sections = paper_sections(run.settings, record)
        except NoInput as exc:
            run.fail(Job(record, [], ""), exc, Usage())
            if bar is not None:
                bar.advance(run.progress_line())
            continue
        messages = run.prompts.messages(run.settings, record, sections)
        planned += 1
        yield Job(record, messages, AnswerCache.key(run.settings, run.prompts.hash, messages))


def cached_draft(run: SummarizeRun, job: Job) -> Draft | None:
    """The job's answer from the cache, when it is there and still passes the checks."""
    entry = run.cache.get(job.key)
    return draft_from_cache(entry, run.settings, run.prompts.hash) if entry else None


def serve_cached(run: SummarizeRun, jobs: list[Job], bar: Bar, *, force: bool = False) -> list[Job]:
    """Save every job whose answer is cached (unless ``force``); the rest (the misses) are returned."""
    misses: list[Job] = []
    for job in jobs:
        draft = None if force else cached_draft(run, job)
        if draft is None:
            misses.append(job)
        else:
            run.succeed(job, draft, Usage())
            bar.advance(run.progress_line())
    return misses


def skip_batched(
    run: SummarizeRun, venue_id: str, papers: list[Record], state: VenueState | None = None
) -> list[Record]:
    """The papers not waiting in a submitted batch (those are counted, not asked twice)."""
    pending = (state or load_state(run.settings.outputs_dir, venue_id)).pending_papers()
    kept = [record for record in papers if record.id not in pending]
    if len(kept) < len(papers):
        label = (
            "in a batch submitted before" if state else f"waiting in a batch (collect: summarize {venue_id} --batch)"
        )
        run.report.count(label, len(papers) - len(kept))
    return kept
