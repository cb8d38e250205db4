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
import contextlib
import json
import secrets
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, TypeVar

import openai
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import console
from .config import SAFE_ID, LLMSettings, Settings
from .console import StageReport
from .errors import (
    NoInput,
    OutputInvalidError,
    PaperError,
    RecordError,
    RunError,
    SummaryRejected,
    UsageError,
)
from .fsutil import atomic_write_text
from .llm import LLMClient, chat_request, cut_off_problem, key_refused, usage_of
from .store import Record, Store, Usage, now_iso
from .summarize import (
    Draft,
    Job,
    SummarizeRun,
    answer_spec,
    ask_model,
    paper_sections,
    papers_to_summarize,
    parse_answer,
    persist,
    plan_jobs,
    run_together,
    serve_cached,
    skip_reason,
    start_run,
)
from .textsafe import clean_line, terminal_safe

# The provider's limits per batch (OpenAI's Batch guide); module constants so tests can shrink them.
MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1024 * 1024
ENDPOINT: Final = "/v1/chat/completions"
WINDOW: Final = "24h"
TERMINAL = ("completed", "failed", "expired", "cancelled")
STATE_DIR = "state"
# Error codes for lines the batch never ran: left for the next run, not re-asked online.
UNRUN = ("batch_expired", "batch_cancelled")
# A batch still running this long after its window closed is stuck (it happens: "stuck in finalizing"
# incidents): cancel it, keep what it finished, and let the next run submit the rest.
STUCK_AFTER_S = 3600

T = TypeVar("T")


# -- the venue's state ---------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BatchEntry(_Model):
    token: str  # also in the batch's metadata: finds a batch whose id was never saved
    id: str | None = None
    submitted_at: str = Field(default_factory=now_iso)
    created_after: int = 0  # unix time before the create call: where to stop listing batches
    status: str = "submitting"
    completed: int = 0
    failed: int = 0
    total: int = 0
    collected: bool = False
    force: bool = False  # submitted with --force: its answers replace model drafts when collected
    requests: dict[str, str] = Field(default_factory=dict)  # custom_id -> answer-cache key, until collected


class VenueState(_Model):
    venue: str
    batches: list[BatchEntry] = Field(default_factory=list)

    def open(self) -> list[BatchEntry]:
        return [b for b in self.batches if not b.collected]

    def pending_papers(self) -> set[str]:
        return {paper_of(cid) for entry in self.open() for cid in entry.requests}


def state_path(outputs_dir: Path, venue: str) -> Path:
    if not SAFE_ID.match(venue):
        raise UsageError(f"not a valid venue id: {venue!r}")
    return outputs_dir / STATE_DIR / f"{venue}.json"


def load_state(outputs_dir: Path, venue: str) -> VenueState:
    path = state_path(outputs_dir, venue)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return VenueState(venue=venue)
    try:
        return VenueState.model_validate_json(data)
    except ValidationError as exc:
        raise RecordError(f"{path}: not a batch state file ({exc.errors()[0]['msg']}); move it aside") from None


def save_state(outputs_dir: Path, state: VenueState) -> None:
    atomic_write_text(state_path(outputs_dir, state.venue), state.model_dump_json(indent=1) + "\n")


def batch_rows(outputs_dir: Path, venue: str) -> list[dict[str, Any]]:
    """The venue's submitted batches, for ``status``."""
    if not SAFE_ID.match(venue):  # a folder under outputs/records/ that no config names
        return []
    state = load_state(outputs_dir, venue)
    keys = ("id", "status", "completed", "failed", "total")
    return [{k: getattr(b, k) for k in keys} for b in state.batches if b.id]


def custom_id(venue: str, paper_id: str, prompt_hash: str) -> str:
    return f"{venue}/{paper_id}/{prompt_hash}"


def paper_of(cid: str) -> str:
    return cid.split("/")[1]


# -- the provider's batch API ------------------------------------------------------------------------


class BatchAPI:
    """The files and batches endpoints, with errors turned into one line each."""

    def __init__(self, llm: LLMSettings, venue: str):
        self.llm = llm
        self.venue = venue
        self.client = openai.OpenAI(api_key=llm.api_key(), base_url=llm.base_url, timeout=llm.timeout_s)
        # No retry on create: without an idempotency key a retried create can make a second batch.
        # A create that failed midway is found by its token on the next run, or submitted again.
        self.once = self.client.with_options(max_retries=0)

    def call(self, what: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except openai.APIError as exc:
            raise self.error(what, exc) from None

    def error(self, what: str, exc: openai.APIError) -> RunError:
        if isinstance(exc, openai.NotFoundError):
            return UsageError(
                f"the provider at {self.llm.base_url} has no batch endpoint (HTTP 404 on {what}): "
                f"summarise online instead: summarizer summarize {self.venue} (without --batch)"
            )
        if isinstance(exc, openai.AuthenticationError):
            return key_refused(self.llm)
        reason = _said(exc.message.replace(self.client.api_key, "***"))
        return RunError(
            f"the batch API at {self.llm.base_url} failed on {what} ({reason}); the submitted batches are saved: "
            f"run `summarizer summarize {self.venue} --batch` again to resume"
        )

    def lines(self, file_id: str) -> Iterator[str]:
        """A result file, downloaded and read line by line."""
        try:
            with self.client.files.with_streaming_response.content(file_id) as response:
                yield from response.iter_lines()
        except openai.APIError as exc:
            raise self.error("/files", exc) from None

    def upload(self, name: str, data: IO[bytes]) -> str:
        file = self.call(
            "/files", lambda: self.client.files.create(file=(name, data, "application/jsonl"), purpose="batch")
        )
        return file.id

    def create(self, file_id: str, metadata: dict[str, str]) -> Any:
        return self.call(
            "/batches",
            lambda: self.once.batches.create(
                input_file_id=file_id, endpoint=ENDPOINT, completion_window=WINDOW, metadata=metadata
            ),
        )


# -- submitting --------------------------------------------------------------------------------------


def _line(run: SummarizeRun, venue: str, job: Job) -> tuple[str, bytes]:
    cid = custom_id(venue, job.record.id, run.prompts.hash)
    body = chat_request(run.settings.llm, job.messages, answer_spec(run.settings, run.prompts))
    line = {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body}
    return cid, (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")


def _chunks(run: SummarizeRun, venue: str, jobs: list[Job]) -> Iterator[tuple[dict[str, str], IO[bytes]]]:
    """Temporary JSONL files within one batch's limits, each with its custom_id -> cache key map."""
    waiting = deque(jobs)
    while waiting:
        requests: dict[str, str] = {}
        size = 0
        with tempfile.TemporaryFile() as handle:
            while waiting:
                cid, data = _line(run, venue, waiting[0])
                if requests and (len(requests) >= MAX_REQUESTS or size + len(data) > MAX_BYTES):
                    break
                handle.write(data)
                requests[cid] = waiting.popleft().key
                size += len(data)
            handle.seek(0)
            yield requests, handle


def _submit_one(
    api: BatchAPI, outputs: Path, state: VenueState, requests: dict[str, str], data: IO[bytes], force: bool
) -> None:
    entry = BatchEntry(token=secrets.token_hex(8), created_after=int(time.time()) - 60, requests=requests)
    entry.total, entry.force = len(requests), force
    state.batches.append(entry)
    save_state(outputs, state)  # before the provider hears of it: a kill from here on is found again
    file_id = ""
    try:
        file_id = api.upload(f"{state.venue}-{entry.token}.jsonl", data)
        batch = api.create(file_id, {"summarizer_venue": state.venue, "summarizer_token": entry.token})
    except UsageError:  # no batch endpoint: nothing may stay half-submitted
        state.batches.remove(entry)
        save_state(outputs, state)
        if file_id:
            _quietly(lambda: api.client.files.delete(file_id))
        raise
    _note(entry, batch)
    save_state(outputs, state)
    console.info(f"submitted batch {_shown(entry.id)}: {entry.total} requests")


def _quietly(fn: Callable[[], object]) -> None:
    with contextlib.suppress(openai.OpenAIError):
        fn()


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


def _shown(batch_id: object) -> str:
    """A batch id (the provider's words) as the terminal may show it."""
    return terminal_safe(str(batch_id))[:200]


def _adopt(api: BatchAPI, outputs: Path, state: VenueState) -> None:
    """Entries without an id: the batch a killed run created (found by its token), else dropped to plan again."""
    lost = [e for e in state.batches if e.id is None]
    for entry in lost:
        found = _find(api, entry)
        if found is None:
            state.batches.remove(entry)
        else:
            _note(entry, found)
    if lost:
        save_state(outputs, state)


def _find(api: BatchAPI, entry: BatchEntry) -> Any:
    """The provider's batch carrying the entry's token, newest first, back to when it was submitted."""
    try:
        for batch in api.client.batches.list(limit=100):
            if (batch.metadata or {}).get("summarizer_token") == entry.token:
                return batch
            if _count(batch.created_at) < entry.created_after:
                return None
    except openai.NotFoundError:  # no batch listing (or no batch endpoint): nothing to find
        return None
    except openai.APIError as exc:
        raise api.error("/batches", exc) from None
    return None


# -- waiting and collecting --------------------------------------------------------------------------


def _wait(api: BatchAPI, settings: Settings, state: VenueState, entry: BatchEntry) -> Any:
    batch_id, shown = str(entry.id), _shown(entry.id)
    first = True
    with console.terminal_bar(f"batch {shown}", total=entry.total) as bar:
        while True:
            batch = _retrieve(api, settings, state, entry)
            if _note(entry, batch) or first:  # a line at the start and whenever the status or the counts move
                first = False
                save_state(settings.outputs_dir, state)
                console.info(
                    f"batch {shown}: {entry.status}, {entry.completed}/{entry.total} completed, {entry.failed} failed"
                )
            bar.reach(entry.completed + entry.failed, f"{entry.status} · {entry.failed} failed")
            if batch.status in TERMINAL:
                return batch
            deadline = _count(batch.expires_at) + STUCK_AFTER_S
            if batch.status != "cancelling" and deadline > STUCK_AFTER_S and time.time() > deadline:
                console.warn(f"batch {shown} is still {entry.status} an hour after its window closed: cancelling it")
                api.call("/batches", lambda: api.client.batches.cancel(batch_id))
            time.sleep(settings.llm.batch_poll_s)


def _retrieve(api: BatchAPI, settings: Settings, state: VenueState, entry: BatchEntry) -> Any:
    """The batch now; one the provider does not know (404) is forgotten, so its papers can be submitted again."""
    try:
        return api.client.batches.retrieve(str(entry.id))
    except openai.NotFoundError:
        entry.collected, entry.status, entry.requests = True, "not found", {}
        save_state(settings.outputs_dir, state)
        raise UsageError(
            f"the provider at {settings.llm.base_url} does not know batch {_shown(entry.id)} (HTTP 404): it is "
            f"forgotten; run `summarizer summarize {state.venue} --batch` to submit its papers again"
        ) from None
    except openai.APIError as exc:
        raise api.error("/batches", exc) from None


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


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _said(text: Any) -> str:
    """A provider's words, bounded and inert on the terminal and in a record."""
    return clean_line(str(text))[:300]


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


def paper_hash(cid: Any) -> str:
    """The prompt hash a request was written with (the last part of its custom_id)."""
    return str(cid).rsplit("/", 1)[-1]


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


def skip_batched(run: SummarizeRun, venue: str, papers: list[Record], state: VenueState | None = None) -> list[Record]:
    """The papers not waiting in a submitted batch (those are counted, not asked twice)."""
    pending = (state or load_state(run.settings.outputs_dir, venue)).pending_papers()
    kept = [record for record in papers if record.id not in pending]
    if len(kept) < len(papers):
        label = "in a batch submitted before" if state else f"waiting in a batch (collect: summarize {venue} --batch)"
        run.report.count(label, len(papers) - len(kept))
    return kept


# -- the stage ---------------------------------------------------------------------------------------


def summarize_venue_batch(
    settings: Settings,
    store: Store,
    venue_id: str,
    *,
    limit: int | None = None,
    force: bool = False,
    wait: bool = True,
) -> StageReport:
    """Summarise the venue through the Batch API (see the module doc)."""
    run = start_run(settings, store, venue_id)
    outputs = settings.outputs_dir
    state = load_state(outputs, venue_id)
    api: BatchAPI | None = None
    if state.open():
        api = BatchAPI(settings.llm, venue_id)
        _adopt(api, outputs, state)
    papers = skip_batched(run, venue_id, papers_to_summarize(run, venue_id, force=force), state)
    jobs = list(plan_jobs(run, papers, limit))
    with console.progress(f"summarize {venue_id} (cached)", total=len(jobs)) as bar:
        misses = serve_cached(run, jobs, bar, force=force)
    if misses:
        api = api or BatchAPI(settings.llm, venue_id)
        for requests, data in _chunks(run, venue_id, misses):
            _submit_one(api, outputs, state, requests, data, force)
        run.report.count("sent in a batch", len(misses))
    if not state.open():
        return run.report
    assert api is not None
    if not wait:
        console.info(
            f"{len(state.open())} batch(es) running on the provider's side (up to {WINDOW}); collect the results "
            f"with `summarizer summarize {venue_id} --batch` (it waits on the same batches, never submits them again)"
        )
        return run.report
    for entry in state.open():
        _finish(api, run, state, entry)
    return run.report


def _finish(api: BatchAPI, run: SummarizeRun, state: VenueState, entry: BatchEntry) -> None:
    """Wait for one batch, save its answers, retry the rest online, and mark it collected."""
    batch = _wait(api, run.settings, state, entry)
    c = _Collect(run, state.venue, entry)
    _collect(api, c, batch)
    _retry(run, c.retries)
    entry.collected = True
    entry.requests = {}
    save_state(run.settings.outputs_dir, state)
    if entry.status != "completed":
        errors = getattr(batch.errors, "data", None) or []
        why = _said("; ".join(str(e.message) for e in errors if getattr(e, "message", None)))
        run.report.fail(
            f"batch {_shown(entry.id)}",
            f"{entry.status}{f' ({why})' if why else ''}: {c.unrun} papers not summarised; run "
            f"`summarizer summarize {state.venue} --batch` to submit them again (or without --batch to ask online)",
        )
