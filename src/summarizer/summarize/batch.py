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
status or counts change.  The output and error files are read line by line
(split on ``\n`` only); each answer goes through ``parse_answer`` (schema,
house rules, tags) and each paper is saved (answer cache, record) as soon as
its line is parsed.
Answers that fail validation are asked again online with the online re-ask's
feedback, and requests the batch reports as errors are asked again online,
within ``llm.max_attempts`` calls (the batch's counts as one).  Lines the
batch never ran (expired, cancelled, a failed batch) are left for the next
run, which says so; so are the papers of a batch whose result file the provider
has deleted (after its retention period): the batch is forgotten (status
``result file gone``), said in the report, and its papers are summarised by the
next run, online or with ``--batch``.  Usage comes from each response; cost is
``llm.batch_price_factor`` x ``llm.price_per_million``.
"""

from __future__ import annotations

import json
import secrets
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from summarizer.core.errors import BatchNotFound, UsageError
from summarizer.core.progress import QUIET, Progress
from summarizer.core.report import Report, plural

from .batch_api import ENDPOINT, TERMINAL, WINDOW, BatchAPI, BatchLimits, provider_words, shown_id, whole_count
from .batch_collect import Collect, collect, retry
from .batch_state import BatchEntry, VenueState, custom_id, load_state, save_state
from .chat_request import chat_request
from .plan import AnswerRun, Job, Pick

DEFAULT_LIMITS = BatchLimits()
GONE = "result file gone"  # the status of a batch forgotten because the provider deleted its results


# -- submitting --------------------------------------------------------------------------------------


@dataclass
class _Batches:
    """One ``summarize --batch`` of a venue: its run, its provider, its state file, its limits, its person."""

    run: AnswerRun
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
        save_state(self.run.settings.outputs_dir, self.state, self.run.task.kind)


def _line(run: AnswerRun, job: Job) -> tuple[str, bytes]:
    cid = custom_id(run.venue_id, job.record.id, run.task.prompt_hash)
    body = chat_request(run.settings.llm, job.messages, run.task.spec())
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
                cid, data = _line(b.run, waiting[0])
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
    b.progress.say(f"submitted batch {shown_id(entry.id)}: {entry.total} requests")


def _note(entry: BatchEntry, batch: Any) -> bool:
    """Copy the batch's id, status and counts into its entry; True when something changed."""
    counts = batch.request_counts
    done, failed = (whole_count(counts.completed), whole_count(counts.failed)) if counts else (0, 0)
    seen = (str(batch.id), provider_words(batch.status)[:40], done, failed)
    before = (entry.id, entry.status, entry.completed, entry.failed)
    entry.id, entry.status, entry.completed, entry.failed = seen
    if counts and whole_count(counts.total):
        entry.total = whole_count(counts.total)
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
    batch_id, shown = str(entry.id), shown_id(entry.id)
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
    expires_at = whole_count(batch.expires_at)
    return expires_at > 0 and time.time() > expires_at + limits.stuck_after_s


def _retrieve(b: _Batches, entry: BatchEntry) -> Any:
    """The batch now; one the provider does not know (404) is forgotten, so its papers can be submitted again."""
    try:
        return b.api.retrieve(str(entry.id))
    except BatchNotFound:
        entry.collected, entry.status, entry.requests = True, "not found", {}
        b.save()
        raise


# -- the stage ---------------------------------------------------------------------------------------


def answer_batch(
    run: AnswerRun, pick: Pick, progress: Progress = QUIET, *, wait: bool = True, limits: BatchLimits = DEFAULT_LIMITS
) -> Report:
    """``online.answer_online`` through the Batch API (see the module doc)."""
    venue_id = run.venue_id
    command = run.task.command
    b = _Batches(run, load_state(run.settings.outputs_dir, venue_id, run.task.kind), limits, progress)
    if b.state.open():
        _adopt(b)
    papers = run.skip_batched(run.papers_to_answer(pick), b.state)
    jobs = list(run.plan_jobs(papers, pick.limit))
    with progress.bar(f"{command} {venue_id} (cached)", total=len(jobs)) as bar:
        misses = run.serve_cached(jobs, bar, force=pick.force)
    if misses:
        for requests, data in _chunks(b, misses):
            _submit_one(b, requests, data, pick.force)
        run.report.count("sent in a batch", len(misses))
    if not b.state.open():
        return run.report
    if not wait:
        progress.say(
            f"{len(b.state.open())} batch(es) running on the provider's side (up to {WINDOW}); collect the results "
            f"with `summarizer {command} {venue_id} --batch` (it waits on the same batches, never submits them again)"
        )
        return run.report
    for entry in b.state.open():
        _finish(b, entry)
    return run.report


def _finish(b: _Batches, entry: BatchEntry) -> None:
    """Wait for one batch, save its answers, retry the rest online, and mark it collected.

    A batch whose result file is gone is forgotten the same way: its unsaved papers are summarisable again.
    """
    batch = _wait(b, entry)
    c = Collect(b.run, entry)
    collect(b.api, c, batch)
    retry(b.run, c.retries)
    entry.collected = True
    entry.requests = {}
    if c.gone:
        entry.status = GONE
    b.save()
    command = b.run.task.command
    again = f"run `summarizer {command} {b.venue_id} --batch` to submit them again (or without --batch to ask online)"
    if c.gone:
        undone = f"{plural(c.unrun, 'paper')} {b.run.task.undone}"
        b.run.report.fail(f"batch {shown_id(entry.id)}", f"{c.gone}, so it is forgotten: {undone}; {again}")
    elif entry.status != "completed":
        errors = getattr(batch.errors, "data", None) or []
        why = provider_words("; ".join(str(e.message) for e in errors if getattr(e, "message", None)))
        b.run.report.fail(
            f"batch {shown_id(entry.id)}",
            f"{entry.status}{f' ({why})' if why else ''}: {plural(c.unrun, 'paper')} {b.run.task.undone}; {again}",
        )
