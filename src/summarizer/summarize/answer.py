"""What the model must answer: the response schema, and raw output → a checked summary.

``parse_answer`` is the validator the transport's re-ask loop calls: it returns a checked
summary or raises ``TextRejected`` with the problems worded for the model.  The schema is
strict (every key required, no extra keys) so a ``json_schema`` provider enforces it; for a
``json_object`` provider the same schema is written into the system prompt.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, create_model, field_validator

from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected
from summarizer.core.rules import CheckedSummary, check_summary
from summarizer.core.sanitize import clean_line, clean_text, unstorable_characters
from summarizer.core.wording import validation_problems

from .chat_request import AnswerSpec
from .prompts import Prompts

# The name the response schema is sent under (json_schema mode).
SCHEMA_NAME = "paper_summary"


# Bump when the response schema or its parsing changes: old cache entries stop matching.
RESPONSE_SCHEMA_VERSION = 1


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


def summary_answer_model(settings: Settings) -> type[_AnswerBase]:
    """The pydantic model of an answer; ``field`` is an enum of the configured field ids."""
    return _summary_answer_model(tuple(settings.field_ids()))


@functools.lru_cache(maxsize=16)
def _summary_answer_model(field_ids: tuple[str, ...]) -> type[_AnswerBase]:
    field_type: Any = Literal[field_ids]
    return create_model("PaperSummary", __base__=_AnswerBase, field=(field_type, ...))


def response_schema(settings: Settings) -> dict[str, Any]:
    """A strict JSON schema: every key required, no extra keys, no defaults or length keywords."""
    # Built once per field list (pydantic's schema generation costs ~0.5 ms, on every request otherwise).
    return json.loads(_response_schema_json(tuple(settings.field_ids())))


@functools.lru_cache(maxsize=16)
def _response_schema_json(field_ids: tuple[str, ...]) -> str:
    schema = _summary_answer_model(field_ids).model_json_schema()

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


def json_object(raw: str, keys: str) -> dict[str, Any]:
    """The JSON object a model answered (a ```json fence around it is forgiven), or ``TextRejected``."""
    text = raw.strip()
    if not text:
        raise TextRejected(["the answer was empty: reply with one JSON object"])
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TextRejected([f"the answer is not valid JSON ({exc.msg}; character {exc.pos})"]) from None
    if not isinstance(data, dict):
        raise TextRejected([f"the answer must be a JSON object with keys {keys}"])
    unstorable = unstorable_characters(json.dumps(data, ensure_ascii=False))
    if unstorable:
        # A lone surrogate escape cannot be written as UTF-8: asking again costs less than a damaged text.
        named = ", ".join(unstorable[:3])
        problem = f"the answer holds {named} (a lone surrogate or a non-character): write each character itself"
        raise TextRejected([problem])
    return data


def parse_answer(raw: str, settings: Settings) -> CheckedSummary:
    """Raw model output → a checked summary, or ``TextRejected`` saying what is wrong, in words for the model."""
    data = json_object(raw, "summary, tags, field")
    try:
        answer = summary_answer_model(settings).model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, top="answer", special=functools.partial(_answer_problem, settings))
        raise TextRejected(problems) from None
    return checked_answer(answer.summary, answer.tags, str(answer.field), settings)  # type: ignore[attr-defined]


def _answer_problem(settings: Settings, error: Any, key: str) -> str | None:
    """Problems worded for the model's re-ask: what to send instead."""
    if error["type"] == "literal_error" and key == "field":
        return f"unknown field {error['input']!r}: choose one of {', '.join(settings.field_ids())}"
    if error["type"] == "extra_forbidden":
        return f"unexpected key {key!r}: use only summary, tags, field"
    if error["type"] == "missing":
        return f"the key {key!r} is missing"
    return None


def checked_answer(summary: str, tags: list[str], field_id: str, settings: Settings) -> CheckedSummary:
    """A model's answer, controls and bidi overrides removed before the checks and the record see it."""
    clean_tags = [t for t in (clean_line(tag) for tag in tags) if t]
    return check_summary(clean_text(summary).strip(), clean_tags, field_id, settings)


def answer_spec(settings: Settings, prompts: Prompts) -> AnswerSpec[CheckedSummary]:
    """What the LLM client is asked for: the schema, the house rules, the re-ask wording."""
    return AnswerSpec(
        name=SCHEMA_NAME,
        schema=response_schema(settings),
        schema_note=_schema_note(tuple(settings.field_ids())),
        validate=lambda raw: parse_answer(raw, settings),
        reask=prompts.reask,
    )
