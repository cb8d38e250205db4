"""What is sent to the provider: the caller's ``AnswerSpec`` and the chat-completions request body.

The online path (``llm``) and the Batch API path (``batch``) build the same body here, so a
batch line asks exactly what an online request would.  The body depends on the structured
output mode (``json_schema``, or ``json_object`` with the schema in ``response_format.schema`` and said in
the system prompt) and on the request parameters the server refused this run (``max_tokens``,
``temperature``, ``response_format.schema``).
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from summarizer.core.config import LLMSettings

Mode = Literal["json_schema", "json_object"]
Messages = list[dict[str, str]]
# In ``refused``: the server refused ``response_format.schema`` beside ``json_object`` (the schema stays in the prompt).
SCHEMA_KEY = "response_format.schema"

T = TypeVar("T")


@dataclass(frozen=True)
class AnswerSpec(Generic[T]):
    """What the caller wants back; the transport knows nothing else about the answer.

    ``schema`` (a strict JSON schema, sent under ``name``) shapes the answer;
    ``schema_note`` says it in the system prompt when the provider only takes
    ``json_object`` (and so does not enforce the schema); ``validate`` turns
    the raw text into ``T`` or raises ``TextRejected`` with the problems;
    ``reask`` builds the messages that show the model its previous answer and
    those problems (appended to the original messages); ``max_tokens`` caps the
    answer (None: ``llm.max_output_tokens``; a note is longer than a summary).
    """

    name: str
    schema: dict[str, Any]
    schema_note: str
    validate: Callable[[str], T]
    reask: Callable[[str, list[str]], Messages]
    max_tokens: int | None = None
    max_tokens_key: str = "llm.max_output_tokens"  # the setting that ``max_tokens`` comes from, for messages

    def output_cap(self, llm: LLMSettings) -> int:
        return self.max_tokens or llm.max_output_tokens


def sampling_params(llm: LLMSettings, max_tokens: int, refused: Set[str] = frozenset()) -> dict[str, Any]:
    """``max_tokens`` and ``temperature``, as the model takes them (``refused``: what it refused this run).

    OpenAI's reasoning models (o-series, gpt-5) answer 400 to ``max_tokens``
    (they take ``max_completion_tokens``) and to any non-default temperature;
    most other OpenAI-compatible servers know only ``max_tokens``.  So ask the
    common way first and switch for the rest of the run when refused.
    """
    params: dict[str, Any] = {}
    if "temperature" not in refused:
        params["temperature"] = llm.temperature
    token_param = "max_completion_tokens" if "max_tokens" in refused else "max_tokens"
    params[token_param] = max_tokens
    return params


def response_format_for(mode: Mode, name: str, schema: dict[str, Any], with_schema: bool = True) -> dict[str, Any]:
    """OpenAI's strict ``json_schema``; else ``json_object``, with the schema under ``schema`` unless refused.

    llama-cpp-python's server and llama.cpp's ``llama-server`` constrain a ``json_object`` answer to that
    schema by grammar; providers that read only ``type`` ignore it (the prompt carries the schema anyway).
    """
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    return {"type": "json_object", "schema": schema} if with_schema else {"type": "json_object"}


def chat_request(llm: LLMSettings, messages: Messages, spec: AnswerSpec[Any]) -> dict[str, Any]:
    """The request body the online path sends first for ``messages`` (the batch path writes the same)."""
    mode: Mode = "json_object" if llm.structured_output == "json_object" else "json_schema"
    # A batch cannot learn what a provider refuses: its json_object lines carry the type alone.
    return request_body(llm, messages, spec, mode, frozenset({SCHEMA_KEY}))


def request_body(
    llm: LLMSettings, messages: Messages, spec: AnswerSpec[Any], mode: Mode, refused: Set[str]
) -> dict[str, Any]:
    """The body for this mode and what this model accepts (``refused``: parameters it refused this run)."""
    return {
        "model": llm.model,
        "messages": messages if mode == "json_schema" else _with_note(messages, spec.schema_note),
        "response_format": response_format_for(mode, spec.name, spec.schema, SCHEMA_KEY not in refused),
        **sampling_params(llm, spec.output_cap(llm), refused),
    }


def _with_note(messages: Messages, note: str) -> Messages:
    """``note`` at the end of the system prompt (a system message of its own when there is none)."""
    if messages and messages[0]["role"] == "system":
        return [{"role": "system", "content": f"{messages[0]['content']}\n\n{note}"}, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]
