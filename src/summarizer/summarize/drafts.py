"""Drafts: a checked summary the model wrote, and how it becomes a record's newest version."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected
from summarizer.core.flags import DuplicateIndex, merge, record_warnings
from summarizer.core.records import Record, Version
from summarizer.core.rules import CheckedSummary

from .answer import checked_answer


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
        found = record_warnings(settings, record, draft.summary, draft.tags, draft.field)
        warnings = merge(warnings, found)
    if duplicates is not None:
        twin = duplicates.check(f"{record.venue}/{record.id}", draft.summary)
        warnings += [twin] if twin else []
    version = record.summaries.add_version(
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


def draft_from_cache(entry: dict[str, Any], settings: Settings, prompt_hash: str) -> Draft | None:
    try:
        checked = checked_answer(str(entry["summary"]), [str(t) for t in entry["tags"]], str(entry["field"]), settings)
    except (KeyError, TypeError, TextRejected):
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
