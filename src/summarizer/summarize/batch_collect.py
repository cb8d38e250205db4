"""Collecting a finished batch: each result line saved as soon as it is read, the rest asked again online.

An answer goes through the same checks as an online one (the task's ``spec().validate``) and into
the same answer cache; an invalid answer or a failed request is asked again online with the online
re-ask's feedback, within ``llm.max_attempts`` calls in all (the batch's answer counts as the
first).  Lines the batch never ran (expired, cancelled) are left for the next run, and so are the
papers of a batch whose result file the provider has deleted (``Collect.gone`` says why).  Cost is
each response's usage at ``llm.batch_price_factor`` × ``llm.price_per_million``.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from summarizer.core.config import Settings
from summarizer.core.errors import BatchFileGone, NoInput, OutputInvalidError, PaperError, TextRejected
from summarizer.core.usage import Usage

from .batch_api import BatchAPI, provider_words, whole_count
from .batch_state import BatchEntry, paper_hash, paper_of
from .llm import LLMClient, cut_off_problem, usage_of
from .plan import AnswerRun, Job, ask_model, run_together

# Error codes for lines the batch never ran: left for the next run, not re-asked online.
UNRUN = ("batch_expired", "batch_cancelled")


@dataclass
class _Retry:
    """A paper to ask again online: after an invalid answer (``raw`` and ``problems``) or a failed request."""

    job: Job
    usage: Usage
    raw: str | None = None
    problems: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class Collect:
    run: AnswerRun
    entry: BatchEntry
    retries: list[_Retry] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    unrun: int = 0
    gone: str = ""  # why the batch's results cannot be read any more (its result file was deleted)

    def job(self, cid: str) -> Job | None:
        """The paper behind a result line; None when it is not ours or no longer wants this answer.

        Ours: a request of this batch, naming this venue and a safe paper id (never another venue's record).
        """
        paper_id = paper_of(cid, self.run.venue_id)
        if paper_id is None or cid not in self.entry.requests or cid in self.seen:
            return None
        self.seen.add(cid)
        record = self.run.store.get(self.run.venue_id, paper_id)
        if record is None or self.run.task.skip_reason(record, self.entry.force) is not None:
            return None
        return Job(record, [], self.entry.requests[cid])


def _usage(settings: Settings, body: dict[str, Any]) -> Usage:
    usage = _dict(body.get("usage"))
    prompt, completion = whole_count(usage.get("prompt_tokens")), whole_count(usage.get("completion_tokens"))
    price, factor = settings.llm.price_per_million, settings.llm.batch_price_factor
    cost = factor * (prompt * price.input + completion * price.output) / 1_000_000
    return Usage(llm_calls=1, prompt_tokens=prompt, completion_tokens=completion, cost_usd=round(cost, 8))


def _take(c: Collect, line: str) -> None:
    """One line of an output or error file: the paper saved, or put up for an online retry."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError:
        return
    job = c.job(str(item.get("custom_id"))) if isinstance(item, dict) else None
    if job is None:
        return
    response = _dict(item.get("response"))
    body = _dict(response.get("body"))
    if item.get("error") or response.get("status_code") != 200:
        _failed_line(c, job, item.get("error"), response, body)
        return
    usage = _usage(c.run.settings, body)
    choices = body.get("choices")
    first = _dict(choices[0]) if isinstance(choices, list) and choices else {}
    raw = str(_dict(first.get("message")).get("content") or "")
    task = c.run.task
    spec = task.spec()
    try:
        checked = spec.validate(raw)
    except TextRejected as exc:
        problems = list(exc.problems)
        if first.get("finish_reason") == "length":  # as the online re-ask says it
            problems.append(cut_off_problem(spec, c.run.settings.llm))
        c.retries.append(_Retry(job, usage, raw=raw, problems=problems))
        return
    draft = task.answered(checked, c.run.settings.llm.model, paper_hash(item.get("custom_id")))
    if task.unchanged(job.record, draft):
        return  # saved by an earlier collection of this batch that was killed before it finished (--force)
    c.run.persist(job, draft, usage)
    c.run.count(draft, usage)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _failed_line(c: Collect, job: Job, error: Any, response: dict[str, Any], body: dict[str, Any]) -> None:
    code = error.get("code") if isinstance(error, dict) else None
    if code in UNRUN:
        c.unrun += 1
        return
    detail = _dict(body.get("error")) or _dict(error)
    message = provider_words(detail.get("message") or "no detail")
    status = response.get("status_code")
    reason = (
        f"the batch request failed (HTTP {status}): {message}" if status else f"the batch request failed: {message}"
    )
    c.retries.append(_Retry(job, Usage(), reason=reason))


def collect(api: BatchAPI, c: Collect, batch: Any) -> None:
    try:
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:  # "" means none, like None
                for line in api.lines(file_id):
                    if line.strip():
                        _take(c, line)
    except BatchFileGone as exc:  # what was read is saved; the rest is left to be summarised again
        c.gone = str(exc)
    missing = [cid for cid in c.entry.requests if cid not in c.seen]
    if batch.status == "completed" and not c.gone:
        for cid in missing:
            job = c.job(cid)
            if job is not None:
                c.retries.append(_Retry(job, Usage(), reason="the batch returned no result for this paper"))
    else:
        c.unrun += len(missing)


async def retry_online(run: AnswerRun, retries: list[_Retry]) -> None:
    settings = run.settings
    queue = deque(retries)
    attempts = settings.llm.max_attempts - 1  # the batch's answer was the first
    async with LLMClient(settings.llm) as client:

        async def worker() -> None:
            while queue:
                retry = queue.popleft()
                job = retry.job
                try:
                    job.messages = run.task.messages(job.record)
                except NoInput as exc:
                    run.fail(job, exc, retry.usage)
                    continue
                if retry.raw is not None:
                    job.messages = [*job.messages, *run.task.spec().reask(retry.raw, retry.problems)]
                try:
                    draft, usage = await ask_model(client, run.task, job.messages, job.record.id, max_attempts=attempts)
                except PaperError as exc:
                    usage = usage_of(exc)
                    usage.add(retry.usage)
                    run.fail(job, exc, usage)
                    continue
                usage.add(retry.usage)
                await asyncio.to_thread(run.persist, job, draft, usage)
                run.count(draft, usage)

        await run_together(*(worker() for _ in range(min(settings.llm.max_concurrency, len(retries)))))


def retry(run: AnswerRun, retries: list[_Retry]) -> None:
    """Online retries when ``max_attempts`` leaves room; otherwise each paper fails with its reason."""
    if not retries:
        return
    if run.settings.llm.max_attempts > 1:
        run.report.count("asked again online", len(retries))
        asyncio.run(retry_online(run, retries))
        return
    for retry in retries:
        reason = retry.reason or f"the batch's answer was invalid: {'; '.join(retry.problems)}"
        error = OutputInvalidError(reason, paper_id=retry.job.record.id, attempt=1, raw_output=retry.raw)
        run.fail(retry.job, error, retry.usage)
