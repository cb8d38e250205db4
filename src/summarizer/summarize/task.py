"""What one kind of model answer needs from the shared run: summaries and notes are two ``Task``s.

The run (``plan``), the online pass (``online``) and the Batch API path (``batch``, ``batch_collect``)
are the same for both: which papers, pacing, concurrency, the answer cache, resuming after a kill,
batches, re-asks.  What differs is here: which papers need the answer (``skip_reason``), what the
model reads (``messages``), what it must answer (``spec``), the cache key and entry, and how a
checked answer becomes the paper's newest version (``apply``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from summarizer.core.config import Settings
from summarizer.core.errors import NoInput
from summarizer.core.flags import DuplicateIndex
from summarizer.core.fsutil import sha256_text
from summarizer.core.paper_text import paper_sections
from summarizer.core.records import Record, Reviewed, Stage

from .answer import RESPONSE_SCHEMA_VERSION, answer_spec
from .chat_request import AnswerSpec, Messages
from .drafts import Draft, add_llm_version, draft_from_cache
from .prompts import Prompts


class Answered(Protocol):
    """A checked answer as the run handles it, whichever its kind."""

    model: str
    prompt_hash: str
    cached: bool


class Task(Protocol):
    kind: str  # "summary" or "note": names the batch state file and the cache's schema
    stage: Stage  # where a paper's failure is recorded
    command: str  # the command that runs it, as messages name it
    done_label: str  # the report's count of papers the model answered
    undone: str  # what papers left unanswered are ("not summarised")
    expected_output_tokens: int  # what an answer usually costs, for a dry run's estimate
    settings: Settings
    prompts: Prompts

    @property
    def prompt_hash(self) -> str: ...

    def spec(self) -> AnswerSpec[Any]: ...

    def prepare(self, records: list[Record]) -> None: ...

    def skip_reason(self, record: Record, force: bool) -> str | None: ...

    def messages(self, record: Record, *, feedback: str | None = None) -> Messages: ...

    def cache_key(self, messages: Messages) -> str: ...

    def answered(self, value: Any, model: str, prompt_hash: str) -> Any: ...

    def from_cache(self, entry: dict[str, Any]) -> Any | None: ...

    def cache_entry(self, answer: Any) -> dict[str, Any]: ...

    def unchanged(self, record: Record, answer: Any) -> bool: ...

    def apply(self, record: Record, answer: Any) -> list[str]: ...


def cache_key(settings: Settings, prompt_hash: str, schema: int | str, messages: Messages) -> str:
    """The answer cache's key: provider, model, a forced structured-output mode, templates, answer schema and the
    messages (never the API key)."""
    parts: dict[str, Any] = {
        "base_url": settings.llm.base_url.rstrip("/"),
        "model": settings.llm.model,
        "prompt": prompt_hash,
        "schema": schema,
        "input": sha256_text(json.dumps(messages, ensure_ascii=False, sort_keys=True)),
    }
    # A forced mode asks differently, so its answers are its own.  Under `auto` the mode is what this
    # base_url and model take (already in the key), learnt again each run: the keys of earlier runs hold.
    if settings.llm.structured_output != "auto":
        parts["structured_output"] = settings.llm.structured_output
    return sha256_text(json.dumps(parts, sort_keys=True))


class SummaryTask:
    """A one-paragraph summary with tags and a field: ``summarize``."""

    kind = "summary"
    stage: Stage = "summarize"
    command = "summarize"
    done_label = "summarized"
    undone = "not summarised"
    expected_output_tokens = 300  # a 100-250 character summary, its tags and field, as JSON

    def __init__(self, settings: Settings, prompts: Prompts | None = None):
        self.settings = settings
        self.prompts = prompts or Prompts.load(settings)
        self.duplicates: DuplicateIndex | None = None  # the venue's summaries, for the near-duplicate warning

    @property
    def prompt_hash(self) -> str:
        return self.prompts.hash

    def spec(self) -> AnswerSpec[Any]:
        return answer_spec(self.settings, self.prompts)

    def prepare(self, records: list[Record]) -> None:
        self.duplicates = DuplicateIndex.of(records)

    def skip_reason(self, record: Record, force: bool) -> str | None:
        """None when the paper is to be summarised, else the count it goes under."""
        return self._kept(record, force) or self._unfetched(record)

    def _kept(self, record: Record, force: bool) -> str | None:
        current = record.summaries.current
        if record.summaries.status == "rejected" and not force:
            return "rejected (skipped)"
        if current is None:
            return None
        if not force:
            return "already summarized"
        if record.summaries.status == "approved" or current.origin != "llm":
            return "approved or edited (kept)"
        return None

    def _unfetched(self, record: Record) -> str | None:
        """The count a paper `fetch` has not reached goes under: no text, and not one summarised from its abstract."""
        if record.fetch.text_path or record.fetch.abstract_only:
            return None
        try:
            paper_sections(self.settings, record)  # reads no file: without a text, only the abstract can be there
        except NoInput:
            return "not fetched"
        return None

    def messages(self, record: Record, *, feedback: str | None = None) -> Messages:
        previous = record.summaries.current.summary if (feedback and record.summaries.current) else None
        sections = paper_sections(self.settings, record)
        return self.prompts.messages(self.settings, record, sections, feedback=feedback, previous_summary=previous)

    def cache_key(self, messages: Messages) -> str:
        return cache_key(self.settings, self.prompt_hash, RESPONSE_SCHEMA_VERSION, messages)

    def answered(self, value: Any, model: str, prompt_hash: str) -> Draft:
        return Draft(
            summary=value.summary,
            tags=value.tags,
            field=value.field,
            warnings=value.warnings,
            model=model,
            prompt_hash=prompt_hash,
        )

    def from_cache(self, entry: dict[str, Any]) -> Draft | None:
        return draft_from_cache(entry, self.settings, self.prompt_hash)

    def cache_entry(self, answer: Draft) -> dict[str, Any]:
        return {"summary": answer.summary, "tags": answer.tags, "field": answer.field}

    def unchanged(self, record: Record, answer: Draft) -> bool:
        current = record.summaries.current
        return current is not None and current.same_content(answer.summary, answer.tags, answer.field)

    def apply(self, record: Record, answer: Draft) -> list[str]:
        """The answer as the paper's newest version (unless it holds it already); the counts it goes under."""
        return apply_answer(
            record,
            record.summaries,
            "summarize",
            unchanged=self.unchanged(record, answer),
            add=lambda: add_llm_version(record, answer, settings=self.settings, duplicates=self.duplicates),
        )


def apply_answer(
    record: Record, reviewed: Reviewed[Any], stage: Stage, *, unchanged: bool, add: Callable[[], object]
) -> list[str]:
    """An answer as the newest version of its kind (``add`` it, unless the record holds it already); the counts
    it goes under.  A rejected one goes back to review (``--force`` asked for it again)."""
    counts: list[str] = []
    if reviewed.status == "rejected":
        reviewed.status = "draft"
        counts.append("back in review (were rejected)")
    if unchanged:
        record.clear_failure(stage)  # --force got the same answer: no second, identical version
        counts.append("unchanged")
    else:
        add()
    return counts
