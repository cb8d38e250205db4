"""Summarize stage: the model writes each paper's one-paragraph Chinese summary, tags and field.

``summarize_venue`` writes a draft version into every fetched paper's record
that has none (the PDF's text, or the arXiv abstract when only that is known).
Answers are cached in ``cache/llm/`` keyed by (base_url, model, prompt-template
hash, response-schema version, input hash) — never the key — so a re-run makes
no call.  ``--force`` ignores the cache and redoes model drafts and rejected
papers, but never touches an approved paper or one whose current version a
person wrote or imported.  Each record is saved as soon as its paper finishes
(in a thread, while its worker asks about the next paper), so an interrupted run
loses only the papers in flight and an answer still being written.

``regenerate_summary`` is the one-paper API behind ``regen VENUE/ID
--feedback TEXT``: one fresh call (more only when an attempt fails), no cache,
the previous summary and the feedback (审稿意见) in the prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict, ValidationError, create_model, field_validator

from . import console
from .cache import CacheLayout
from .checks import CheckedSummary, check_summary
from .config import Settings, shipped_prompts_dir
from .console import StageReport
from .errors import ConfigError, FileSystemError, LLMError, NoInput, PaperError, SummaryRejected, UsageError
from .fsutil import atomic_write_text, sha256_text
from .llm import AnswerSpec, LLMClient, usage_of
from .paper_input import load_paper_text, model_input
from .store import Record, Store, Usage, Version, now_iso
from .suspicion import DuplicateIndex
from .textsafe import clean_line, clean_text
from .validation import validation_problems

SYSTEM_TEMPLATE = "system.md.j2"
USER_TEMPLATE = "user.md.j2"
REASK_TEMPLATE = "reask.md.j2"
# The name the response schema is sent under (json_schema mode).
SCHEMA_NAME = "paper_summary"
# Bump when the response schema or its parsing changes: old cache entries stop matching.
RESPONSE_SCHEMA_VERSION = 1

SECTION_NAMES = {"abstract": "摘要", "introduction": "引言", "conclusion": "结论", "rest": "正文其他部分"}


# -- the response schema ---------------------------------------------------------


class _AnswerBase(BaseModel):
    """Exactly ``summary``, ``tags``, ``field``; length and count checks live here, not in the schema."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    tags: list[str]

    @field_validator("tags")
    @classmethod
    def _some_tags(cls, tags: list[str]) -> list[str]:
        tags = [t for t in tags if t.strip()]
        if not tags:
            raise ValueError("give 1 to 5 topic tags")
        return tags


def answer_model(settings: Settings) -> type[_AnswerBase]:
    """The pydantic model of an answer; ``field`` is an enum of the configured field ids."""
    return _answer_model(tuple(settings.field_ids()))


@functools.lru_cache(maxsize=16)
def _answer_model(field_ids: tuple[str, ...]) -> type[_AnswerBase]:
    field_type: Any = Literal[field_ids]
    return create_model("PaperSummary", __base__=_AnswerBase, field=(field_type, ...))


def response_schema(settings: Settings) -> dict[str, Any]:
    """A strict JSON schema: every key required, no extra keys, no defaults or length keywords."""
    # Built once per field list (pydantic's schema generation costs ~0.5 ms, on every request otherwise).
    return json.loads(_response_schema_json(tuple(settings.field_ids())))


@functools.lru_cache(maxsize=16)
def _response_schema_json(field_ids: tuple[str, ...]) -> str:
    schema = _answer_model(field_ids).model_json_schema()

    def clean(node: Any) -> Any:
        if isinstance(node, dict):
            node = {k: clean(v) for k, v in node.items() if k not in ("title", "default", "minLength", "maxLength")}
            if "const" in node:
                node["enum"] = [node.pop("const")]
            return node
        if isinstance(node, list):
            return [clean(v) for v in node]
        return node

    schema = clean(schema)
    schema["additionalProperties"] = False
    schema["required"] = list(schema["properties"])
    schema["properties"]["summary"]["description"] = "一段中文解读，单段，不换行"
    schema["properties"]["tags"]["description"] = "1-5 个主题标签"
    schema["properties"]["field"]["description"] = "领域 id"
    return json.dumps(schema, ensure_ascii=False)


@functools.lru_cache(maxsize=16)
def _schema_note(field_ids: tuple[str, ...]) -> str:
    """The schema in the system prompt, for a provider that takes only json_object (and so cannot enforce it)."""
    return "输出的 JSON 对象必须符合这个 JSON Schema：\n" + _response_schema_json(field_ids)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_answer(raw: str, settings: Settings) -> CheckedSummary:
    """Raw model output → a checked summary, or ``SummaryRejected`` saying what is wrong, in words for the model."""
    text = raw.strip()
    if not text:
        raise SummaryRejected(["the answer was empty: reply with one JSON object"])
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SummaryRejected([f"the answer is not valid JSON ({exc.msg}; character {exc.pos})"]) from None
    if not isinstance(data, dict):
        raise SummaryRejected(["the answer must be a JSON object with keys summary, tags, field"])
    try:
        answer = answer_model(settings).model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, top="answer", special=functools.partial(_answer_problem, settings))
        raise SummaryRejected(problems) from None
    return _checked(answer.summary, answer.tags, str(answer.field), settings)  # type: ignore[attr-defined]


def _answer_problem(settings: Settings, error: Any, key: str) -> str | None:
    """Problems worded for the model's re-ask: what to send instead."""
    if error["type"] == "literal_error" and key == "field":
        return f"unknown field {error['input']!r}: choose one of {', '.join(settings.field_ids())}"
    if error["type"] == "extra_forbidden":
        return f"unexpected key {key!r}: use only summary, tags, field"
    if error["type"] == "missing":
        return f"the key {key!r} is missing"
    return None


def _checked(summary: str, tags: list[str], field_id: str, settings: Settings) -> CheckedSummary:
    """A model's answer, controls and bidi overrides removed before the checks and the record see it."""
    clean_tags = [t for t in (clean_line(tag) for tag in tags) if t]
    return check_summary(clean_text(summary).strip(), clean_tags, field_id, settings)


# -- prompts ---------------------------------------------------------------------------


# The fence's tags as a paper could mimic them: any spacing, attributes, full-width brackets.
_PAPER_TAG = re.compile(r"[<＜]\s*/?\s*paper\b[^>＞\n]*[>＞]", re.IGNORECASE)


def _paper_text(text: str) -> str:
    """Paper text (the title too) cannot open or close the <paper> block it sits in."""
    return _PAPER_TAG.sub("[paper]", text)


class Prompts:
    """The editable jinja2 templates in ``prompts/`` (StrictUndefined: a typo is an error, not a blank)."""

    def __init__(self, folder: Path):
        self.folder = folder
        # A prompts folder made before the re-ask template existed gets the shipped one (see _source).
        loaders = [jinja2.FileSystemLoader(str(folder)), jinja2.FileSystemLoader(str(shipped_prompts_dir()))]
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
        )
        self.env.filters["paper_text"] = _paper_text
        # Every template that reaches the model is in the hash: editing one invalidates cached answers.
        templates = (SYSTEM_TEMPLATE, USER_TEMPLATE, REASK_TEMPLATE)
        self.hash = sha256_text("\0".join(self._source(name) for name in templates))[:16]

    def _source(self, name: str) -> str:
        path = self.folder / name
        if name == REASK_TEMPLATE and not path.is_file():
            path = shipped_prompts_dir() / name
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            raise ConfigError(f"prompt template not found: {path}", key="paths.prompts") from None

    @classmethod
    def load(cls, settings: Settings) -> Prompts:
        return cls(settings.prompts_dir)

    def _render(self, name: str, **values: Any) -> str:
        try:
            return self.env.get_template(name).render(**values).strip()
        except jinja2.TemplateError as exc:
            raise ConfigError(f"{self.folder / name}: {exc}", key="paths.prompts") from None

    def messages(
        self,
        settings: Settings,
        record: Record,
        sections: list[tuple[str, str]],
        *,
        feedback: str | None = None,
        previous_summary: str | None = None,
    ) -> list[dict[str, str]]:
        venue = next((v for v in settings.venues if v.id == record.venue), None)
        values = {
            "title": _paper_text(" ".join(record.title.split())),  # sits inside the fence too
            "venue": venue.name if venue else record.venue,
            "sections": [(SECTION_NAMES.get(name, name), text) for name, text in sections],
            "fields": settings.fields,
            "vocabulary": settings.tags.vocabulary,
            "feedback": (feedback or "").strip(),
            "previous_summary": previous_summary or "",
        }
        return [
            {"role": "system", "content": self._render(SYSTEM_TEMPLATE, **values)},
            {"role": "user", "content": self._render(USER_TEMPLATE, **values)},
        ]

    def reask(self, raw: str, problems: list[str]) -> list[dict[str, str]]:
        """The model's previous answer, then the problems with it (``prompts/reask.md.j2``)."""
        return [
            {"role": "assistant", "content": raw},
            {"role": "user", "content": self._render(REASK_TEMPLATE, problems=problems)},
        ]


def answer_spec(settings: Settings, prompts: Prompts) -> AnswerSpec[CheckedSummary]:
    """What the LLM client is asked for: the schema, the house rules, the re-ask wording."""
    return AnswerSpec(
        name=SCHEMA_NAME,
        schema=response_schema(settings),
        schema_note=_schema_note(tuple(settings.field_ids())),
        validate=lambda raw: parse_answer(raw, settings),
        reask=prompts.reask,
    )


# -- cache ---------------------------------------------------------------------------------


class AnswerCache:
    """Parsed answers in ``cache/llm/<aa>/<key>.json``; written atomically, never holding the API key."""

    def __init__(self, cache_dir: Path):
        self.layout = CacheLayout(cache_dir)
        self.root = self.layout.answers()

    @staticmethod
    def key(settings: Settings, prompt_hash: str, messages: list[dict[str, str]]) -> str:
        parts = {
            "base_url": settings.llm.base_url.rstrip("/"),
            "model": settings.llm.model,
            "prompt": prompt_hash,
            "schema": RESPONSE_SCHEMA_VERSION,
            "input": sha256_text(json.dumps(messages, ensure_ascii=False, sort_keys=True)),
        }
        return sha256_text(json.dumps(parts, sort_keys=True))

    def path(self, key: str) -> Path:
        return self.layout.answer(key)

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, draft: Draft, usage: Usage) -> None:
        entry = {
            "summary": draft.summary,
            "tags": draft.tags,
            "field": draft.field,
            "model": draft.model,
            "prompt_hash": draft.prompt_hash,
            "usage": usage.model_dump(),
            "created_at": now_iso(),
        }
        atomic_write_text(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1) + "\n")


# -- results -------------------------------------------------------------------------------


@dataclass
class Draft(CheckedSummary):
    """A checked summary from the model, with what produced it."""

    model: str = ""
    prompt_hash: str = ""
    cached: bool = False


def add_llm_version(
    record: Record,
    draft: Draft,
    *,
    feedback: str | None = None,
    settings: Settings | None = None,
    duplicates: DuplicateIndex | None = None,
) -> Version:
    """Add ``draft`` as the record's newest version (origin llm) and clear its summarize failure.

    The record's status is not touched: on an approved record the new version
    is a pending draft; the approved one stays published until an editor approves the new one.
    With ``settings`` the suspicion warnings (numbers not in the paper, …) are stored with it;
    with ``duplicates`` (the venue's other summaries) also a near-duplicate warning.
    """
    warnings = list(draft.warnings)
    if settings is not None:
        from .suspicion import merge, record_warnings

        found = record_warnings(settings, record, draft.summary, draft.tags, draft.field)
        warnings = merge(warnings, found)
    if duplicates is not None:
        twin = duplicates.check(f"{record.venue}/{record.id}", draft.summary)
        warnings += [twin] if twin else []
    version = record.add_version(
        draft.summary,
        draft.tags,
        draft.field,
        "llm",
        model=draft.model,
        prompt_hash=draft.prompt_hash,
        warnings=warnings,
        feedback=(feedback or None),
        checked=settings is not None,
    )
    record.clear_failure("summarize")
    return version


def paper_sections(settings: Settings, record: Record) -> list[tuple[str, str]]:
    """What the model reads for this paper; ``NoInput`` (with the reason) when there is nothing."""
    text = None
    if record.fetch.text_path:
        text = load_paper_text(settings, record)
        if text is None:
            raise NoInput(
                f"the extracted text {record.fetch.text_path} is missing or unreadable in {settings.cache_dir}: "
                f"`summarizer fetch {record.venue}` fetches it again"
            )
    elif not ((record.fetch.abstract_only or not (record.arxiv_id or record.fetch.pdf_url)) and record.abstract):
        raise NoInput(f"not fetched yet: run `summarizer fetch {record.venue}` first")
    sections = model_input(record, text, settings.llm.input_token_budget)
    if not sections:
        raise NoInput("no text and no abstract to summarise")
    return sections


def _cached_draft(entry: dict[str, Any], settings: Settings, prompt_hash: str) -> Draft | None:
    try:
        checked = _checked(str(entry["summary"]), [str(t) for t in entry["tags"]], str(entry["field"]), settings)
    except (KeyError, TypeError, SummaryRejected):
        return None
    return Draft(
        summary=checked.summary,
        tags=checked.tags,
        field=checked.field,
        warnings=checked.warnings,
        model=str(entry.get("model") or settings.llm.model),
        prompt_hash=prompt_hash,
        cached=True,
    )


# -- one paper -----------------------------------------------------------------------------


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
    try:
        sections = paper_sections(settings, record)
    except NoInput as exc:
        raise UsageError(f"{record.venue}/{record.id}: {exc}") from None
    prompts = Prompts.load(settings)
    previous = record.current.summary if (feedback and record.current) else None
    messages = prompts.messages(settings, record, sections, feedback=feedback, previous_summary=previous)
    async with LLMClient(settings.llm) as client:
        return await ask_model(client, settings, prompts, messages, record.id)


def regenerate_summary(settings: Settings, record: Record, *, feedback: str | None = None) -> tuple[Draft, Usage]:
    """Synchronous ``aregenerate_summary``."""
    return asyncio.run(aregenerate_summary(settings, record, feedback=feedback))


# -- the stage -------------------------------------------------------------------------------


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
    report: StageReport
    usage: Usage = field(default_factory=Usage)
    done: int = 0
    cached: int = 0
    failed: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    duplicates: DuplicateIndex | None = None  # the venue's summaries, for the near-duplicate warning

    def note(self) -> str:
        tokens = self.usage.prompt_tokens + self.usage.completion_tokens
        return (
            f"{self.done} done · {self.failed} failed · {self.cached} cached · "
            f"{tokens:,} tokens · ${self.usage.cost_usd:.4f}"
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


class _OnlinePass:
    """Every job answered, from the cache or by the model, with ``workers`` papers at the model at once.

    Jobs are planned (the paper's text read, its prompt rendered, the cache looked up) one at a time
    on the event loop beside the workers: the first requests go out once the first papers are
    planned, and the rest are planned while the model answers those.
    """

    def __init__(self, run: SummarizeRun, bar: console.ProgressBar, *, workers: int, force: bool):
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
            draft = None if self.force else cached_draft(self.run, job)
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
                    draft, usage = await ask_model(
                        self.client(), run.settings, run.prompts, job.messages, job.record.id
                    )
                except PaperError as exc:  # this paper only; a RunError (a refused key, a full disk) ends the run
                    run.fail(job, exc, usage_of(exc))
                    self.bar.advance(run.note())
                    continue
                # The answer is written while this worker asks about its next paper, one answer at a
                # time: a write that failed (a full disk) ends the run when the next answer comes in.
                previous, saving = saving, asyncio.create_task(self._save(job, draft, usage))
                if previous is not None:
                    await asyncio.shield(previous)
        finally:
            if saving is not None:
                await asyncio.shield(saving)

    async def _save(self, job: Job, draft: Draft, usage: Usage) -> None:
        # The writes (record, answer cache; fsync'd) and the suspicion checks run in a thread, off
        # the event loop that every worker's requests and answers go through.
        await asyncio.to_thread(persist, self.run, job, draft, usage)
        self._counted(draft, usage)

    def _counted(self, draft: Draft, usage: Usage) -> None:
        self.run.count(draft, usage)
        self.bar.advance(self.run.note())


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
        settings, store, Prompts.load(settings), AnswerCache(settings.cache_dir), StageReport("summarize", venue_id)
    )
    run.report.usage = run.usage
    return run


def papers_to_summarize(run: SummarizeRun, venue_id: str, *, force: bool = False) -> list[Record]:
    """The venue's papers that need a summary, in order; the others are counted under why (no text is read)."""
    records = run.store.records(venue_id)
    run.duplicates = DuplicateIndex.of(records)
    if not records:
        console.warn(f"{venue_id} has no papers yet: run `summarizer fetch {venue_id}` (or import) first")
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
    run: SummarizeRun, papers: list[Record], limit: int | None = None, bar: console.ProgressBar | None = None
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
                bar.advance(run.note())
            continue
        messages = run.prompts.messages(run.settings, record, sections)
        planned += 1
        yield Job(record, messages, AnswerCache.key(run.settings, run.prompts.hash, messages))


def cached_draft(run: SummarizeRun, job: Job) -> Draft | None:
    """The job's answer from the cache, when it is there and still passes the checks."""
    entry = run.cache.get(job.key)
    return _cached_draft(entry, run.settings, run.prompts.hash) if entry else None


def serve_cached(run: SummarizeRun, jobs: list[Job], bar: console.ProgressBar, *, force: bool = False) -> list[Job]:
    """Save every job whose answer is cached (unless ``force``); the rest (the misses) are returned."""
    misses: list[Job] = []
    for job in jobs:
        draft = None if force else cached_draft(run, job)
        if draft is None:
            misses.append(job)
        else:
            run.succeed(job, draft, Usage())
            bar.advance(run.note())
    return misses


def summarize_venue(
    settings: Settings, store: Store, venue_id: str, *, limit: int | None = None, force: bool = False
) -> StageReport:
    """Summarise the venue's fetched papers that have no summary yet (see the module doc)."""
    from .batch import skip_batched

    run = start_run(settings, store, venue_id)
    papers = skip_batched(run, venue_id, papers_to_summarize(run, venue_id, force=force))
    total = len(papers) if limit is None else min(limit, len(papers))
    with console.progress(f"summarize {venue_id}", total=total) as bar:
        if total:
            workers = min(settings.llm.max_concurrency, total)
            online = _OnlinePass(run, bar, workers=workers, force=force)
            asyncio.run(online.answer(plan_jobs(run, papers, limit, bar)))
    return run.report
