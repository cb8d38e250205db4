"""How each OpenAI-compatible server takes ``response_format``, as the loopback stand-in imitates it.

``FakeOpenAI(dialect=...)`` answers a request's ``response_format`` the way that server does, as its
documentation or source says (docs/providers.md lists the sources):

- ``openai``, ``vllm``, ``ollama``, ``llama-server``: take ``json_schema`` and ``json_object``.
- ``deepseek``: refuses ``json_schema`` with a 400 ("This response_format type is unavailable now");
  takes ``json_object`` (reading only its ``type``).
- ``dashscope``: most Qwen models refuse ``json_schema`` with a 400; ``json_object`` needs the word
  "json" in the messages, else a 400 saying so.
- ``llama-cpp-python``: its server validates ``response_format.type`` as ``text`` or ``json_object``
  and answers ``json_schema`` with a 500 carrying pydantic's validation error and a traceback; it
  takes ``{"type": "json_object", "schema": …}`` and constrains the answer by grammar.
- ``llama-server-old``: llama.cpp's server before September 2024 (PR #9527): a 500 "response_format
  type must be one of "text" or "json_object", but got: json_schema".
- ``ollama-old``: Ollama before 0.5 reads only ``json_object``: a ``json_schema`` request is answered
  as if no format had been asked, in prose.
- ``strict-keys``: a server that refuses a key it does not know in ``response_format`` (400), for
  the step from ``json_object`` with the schema to ``json_object`` alone.
- ``no-format``: refuses every ``response_format`` (400), for the failure that names the setting.
"""

from __future__ import annotations

from typing import Any

from .fake_requests import error_body, prompt_text

DIALECTS = (
    "openai",
    "vllm",
    "ollama",
    "llama-server",
    "deepseek",
    "dashscope",
    "llama-cpp-python",
    "llama-server-old",
    "ollama-old",
    "strict-keys",
    "no-format",
)

# llama-cpp-python 0.3.36's answer to json_schema, as its server sends it (its pydantic model allows only
# text and json_object; the message ends in a stack frame with the server's own path).
LLAMA_CPP_PYTHON_500 = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n"
    '  File "/srv/venv/lib/python3.11/site-packages/llama_cpp/server/app.py", line 376, '
    "in create_chat_completion\n    POST /v1/chat/completions"
)
# What a server answers in prose when it ignored the format asked for.
PROSE_ANSWER = "Sure! This paper proposes a new method and shows strong results on several benchmarks."


def _format(body: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    fmt = body.get("response_format")
    return (fmt.get("type"), fmt) if isinstance(fmt, dict) else (None, {})


def refusal(dialect: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """(status, error body) when ``dialect`` refuses the request's ``response_format``; None when it takes it."""
    kind, fmt = _format(body)
    if kind is None:
        return None
    if dialect == "no-format":
        return 400, error_body(f"response_format {kind} is not supported by this server", "invalid_request_error")
    if kind == "json_schema" and dialect in ("deepseek", "dashscope"):
        return 400, error_body("This response_format type is unavailable now", "invalid_request_error")
    if kind == "json_schema" and dialect == "llama-cpp-python":
        return 500, {"error": {"message": LLAMA_CPP_PYTHON_500, "type": "internal_server_error", "param": None}}
    if kind == "json_schema" and dialect == "llama-server-old":
        message = 'response_format type must be one of "text" or "json_object", but got: json_schema'
        return 500, {"error": {"code": 500, "message": message, "type": "server_error"}}
    if kind == "json_object" and dialect == "dashscope" and "json" not in prompt_text(body).lower():
        message = (
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
        )
        return 400, error_body(message, "invalid_request_error")
    if dialect == "strict-keys" and set(fmt) - {"type", "json_schema"}:
        extra = sorted(set(fmt) - {"type", "json_schema"})[0]
        return 400, error_body(f"Unrecognized request argument supplied: response_format.{extra}", "invalid_request")
    return None


def ignores_format(dialect: str, body: dict[str, Any]) -> bool:
    """Whether ``dialect`` answers this request as if no format had been asked (in prose)."""
    return dialect == "ollama-old" and _format(body)[0] == "json_schema"
