"""Transport to an OpenAI-compatible chat-completions provider.

One ``LLMClient`` per run: an ``AsyncOpenAI`` client (``max_retries=0``: the
retries here are the only ones), at most ``llm.max_concurrency`` requests in
flight, client-side pacing by two token buckets (requests and tokens per
minute; clarification 1), and tenacity retries for 429, 5xx, timeouts and
connection errors — honouring ``retry-after-ms`` / ``retry-after``, jittered
exponential backoff otherwise.  400/401/403 are never retried; a 401 raises
``AuthenticationFailed`` naming ``llm.api_key_env``, which stops the run.

Structured output: ``json_schema`` (strict) first; a provider that refuses it
with a 400 (DeepSeek, Kimi, GLM, most Qwen models) is asked again with
``json_object``, and the downgrade is remembered per (base_url, model) for the
rest of the run.  ``llm.structured_output`` forces a mode.

``complete_validated`` is the instructor-style loop: the answer goes through a
validator; when it raises ``InvalidAnswer`` the model sees its previous answer
and the problems, and answers again.  Transport retries and re-asks share one
budget of ``llm.max_attempts`` calls per paper.

The API key is read from the environment when the client is built and never
appears in a message, a cache key or a log line: provider error texts are
scrubbed of it, and a 401's body is never shown at all.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from .config import LLMSettings
from .errors import AuthenticationFailed, LLMError, OutputInvalidError
from .extract import estimate_tokens
from .store import Usage

Mode = Literal["json_schema", "json_object"]

# Backoff between transport retries; module constants so tests can shrink them.
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0
# A Retry-After longer than this is not waited out: the paper fails with the reason.
RETRY_AFTER_MAX_S = 300.0
# The pacing window: one minute.  Tests shrink it to keep rate tests quick.
MINUTE_S = 60.0
# Requests kept in hand below the RPM cap.  The provider counts a request when it arrives, and
# arrival delays vary (the first requests also open connections): a client pacing exactly at the
# cap ends up a fraction of a request ahead of the provider's bucket and gets a 429 (measured by
# `make bench`).  One request of margin absorbs that; the first burst is one request smaller.
REQUEST_MARGIN = 1

T = TypeVar("T")


# -- pacing --------------------------------------------------------------------


class TokenBucket:
    """Capacity = one window's allowance, refilled continuously; starts full.

    ``acquire(n)`` waits until ``n`` tokens are there (a request bigger than the
    whole capacity waits for a full bucket, never forever).  ``adjust(delta)``
    corrects an estimate once the real cost is known; the level may go
    negative, which delays later requests.
    """

    def __init__(self, per_window: float, window_s: float, *, clock: Callable[[], float] = time.monotonic):
        self.capacity = float(per_window)
        self.rate = float(per_window) / window_s
        self._clock = clock
        self._level = self.capacity
        self._stamp = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
        self._stamp = now

    def wait_time(self, n: float) -> float:
        """Seconds until ``n`` tokens are available (0 if now)."""
        self._refill()
        need = min(n, self.capacity)
        return 0.0 if self._level >= need else (need - self._level) / self.rate

    def take(self, n: float) -> None:
        self._refill()
        self._level -= n

    async def acquire(self, n: float) -> None:
        async with self._lock:  # first come, first served
            while (delay := self.wait_time(n)) > 0:
                await asyncio.sleep(delay)
            self.take(n)

    def adjust(self, delta: float) -> None:
        self._refill()
        self._level = min(self.capacity, self._level - delta)

    @property
    def level(self) -> float:
        self._refill()
        return self._level


class RateLimiter:
    """Requests-per-minute and tokens-per-minute buckets, plus a shared pause after a 429."""

    def __init__(self, rpm: int, tpm: int, *, window_s: float | None = None):
        window = MINUTE_S if window_s is None else window_s
        self.requests = TokenBucket(rpm, window)
        self.tokens = TokenBucket(tpm, window)
        self._paused_until = 0.0

    def pause(self, seconds: float) -> None:
        """The provider asked everyone to wait (Retry-After): hold back every request, not just one."""
        self._paused_until = max(self._paused_until, time.monotonic() + seconds)

    async def acquire(self, estimated_tokens: int) -> None:
        while (wait := self._paused_until - time.monotonic()) > 0:
            await asyncio.sleep(wait)
        await self.requests.acquire(1 + REQUEST_MARGIN)
        self.requests.adjust(-REQUEST_MARGIN)  # the margin is only waited for, not spent
        await self.tokens.acquire(estimated_tokens)

    def settle(self, estimated_tokens: int, actual_tokens: int | None) -> None:
        """Correct the token bucket with the provider's usage (refund or extra charge)."""
        if actual_tokens is not None:
            self.tokens.adjust(actual_tokens - estimated_tokens)


# -- results and errors ----------------------------------------------------------


class InvalidAnswer(ValueError):
    """Raised by a validator: the answer broke the schema or the house rules."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class Validated(Generic[T]):
    value: T
    raw: str
    usage: Usage
    attempts: int
    mode: Mode
    model: str


class _Refused(Exception):
    """The provider refused part of the request (json_schema, max_tokens, temperature): ask again without it."""


class _Reask(Exception):
    def __init__(self, problems: list[str], raw: str):
        self.problems = problems
        self.raw = raw
        super().__init__("; ".join(problems))


_SCHEMA_REFUSAL = re.compile(r"response_format|json_schema|structured output|schema", re.IGNORECASE)


def retry_after_seconds(headers: Any) -> float | None:
    """``retry-after-ms`` (OpenAI), else ``retry-after`` in seconds or as an HTTP date."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, (_Refused, _Reask, openai.APIConnectionError)):  # APITimeoutError is one
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


@dataclass
class _CallState:
    messages: list[dict[str, str]]
    usage: Usage = field(default_factory=Usage)
    last_raw: str | None = None
    last_problems: list[str] = field(default_factory=list)
    calls: int = 0


class LLMClient:
    """One run's connection to the provider. Use as ``async with LLMClient(settings.llm) as client``."""

    def __init__(
        self,
        llm: LLMSettings,
        *,
        backoff_base_s: float | None = None,
        backoff_max_s: float | None = None,
        window_s: float | None = None,
    ):
        self.settings = llm
        self._api_key = llm.api_key()  # MissingAPIKeyError (exit 2) before any work
        self.client = openai.AsyncOpenAI(
            api_key=self._api_key, base_url=llm.base_url, timeout=llm.timeout_s, max_retries=0
        )
        self.semaphore = asyncio.Semaphore(llm.max_concurrency)
        self.limiter = RateLimiter(llm.requests_per_minute, llm.tokens_per_minute, window_s=window_s)
        self.backoff_base_s = BACKOFF_BASE_S if backoff_base_s is None else backoff_base_s
        self.backoff_max_s = BACKOFF_MAX_S if backoff_max_s is None else backoff_max_s
        # Downgrades learnt this run, per (base_url, model).
        self._modes: dict[tuple[str, str], Mode] = {}
        # Request parameters the model refused this run ("max_tokens", "temperature").
        self._refused_params: set[str] = set()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.client.close()

    # -- modes --------------------------------------------------------------
    def mode(self) -> Mode:
        forced = self.settings.structured_output
        if forced != "auto":
            return forced
        return self._modes.get((self.settings.base_url, self.settings.model), "json_schema")

    def _downgrade(self) -> None:
        self._modes[(self.settings.base_url, self.settings.model)] = "json_object"

    # -- parameters a model may refuse -------------------------------------------
    def _sampling_params(self, max_tokens: int) -> dict[str, Any]:
        """``max_tokens`` and ``temperature``, as this model takes them (see ``sampling_params``)."""
        return sampling_params(self.settings, max_tokens, self._refused_params)

    def _learn_unsupported(self, exc: openai.BadRequestError) -> bool:
        """True when the 400 refused ``max_tokens`` or ``temperature`` for the first time (ask again without it)."""
        param = exc.param if exc.code in ("unsupported_parameter", "unsupported_value") else None
        if param in ("max_tokens", "temperature") and param not in self._refused_params:
            self._refused_params.add(param)
            return True
        return False

    # -- messages -------------------------------------------------------------
    def scrub(self, text: str) -> str:
        """Provider texts may echo the key: never let it through."""
        return text.replace(self._api_key, "***") if self._api_key else text

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, openai.APITimeoutError):
            return f"the request timed out after {self.settings.timeout_s:g}s (llm.timeout_s)"
        if isinstance(exc, openai.APIConnectionError):
            return f"cannot reach {self.settings.base_url}: {self.scrub(str(exc.__cause__ or exc))}"
        if isinstance(exc, openai.APIStatusError):
            message = exc.message if isinstance(exc.message, str) else ""
            if isinstance(exc.body, dict) and isinstance(exc.body.get("message"), str):
                message = exc.body["message"]
            message = self.scrub(" ".join(message.split()))[:300]
            return f"HTTP {exc.status_code} from the provider: {message}"
        return self.scrub(str(exc))

    # -- one HTTP call ----------------------------------------------------------
    async def _call(self, state: _CallState, schema: dict[str, Any], max_tokens: int) -> tuple[str, str | None]:
        mode = self.mode()
        response_format = response_format_for(mode, schema)
        messages = state.messages if mode == "json_schema" else _with_schema(state.messages, schema)
        estimate = sum(estimate_tokens(m["content"]) for m in messages) + max_tokens
        await self.limiter.acquire(estimate)
        try:
            async with self.semaphore:
                state.calls += 1
                completion = await self.client.chat.completions.create(  # type: ignore[call-overload]
                    model=self.settings.model,
                    messages=messages,
                    response_format=response_format,
                    **self._sampling_params(max_tokens),
                )
        except openai.AuthenticationError:
            raise AuthenticationFailed(
                f"the provider refused the API key (HTTP 401): check the environment variable "
                f"{self.settings.api_key_env} (llm.api_key_env) for {self.settings.base_url}"
            ) from None
        except openai.RateLimitError as exc:
            wait = retry_after_seconds(exc.response.headers)
            if wait is not None:
                self.limiter.pause(min(wait, RETRY_AFTER_MAX_S))
            raise
        except openai.BadRequestError as exc:
            if self._learn_unsupported(exc):
                raise _Refused() from exc
            refused = _SCHEMA_REFUSAL.search(str(exc.message)) or _SCHEMA_REFUSAL.search(json.dumps(exc.body))
            if mode == "json_schema" and self.settings.structured_output == "auto" and refused:
                self._downgrade()
                raise _Refused() from exc
            raise
        usage = completion.usage
        if usage is not None:
            self.limiter.settle(estimate, usage.total_tokens or (usage.prompt_tokens + usage.completion_tokens))
        price = self.settings.price_per_million
        prompt_tokens = usage.prompt_tokens if usage else 0
        completion_tokens = usage.completion_tokens if usage else 0
        state.usage.add(
            Usage(
                llm_calls=1,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cost_usd=round((prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000, 8),
            )
        )
        choice = completion.choices[0] if completion.choices else None
        content = (choice.message.content or "") if choice else ""
        return content, (choice.finish_reason if choice else None)

    # -- the validated loop ---------------------------------------------------------
    async def complete_validated(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        validate: Callable[[str], T],
        *,
        paper_id: str | None = None,
        max_attempts: int | None = None,
    ) -> Validated[T]:
        """Ask until ``validate`` accepts the answer, within ``llm.max_attempts`` calls (or ``max_attempts``).

        Raises ``OutputInvalidError`` (last raw output kept), ``LLMError`` for a
        transport failure, ``AuthenticationFailed`` on a 401.  Every raised
        ``LLMError`` carries ``usage``: what the failed attempts cost.
        """
        state = _CallState(messages=list(messages))
        max_tokens = self.settings.max_output_tokens

        def wait(retry_state: RetryCallState) -> float:
            exc = retry_state.outcome.exception() if retry_state.outcome else None
            if isinstance(exc, (_Refused, _Reask)):
                return 0.0
            if isinstance(exc, openai.APIStatusError):
                after = retry_after_seconds(exc.response.headers)
                if after is not None:
                    return min(after, RETRY_AFTER_MAX_S)
            # Full jitter: uniform in [0, base * 2^(n-1)], capped.
            ceiling = min(self.backoff_max_s, self.backoff_base_s * 2 ** (retry_state.attempt_number - 1))
            return random.uniform(0, ceiling)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(max_attempts or self.settings.max_attempts),
            wait=wait,
            retry=retry_if_exception(_retryable),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    content, finish = await self._call(state, schema, max_tokens)
                    state.last_raw = content
                    try:
                        value = validate(content)
                    except InvalidAnswer as exc:
                        problems = list(exc.problems)
                        if finish == "length":
                            problems.append(cut_off_problem(max_tokens))
                        state.last_problems = problems
                        state.messages = [*messages, *_reask_messages(content, problems)]
                        raise _Reask(problems, content) from None
                    return Validated(
                        value=value,
                        raw=content,
                        usage=state.usage,
                        attempts=state.calls,
                        mode=self.mode(),
                        model=self.settings.model,
                    )
            raise AssertionError("unreachable: tenacity returns or re-raises")
        except AuthenticationFailed as exc:
            exc.usage = state.usage
            raise
        except _Reask as exc:
            error: LLMError = OutputInvalidError(
                f"the model's answer was still invalid after {state.calls} attempts: {'; '.join(exc.problems)}",
                paper_id=paper_id,
                attempt=state.calls,
                raw_output=exc.raw,
            )
        except _Refused:
            error = LLMError(
                "the provider kept refusing the request's parameters (json_schema, max_tokens or temperature) "
                "and the attempts ran out",
                paper_id=paper_id,
                attempt=state.calls,
            )
        except (openai.APIError, openai.OpenAIError) as exc:
            reason = self._describe(exc)
            if _retryable(exc):
                reason += f" (gave up after {state.calls} attempts)"
            error = LLMError(reason, paper_id=paper_id, attempt=state.calls, raw_output=state.last_raw)
        error.usage = state.usage
        raise error


def sampling_params(
    llm: LLMSettings, max_tokens: int, refused: set[str] | frozenset[str] = frozenset()
) -> dict[str, Any]:
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


def response_format_for(mode: Mode, schema: dict[str, Any]) -> dict[str, Any]:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "paper_summary", "strict": True, "schema": schema}}
    return {"type": "json_object"}


def chat_request(llm: LLMSettings, messages: list[dict[str, str]], schema: dict[str, Any]) -> dict[str, Any]:
    """The request body the online path sends first for ``messages`` (the batch path writes the same)."""
    mode: Mode = "json_object" if llm.structured_output == "json_object" else "json_schema"
    return {
        "model": llm.model,
        "messages": messages if mode == "json_schema" else _with_schema(messages, schema),
        "response_format": response_format_for(mode, schema),
        **sampling_params(llm, llm.max_output_tokens),
    }


def _with_schema(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """In json_object mode the provider does not enforce the schema: state it in the system prompt."""
    note = "\n\n输出的 JSON 对象必须符合这个 JSON Schema：\n" + json.dumps(schema, ensure_ascii=False)
    if messages and messages[0]["role"] == "system":
        return [{"role": "system", "content": messages[0]["content"] + note}, *messages[1:]]
    return [{"role": "system", "content": note.strip()}, *messages]


def cut_off_problem(max_tokens: int) -> str:
    return (
        f"the answer was cut off at {max_tokens} tokens (llm.max_output_tokens): "
        "answer shorter, with the JSON object complete"
    )


def _reask_messages(raw: str, problems: list[str]) -> list[dict[str, str]]:
    listed = "\n".join(f"- {p}" for p in problems)
    return [
        {"role": "assistant", "content": raw},
        {
            "role": "user",
            "content": (
                "你上一次的回答不符合要求，问题如下：\n"
                f"{listed}\n"
                "请修正这些问题，重新输出一个完整的 JSON 对象，只包含 summary、tags、field 三个键，不要输出其他内容。"
            ),
        },
    ]


def usage_of(exc: BaseException) -> Usage:
    """What the failed attempts behind an ``LLMError`` from this module cost (zero if unknown)."""
    usage = getattr(exc, "usage", None)
    return usage if isinstance(usage, Usage) else Usage()
