"""Answers for a sample of papers that touch no record: what ``summarizer eval --compare`` runs.

``answer_without_saving`` answers each paper from the answer cache when it holds the answer, else by
the model (``llm.max_concurrency`` at a time; the answer then goes into the cache, with what it cost
and how long it took, so the same configuration on the same papers never pays twice).  The answers
are returned, never written into a record: the caller keeps them where it likes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass

from summarizer.core.config import Settings
from summarizer.core.errors import NoInput, PaperError
from summarizer.core.progress import QUIET, Bar, Progress
from summarizer.core.records import Record
from summarizer.core.usage import Usage

from .answer_cache import AnswerCache
from .drafts import Draft
from .llm import LLMClient, usage_of
from .plan import Job, ask_model
from .task import SummaryTask


@dataclass
class TrialAnswer:
    """One paper's answer: the checked draft (None when it failed, with ``failure``), its cost and latency.

    ``usage`` and ``latency_s`` are those of the model call that made the answer, also when it came
    from the cache (``cached``), where the call was paid for earlier; ``latency_s`` is None when
    the cache entry did not record it.
    """

    paper_id: str
    draft: Draft | None
    usage: Usage
    latency_s: float | None
    cached: bool
    failure: str | None = None


class _Trial:
    def __init__(self, settings: Settings, bar: Bar):
        self.settings = settings
        self.task = SummaryTask(settings)
        self.cache = AnswerCache(settings.cache_dir)
        self.bar = bar
        self.client: LLMClient | None = None  # made for the first miss: a sample the cache answers needs no key

    def job(self, record: Record) -> Job | TrialAnswer:
        try:
            messages = self.task.messages(record)
        except NoInput as exc:
            return TrialAnswer(record.id, None, Usage(), None, False, exc.reason)
        return Job(record, messages, self.task.cache_key(messages))

    def cached(self, job: Job) -> TrialAnswer | None:
        entry = self.cache.get(job.key)
        draft = self.task.from_cache(entry) if entry else None
        if entry is None or draft is None:
            return None
        try:
            usage = Usage.model_validate(entry.get("usage") or {})
        except ValueError:
            usage = Usage()
        latency = entry.get("latency_s")
        return TrialAnswer(job.record.id, draft, usage, float(latency) if latency is not None else None, True)

    async def ask(self, job: Job) -> TrialAnswer:
        if self.client is None:
            self.client = LLMClient(self.settings.llm)
        started = time.monotonic()  # reported as the model's latency for this paper, never compared in a test
        try:
            draft, usage = await ask_model(self.client, self.task, job.messages, job.record.id)
        except PaperError as exc:
            return TrialAnswer(job.record.id, None, usage_of(exc), None, False, exc.reason)
        latency = time.monotonic() - started
        entry = self.task.cache_entry(draft)
        await asyncio.to_thread(
            self.cache.put, job.key, entry, draft.model, draft.prompt_hash, usage, latency_s=latency
        )
        return TrialAnswer(job.record.id, draft, usage, latency, False)

    async def answer(self, item: Job | TrialAnswer) -> TrialAnswer:
        found = item if isinstance(item, TrialAnswer) else self.cached(item) or await self.ask(item)
        self.bar.advance()
        return found

    async def answer_all(self, records: Sequence[Record]) -> list[TrialAnswer]:
        try:
            return list(await asyncio.gather(*(self.answer(self.job(record)) for record in records)))
        finally:
            if self.client is not None:
                await self.client.close()


def answer_without_saving(
    settings: Settings, records: Sequence[Record], *, label: str = "", progress: Progress = QUIET
) -> list[TrialAnswer]:
    """Each paper's answer under ``settings`` (its model, provider and prompts), in the order of ``records``.

    A paper with nothing to read or whose calls fail gets its ``failure``; a ``RunError`` (a refused
    key, an unwritable cache) stops the whole sample.
    """
    with progress.bar(f"answer {label}".strip(), total=len(records)) as bar:
        return asyncio.run(_Trial(settings, bar).answer_all(records))
