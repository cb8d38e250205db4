"""The Batch API path: ``summarize VENUE --batch`` (and ``run --batch``).

Every paper that needs a summary (the same selection, messages, model,
response format and sampling parameters as the online path) becomes one line
of a JSONL file; the file is uploaded (``files.create(purpose="batch")``,
streamed from disk) and a batch is created on ``/v1/chat/completions`` with
the ``24h`` window.  A venue over 50,000 requests or 200 MB is split into
several batches.

The submitted batches are written to ``outputs/state/<VENUE>.json`` (atomic)
*before* anything reaches the provider: an entry carries a token that is also
put in the batch's metadata, so a run killed between ``batches.create`` and
saving the id finds its batch again by listing the provider's batches.  A
later ``summarize --batch`` (after ``--no-wait``, Ctrl-C, kill -9, a reboot)
waits on the same batches and never submits a second one for their papers.

Waiting polls every ``llm.batch_poll_s`` seconds and prints a line when the
status or counts change.  The output and error files are read line by line;
each answer goes through ``parse_answer`` (schema, house rules, tags) and
each paper is saved (answer cache, record) as soon as its line is parsed.
Answers that fail validation are asked again online with the online re-ask's
feedback, and requests the batch reports as errors are asked again online,
within ``llm.max_attempts`` calls (the batch's counts as one).  Lines the
batch never ran (expired, cancelled, a failed batch) are left for the next
run, which says so.  Usage comes from each response; cost is
``llm.batch_price_factor`` x ``llm.price_per_million``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from summarizer.core.config import Settings
from summarizer.core.errors import BatchNotFound, NoInput, OutputInvalidError, PaperError, SummaryRejected, UsageError
from summarizer.core.paper_text import paper_sections
from summarizer.core.progress import QUIET, Progress
from summarizer.core.report import Report
from summarizer.core.store import Store
from summarizer.core.usage import Usage

from .answer import answer_spec, parse_answer
from .batch_api import ENDPOINT, TERMINAL, WINDOW, BatchAPI, BatchLimits, _count, _said, _shown
from .batch_state import BatchEntry, VenueState, custom_id, load_state, paper_hash, paper_of, save_state
from .chat_request import chat_request
from .drafts import Draft
from .llm import LLMClient, cut_off_problem, usage_of
from .plan import (
    Job,
    SummarizeRun,
    ask_model,
    papers_to_summarize,
    persist,
    plan_jobs,
    run_together,
    serve_cached,
    skip_batched,
    skip_reason,
    start_run,
)

DEFAULT_LIMITS = BatchLimits()
# Error codes for lines the batch never ran: left for the next run, not re-asked online.
UNRUN = ("batch_expired", "batch_cancelled")


# -- submitting --------------------------------------------------------------------------------------


@dataclass
class _Batches:
    """One ``summarize --batch`` of a venue: its run, its provider, its state file, its limits, its person."""

    run: SummarizeRun
    state: VenueState
    limits: BatchLimits
    progress: Progress
    _api: BatchAPI | None = None  # made when first needed: a run the cache answers needs no key

    @property
    def venue_id(self) -> str:
        return self.state.venue

    @property
    def api(self) -> BatchAPI:
        if self._api is None:
            self._api = BatchAPI(self.run.settings.llm, self.venue_id)
        return self._api

    def save(self) -> None:
        save_state(self.run.settings.outputs_dir, self.state)


def _line(run: SummarizeRun, venue_id: str, job: Job) -> tuple[str, bytes]:
    cid = custom_id(venue_id, job.record.id, run.prompts.hash)
    body = chat_request(run.settings.llm, job.messages, answer_spec(run.settings, run.prompts))
    line = {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body}
    return cid, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")


def _chunks(b: _Batches, jobs: list[Job]) -> Iterator[tuple[dict[str, str], IO[bytes]]]:
    """Temporary JSONL files within one batch's limits, each with its custom_id -> cache key map."""
    waiting = deque(jobs)
    while waiting:
        requests: dict[str, str] = {}
        size = 0
        with tempfile.TemporaryFile() as handle:
            while waiting:
                cid, data = _line(b.run, b.venue_id, waiting[0])
                full = len(requests) >= b.limits.max_requests or size + len(data) > b.limits.max_bytes
                if requests and full:
                    break
                handle.write(data)
                requests[cid] = waiting.popleft().key
                size += len(data)
            handle.seek(0)
            yield requests, handle


def _submit_one(b: _Batches, requests: dict[str, str], data: IO[bytes], force: bool) -> None:
    entry = BatchEntry(token=secrets.token_hex(8), created_after=int(time.time()) - 60, requests=requests)
    entry.total, entry.force = len(requests), force
    b.state.batches.append(entry)
    b.save()  # before the provider hears of it: a kill from here on is found again
    file_id = ""
    try:
        file_id = b.api.upload(f"{b.venue_id}-{entry.token}.jsonl", data)
        batch = b.api.create(file_id, {"summarizer_venue": b.venue_id, "summarizer_token": entry.token})
    except UsageError:  # no batch endpoint: nothing may stay half-submitted
        b.state.batches.remove(entry)
        b.save()
        if file_id:
            b.api.delete_file(file_id)
        raise
    _note(entry, batch)
    b.save()
    b.progress.say(f"submitted batch {_shown(entry.id)}: {entry.total} requests")


def _note(entry: BatchEntry, batch: Any) -> bool:
    """Copy the batch's id, status and counts into its entry; True when something changed."""
    counts = batch.request_counts
    done, failed = (_count(counts.completed), _count(counts.failed)) if counts else (0, 0)
    seen = (str(batch.id), _said(batch.status)[:40], done, failed)
    before = (entry.id, entry.status, entry.completed, entry.failed)
    entry.id, entry.status, entry.completed, entry.failed = seen
    if counts and _count(counts.total):
        entry.total = _count(counts.total)
    return seen != before


def _adopt(b: _Batches) -> None:
    """Entries without an id: the batch a killed run created (found by its token), else dropped to plan again."""
    lost = [e for e in b.state.batches if e.id is None]
    for entry in lost:
        found = b.api.find(entry.token, entry.created_after)
        if found is None:
            b.state.batches.remove(entry)
        else:
            _note(entry, found)
    if lost:
        b.save()


# -- waiting and collecting --------------------------------------------------------------------------


def _wait(b: _Batches, entry: BatchEntry) -> Any:
    batch_id, shown = str(entry.id), _shown(entry.id)
    first = True
    with b.progress.wait_bar(f"batch {shown}", total=entry.total) as bar:
        while True:
            batch = _retrieve(b, entry)
            if _note(entry, batch) or first:  # a line at the start and whenever the status or the counts move
                first = False
                b.save()
                b.progress.say(
                    f"batch {shown}: {entry.status}, {entry.completed}/{entry.total} completed, {entry.failed} failed"
                )
            bar.reach(entry.completed + entry.failed, f"{entry.status} · {entry.failed} failed")
            if batch.status in TERMINAL:
                return batch
            if batch.status != "cancelling" and _stuck(batch, b.limits):
                b.progress.warn(f"batch {shown} is still {entry.status} an hour after its window closed: cancelling it")
                b.api.cancel(batch_id)
            time.sleep(b.run.settings.llm.batch_poll_s)


def _stuck(batch: Any, limits: BatchLimits) -> bool:
    """Still running ``limits.stuck_after_s`` after its window closed (a batch without an expiry never is)."""
    expires_at = _count(batch.expires_at)
    return expires_at > 0 and time.time() > expires_at + limits.stuck_after_s


def _retrieve(b: _Batches, entry: BatchEntry) -> Any:
    """The batch now; one the provider does not know (404) is forgotten, so its papers can be submitted again."""
    try:
        return b.api.retrieve(str(entry.id))
    except BatchNotFound:
        entry.collected, entry.status, entry.requests = True, "not found", {}
        b.save()
        raise


@dataclass
class _Retry:
    """A paper to ask again online: after an invalid answer (``raw`` and ``problems``) or a failed request."""

    job: Job
    usage: Usage
    raw: str | None = None
    problems: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class _Collect:
    run: SummarizeRun
    venue: str
    entry: BatchEntry
    retries: list[_Retry] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    unrun: int = 0

    def job(self, cid: str) -> Job | None:
        """The paper behind a result line; None when it is not ours or no longer wants this answer."""
        if cid not in self.entry.requests or cid in self.seen:
            return None
        self.seen.add(cid)
        record = self.run.store.get(self.venue, paper_of(cid))
        if record is None or skip_reason(record, self.entry.force) is not None:
            return None
        return Job(record, [], self.entry.requests[cid])


def _usage(settings: Settings, body: dict[str, Any]) -> Usage:
    usage = _dict(body.get("usage"))
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    price, factor = settings.llm.price_per_million, settings.llm.batch_price_factor
    cost = factor * (prompt * price.input + completion * price.output) / 1_000_000
    return Usage(llm_calls=1, prompt_tokens=prompt, completion_tokens=completion, cost_usd=round(cost, 8))


def _take(c: _Collect, line: str) -> None:
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
    try:
        checked = parse_answer(raw, c.run.settings)
    except SummaryRejected as exc:
        problems = list(exc.problems)
        if first.get("finish_reason") == "length":  # as the online re-ask says it
            problems.append(cut_off_problem(c.run.settings.llm.max_output_tokens))
        c.retries.append(_Retry(job, usage, raw=raw, problems=problems))
        return
    current = job.record.current
    if current is not None and current.same_content(checked.summary, checked.tags, checked.field):
        return  # saved by an earlier collection of this batch that was killed before it finished (--force)
    draft = Draft(
        summary=checked.summary,
        tags=checked.tags,
        field=checked.field,
        warnings=checked.warnings,
        model=c.run.settings.llm.model,
        prompt_hash=paper_hash(item.get("custom_id")),
    )
    persist(c.run, job, draft, usage)
    c.run.count(draft, usage)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _failed_line(c: _Collect, job: Job, error: Any, response: dict[str, Any], body: dict[str, Any]) -> None:
    code = error.get("code") if isinstance(error, dict) else None
    if code in UNRUN:
        c.unrun += 1
        return
    detail = _dict(body.get("error")) or _dict(error)
    message = _said(detail.get("message") or "no detail")
    status = response.get("status_code")
    reason = (
        f"the batch request failed (HTTP {status}): {message}" if status else f"the batch request failed: {message}"
    )
    c.retries.append(_Retry(job, Usage(), reason=reason))


def _collect(api: BatchAPI, c: _Collect, batch: Any) -> None:
    for file_id in (batch.output_file_id, batch.error_file_id):
        if file_id:  # "" means none, like None
            for line in api.lines(file_id):
                if line.strip():
                    _take(c, line)
    missing = [cid for cid in c.entry.requests if cid not in c.seen]
    if batch.status == "completed":
        for cid in missing:
            job = c.job(cid)
            if job is not None:
                c.retries.append(_Retry(job, Usage(), reason="the batch returned no result for this paper"))
    else:
        c.unrun += len(missing)


# -- online retries ----------------------------------------------------------------------------------


async def _retry_online(run: SummarizeRun, retries: list[_Retry]) -> None:
    settings = run.settings
    queue = deque(retries)
    attempts = settings.llm.max_attempts - 1  # the batch's answer was the first
    async with LLMClient(settings.llm) as client:

        async def worker() -> None:
            while queue:
                retry = queue.popleft()
                job = retry.job
                try:
                    job.messages = run.prompts.messages(settings, job.record, paper_sections(settings, job.record))
                except NoInput as exc:
                    run.fail(job, exc, retry.usage)
                    continue
                if retry.raw is not None:
                    job.messages = [*job.messages, *run.prompts.reask(retry.raw, retry.problems)]
                try:
                    draft, usage = await ask_model(
                        client, settings, run.prompts, job.messages, job.record.id, max_attempts=attempts
                    )
                except PaperError as exc:
                    usage = usage_of(exc)
                    usage.add(retry.usage)
                    run.fail(job, exc, usage)
                    continue
                usage.add(retry.usage)
                await asyncio.to_thread(persist, run, job, draft, usage)
                run.count(draft, usage)

        await run_together(*(worker() for _ in range(min(settings.llm.max_concurrency, len(retries)))))


def _retry(run: SummarizeRun, retries: list[_Retry]) -> None:
    """Online retries when ``max_attempts`` leaves room; otherwise each paper fails with its reason."""
    if not retries:
        return
    if run.settings.llm.max_attempts > 1:
        run.report.count("asked again online", len(retries))
        asyncio.run(_retry_online(run, retries))
        return
    for retry in retries:
        reason = retry.reason or f"the batch's answer was invalid: {'; '.join(retry.problems)}"
        error = OutputInvalidError(reason, paper_id=retry.job.record.id, attempt=1, raw_output=retry.raw)
        run.fail(retry.job, error, retry.usage)


# -- the stage ---------------------------------------------------------------------------------------


def summarize_venue_batch(
    settings: Settings,
    store: Store,
    venue_id: str,
    *,
    limit: int | None = None,
    force: bool = False,
    wait: bool = True,
    limits: BatchLimits = DEFAULT_LIMITS,
    progress: Progress = QUIET,
) -> Report:
    """Summarise the venue through the Batch API (see the module doc)."""
    run = start_run(settings, store, venue_id)
    b = _Batches(run, load_state(settings.outputs_dir, venue_id), limits, progress)
    if b.state.open():
        _adopt(b)
    papers = skip_batched(run, venue_id, papers_to_summarize(run, venue_id, force=force), b.state)
    jobs = list(plan_jobs(run, papers, limit))
    with progress.bar(f"summarize {venue_id} (cached)", total=len(jobs)) as bar:
        misses = serve_cached(run, jobs, bar, force=force)
    if misses:
        for requests, data in _chunks(b, misses):
            _submit_one(b, requests, data, force)
        run.report.count("sent in a batch", len(misses))
    if not b.state.open():
        return run.report
    if not wait:
        progress.say(
            f"{len(b.state.open())} batch(es) running on the provider's side (up to {WINDOW}); collect the results "
            f"with `summarizer summarize {venue_id} --batch` (it waits on the same batches, never submits them again)"
        )
        return run.report
    for entry in b.state.open():
        _finish(b, entry)
    return run.report


def _finish(b: _Batches, entry: BatchEntry) -> None:
    """Wait for one batch, save its answers, retry the rest online, and mark it collected."""
    batch = _wait(b, entry)
    c = _Collect(b.run, b.venue_id, entry)
    _collect(b.api, c, batch)
    _retry(b.run, c.retries)
    entry.collected = True
    entry.requests = {}
    b.save()
    if entry.status != "completed":
        errors = getattr(batch.errors, "data", None) or []
        why = _said("; ".join(str(e.message) for e in errors if getattr(e, "message", None)))
        b.run.report.fail(
            f"batch {_shown(entry.id)}",
            f"{entry.status}{f' ({why})' if why else ''}: {c.unrun} papers not summarised; run "
            f"`summarizer summarize {b.venue_id} --batch` to submit them again (or without --batch to ask online)",
        )
