"""Which structured-output mode a server takes, learnt from how it answers; and what a person reads when it fails.

``llm.structured_output: auto`` walks down three steps, each taken once per run (per base_url and model):

1. ``json_schema``: OpenAI's strict schema (OpenAI, vLLM, Ollama ≥ 0.5, llama.cpp's ``llama-server``).
2. ``json_object`` with the schema in ``response_format.schema`` and in the prompt: llama-cpp-python's
   server and ``llama-server`` constrain the answer to it by grammar; providers that read only ``type``
   (DeepSeek, DashScope) take it as plain JSON mode and the prompt carries the schema.
3. ``json_object`` alone, the schema in the prompt only: for a server that refuses the extra key.

A step down is taken on a refusal of ``response_format``: a 400 or 422 naming it, the schema or
structured output, or a 500 naming ``response_format`` or ``json_schema`` (llama-cpp-python's server and
older ``llama-server`` builds answer 500 to ``json_schema``); and, for step 1 only, on an answer that
is not JSON at all, from a server that ignored the schema (Ollama before 0.5).  A refusal is the
protocol's, not the paper's: it never spends one of the paper's ``llm.max_attempts``.

``person_reason`` turns the validator's problems (worded for the model, with what to do instead) into the
one line a person reads in ``status`` and ``review``: what was wrong with the answer, bounded, no
instructions, no server stack trace.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import openai

from summarizer.core import limits
from summarizer.core.errors import clip
from summarizer.core.sanitize import clean_line

from .chat_request import SCHEMA_KEY, Mode

# What a 400/422 refusing structured output says (DeepSeek: "This response_format type is unavailable now").
_REFUSAL_4XX = re.compile(r"response_format|json_schema|structured output|schema", re.IGNORECASE)
# A 500 counts only when it names the parameter: a bare 500 is the server's trouble, retried as such.
_REFUSAL_5XX = re.compile(r"response_format|json_schema", re.IGNORECASE)
# Where a server's text stops being a message: a Python traceback, a stack frame, a pydantic help link.
_DEBRIS = re.compile(r"Traceback \(most recent call last\)|\bFile \"|For further information visit|\n\s+at ", re.I)
# A validator's problem ends in what to do instead (for the model's re-ask): the person reads what was wrong.
_INSTRUCTION = re.compile(
    r":\s+(?:write|choose|it must|answer|reply|use|give|keep|shorten|remove|split|put|add)\b.*$", re.IGNORECASE
)
PROBLEM_SHOWN = 120  # one problem in a failure's reason


def provider_text(exc: openai.APIStatusError) -> str:
    """What the server said, on one line: its message (or body) cut before any traceback, bounded."""
    message = exc.message if isinstance(exc.message, str) else ""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error")
        said = (inner if isinstance(inner, dict) else body).get("message")
        if isinstance(said, str):
            message = said
    found = _DEBRIS.search(message)
    if found:
        message = message[: found.start()]
    return clip(" ".join(clean_line(message).split()), limits.SHOWN_PROVIDER)


def _whole_text(exc: openai.APIStatusError) -> str:
    try:
        body = json.dumps(exc.body, ensure_ascii=False)
    except (TypeError, ValueError):
        body = str(exc.body)
    return f"{exc.message} {body}"


def refuses_format(exc: openai.OpenAIError) -> bool:
    """The server refused the request's ``response_format`` (not the paper, not a passing fault)."""
    if not isinstance(exc, openai.APIStatusError):
        return False
    if exc.status_code in (400, 422):
        return bool(_REFUSAL_4XX.search(_whole_text(exc)))
    if exc.status_code == 500:
        return bool(_REFUSAL_5XX.search(_whole_text(exc)))
    return False


def not_json(raw: str) -> bool:
    """An answer that is text but no JSON object at all (a ```json fence forgiven); an empty one is not told."""
    text = raw.strip()
    if not text:
        return False
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        return not isinstance(json.loads(text), dict)
    except ValueError:
        return True


@dataclass
class ModeBook:
    """One run's structured-output mode and what the server refused (see the module doc)."""

    configured: str  # llm.structured_output: auto, json_schema or json_object
    learnt: Mode | None = None
    refused: set[str] = field(default_factory=set)  # SCHEMA_KEY once json_object with the schema was refused
    why: str = ""  # the last refusal, in the server's words

    def mode(self) -> Mode:
        if self.configured != "auto":
            return "json_schema" if self.configured == "json_schema" else "json_object"
        return self.learnt or "json_schema"

    def step_down(self, used: Mode, sent_schema_key: bool, why: str) -> bool:
        """A refusal of the request sent in ``used``: True when a mode is left to ask in (taken for the run).

        Idempotent, so requests in flight together that were all refused step down once between them.
        """
        self.why = why or self.why
        if used == "json_schema":
            if self.configured != "auto":
                return False
            self.learnt = "json_object"
            return True
        if sent_schema_key:
            self.refused.add(SCHEMA_KEY)
            return True
        return False

    def ignored(self, used: Mode) -> bool:
        """An answer that is not JSON at all to a json_schema request: the server ignored it (step down, once)."""
        if used == "json_schema" and self.configured == "auto":
            self.learnt = "json_object"
            self.why = "the server ignored response_format json_schema (the answer was not JSON)"
            return True
        return False

    def exhausted(self) -> str:
        """The reason a paper fails with when the server refused every mode left to it."""
        said = f" ({self.why})" if self.why else ""
        if self.configured == "json_schema":
            return (
                f"the server refused response_format json_schema{said}: "
                "set llm.structured_output to auto (it falls back to json_object)"
            )
        if self.configured == "json_object":
            return f"the server refused response_format json_object{said}: set llm.structured_output to auto"
        return (
            f"the server refused json_schema and json_object{said}: set llm.structured_output "
            "(docs/providers.md says what each server takes)"
        )


def person_problem(problem: str) -> str:
    """One problem as a person reads it: what was wrong, without the instruction written for the model."""
    return clip(_INSTRUCTION.sub("", clean_line(problem)).strip(), PROBLEM_SHOWN)


def person_reason(problems: list[str], attempts: int) -> str:
    """A failure's one line: the last answer's problems, as a person reads them, and the calls it took."""
    said = "; ".join(dict.fromkeys(person_problem(p) for p in problems if p.strip())) or "no usable answer"
    calls = f"{attempts} attempt{'' if attempts == 1 else 's'}"
    return clip(f"the model's answer: {said} (after {calls})", limits.SHOWN_MESSAGE // 2)


def described(exc: Any) -> str:
    """A non-refusal HTTP error, for a paper's failure: status and the server's words, bounded and clean."""
    return f"HTTP {exc.status_code} from the provider: {provider_text(exc)}"
