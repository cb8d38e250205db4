"""Transport to an OpenAI-compatible chat-completions provider; it knows nothing about papers.

One ``LLMClient`` per run: an ``AsyncOpenAI`` client (``max_retries=0``: the
retries here are the only ones), at most ``llm.max_concurrency`` requests in
flight, client-side pacing by two token buckets (requests and tokens per
minute, so a run stays under the provider's limits instead of collecting
429s), and retries for 429, 5xx, timeouts and connection errors — honouring
``retry-after-ms`` / ``retry-after``, jittered exponential backoff otherwise.
400/401/403 are never retried; a 401 raises ``AuthenticationFailed`` naming
``llm.api_key_env``, which stops the run.

Structured output: ``json_schema`` (strict) first; a provider that refuses it
with a 400 (DeepSeek, Kimi, GLM, most Qwen models) is asked again with
``json_object``, and the downgrade is remembered per (base_url, model) for the
rest of the run.  ``llm.structured_output`` forces a mode.

``complete_validated`` is the instructor-style loop; the caller's
``AnswerSpec`` brings the schema, the validator and the re-ask builder.  When
the validator raises ``SummaryRejected`` the model sees its previous answer and
the problems (worded by the caller), and answers again.  Each call is built,
sent, classified (an answer, or "ask again" with a wait) and accounted;
transport retries and re-asks share one budget of ``llm.max_attempts`` calls
per paper.  The SDK's exceptions end here: what leaves is ``LLMError`` (this
paper) or ``AuthenticationFailed`` (the run), each carrying the usage so far.

The API key is read from the environment when the client is built and never
appears in a message, a cache key or a log line: provider error texts are
scrubbed of it, and a 401's body is never shown at all.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import random
import re
import time
from collections.abc import Callable, Set
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import openai

from summarizer.core.config import LLMSettings
from summarizer.core.errors import AuthenticationFailed, LLMError, OutputInvalidError, SummaryRejected
from summarizer.core.tokens import estimate_tokens
from summarizer.core.usage import Usage

from .provider import chat_client, scrub

# `summarizer -v` shows these: retries, backoffs, pacing waits and mode switches; `-vv` every request.
log = logging.getLogger(__name__)

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

    def __init__(self, rpm: int, tpm: int):
        self.requests = TokenBucket(rpm, MINUTE_S)
        self.tokens = TokenBucket(tpm, MINUTE_S)
        self._paused_until = 0.0

    def pause(self, seconds: float) -> None:
        """The provider asked everyone to wait (Retry-After): hold back every request, not just one."""
        self._paused_until = max(self._paused_until, time.monotonic() + seconds)

    async def acquire(self, estimated_tokens: int) -> None:
        while (wait := self._paused_until - time.monotonic()) > 0:
            log.info("pacing: the provider asked to wait, holding requests %.1f s", wait)
            await asyncio.sleep(wait)
        waits = (self.requests.wait_time(1 + REQUEST_MARGIN), self.tokens.wait_time(estimated_tokens))
        if max(waits) > 0:
            log.info("pacing: waiting %.1f s for the requests-per-minute or tokens-per-minute allowance", max(waits))
        await self.requests.acquire(1 + REQUEST_MARGIN)
        self.requests.adjust(-REQUEST_MARGIN)  # the margin is only waited for, not spent
        await self.tokens.acquire(estimated_tokens)

    def settle(self, estimated_tokens: int, actual_tokens: int | None) -> None:
        """Correct the token bucket with the provider's usage (refund or extra charge)."""
        if actual_tokens is not None:
            self.tokens.adjust(actual_tokens - estimated_tokens)


# -- what the caller asks for, and what it gets --------------------------------------


Messages = list[dict[str, str]]


@dataclass(frozen=True)
class AnswerSpec(Generic[T]):
    """What the caller wants back; the transport knows nothing else about the answer.

    ``schema`` (a strict JSON schema, sent under ``name``) shapes the answer;
    ``schema_note`` says it in the system prompt when the provider only takes
    ``json_object`` (and so does not enforce the schema); ``validate`` turns
    the raw text into ``T`` or raises ``SummaryRejected`` with the problems;
    ``reask`` builds the messages that show the model its previous answer and
    those problems (appended to the original messages).
    """

    name: str
    schema: dict[str, Any]
    schema_note: str
    validate: Callable[[str], T]
    reask: Callable[[str, list[str]], Messages]


@dataclass
class Validated(Generic[T]):
    value: T
    raw: str
    usage: Usage
    attempts: int
    mode: Mode
    model: str


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


def _transient(exc: openai.OpenAIError) -> bool:
    """Worth another try: a connection error or timeout, 408, 409, 429 or a 5xx."""
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


@dataclass
class _CallState:
    """One ``complete_validated``: the messages of the next call, the cost so far, the last answer."""

    messages: Messages
    paper_id: str | None = None
    usage: Usage = field(default_factory=Usage)
    last_raw: str | None = None
    calls: int = 0


@dataclass
class _Answer:
    content: str
    finish_reason: str | None


@dataclass
class _Again:
    """The call failed in a way another call may not: wait ``wait_s`` (None: back off), then ask again."""

    why: Literal["refused", "transient"]
    reason: str
    wait_s: float | None = None


_Outcome = _Answer | _Again


@dataclass
class _Rejected:
    """The validator refused the answer: these problems go back to the model."""

    problems: list[str]


class LLMClient:
    """One run's connection to the provider. Use as ``async with LLMClient(settings.llm) as client``."""

    def __init__(self, llm: LLMSettings):
        self.settings = llm
        self.client = chat_client(llm)  # MissingAPIKeyError (exit 2) before any work
        self._api_key = self.client.api_key
        self.semaphore = asyncio.Semaphore(llm.max_concurrency)
        self.limiter = RateLimiter(llm.requests_per_minute, llm.tokens_per_minute)
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
        log.info("structured output: %s refused json_schema; json_object for the rest of the run", self.settings.model)
        self._modes[(self.settings.base_url, self.settings.model)] = "json_object"

    # -- parameters a model may refuse -------------------------------------------
    def _learn_unsupported(self, exc: openai.BadRequestError) -> bool:
        """True when the 400 refused ``max_tokens`` or ``temperature`` for the first time (ask again without it)."""
        param = exc.param if exc.code in ("unsupported_parameter", "unsupported_value") else None
        if param in ("max_tokens", "temperature") and param not in self._refused_params:
            log.info("%s refused %s; asking without it for the rest of the run", self.settings.model, param)
            self._refused_params.add(param)
            return True
        return False

    def _learn_schema_refusal(self, exc: openai.BadRequestError, mode: Mode) -> bool:
        """True when the 400 refused json_schema and auto mode may fall back to json_object (remembered)."""
        refused = _SCHEMA_REFUSAL.search(str(exc.message)) or _SCHEMA_REFUSAL.search(json.dumps(exc.body))
        if mode == "json_schema" and self.settings.structured_output == "auto" and refused:
            self._downgrade()
            return True
        return False

    # -- messages -------------------------------------------------------------
    def scrub(self, text: str) -> str:
        """Provider texts may echo the key: never let it through."""
        return scrub(text, self._api_key)

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

    # -- one HTTP call: build, send, classify, account ------------------------------
    def _build(self, messages: Messages, spec: AnswerSpec[Any], mode: Mode) -> dict[str, Any]:
        """The request body for this mode and what this model accepts."""
        return _request_body(self.settings, messages, spec, mode, self._refused_params)

    async def _send(self, state: _CallState, body: dict[str, Any]) -> Any:
        """One paced request (both buckets, the concurrency cap); the completion, or the SDK's exception."""
        estimate = sum(estimate_tokens(m["content"]) for m in body["messages"]) + self.settings.max_output_tokens
        await self.limiter.acquire(estimate)
        async with self.semaphore:
            state.calls += 1
            completion = await self.client.chat.completions.create(**body)
        usage = completion.usage
        if usage is not None:
            self.limiter.settle(estimate, usage.total_tokens or (usage.prompt_tokens + usage.completion_tokens))
        return completion

    def _classify(self, exc: openai.OpenAIError, mode: Mode, state: _CallState) -> _Again:
        """A failed call, as an outcome: ask again (when and why), or an exception that ends the paper or run."""
        if isinstance(exc, openai.AuthenticationError):
            raise key_refused(self.settings, state.usage) from None
        if isinstance(exc, openai.BadRequestError) and (
            self._learn_unsupported(exc) or self._learn_schema_refusal(exc, mode)
        ):
            return _Again("refused", "the provider kept refusing the request's parameters", wait_s=0.0)
        reason = self._describe(exc)
        if not _transient(exc):
            raise LLMError(
                reason, paper_id=state.paper_id, attempt=state.calls, raw_output=state.last_raw, usage=state.usage
            )
        wait = retry_after_seconds(exc.response.headers) if isinstance(exc, openai.APIStatusError) else None
        if wait is not None and isinstance(exc, openai.RateLimitError):
            self.limiter.pause(min(wait, RETRY_AFTER_MAX_S))  # everyone waits, not only this paper
        return _Again("transient", reason, wait_s=None if wait is None else min(wait, RETRY_AFTER_MAX_S))

    def _account(self, state: _CallState, completion: Any) -> _Answer:
        """The call's cost into the paper's usage; the answer's text and why it ended."""
        usage = completion.usage
        price = self.settings.price_per_million
        prompt_tokens = usage.prompt_tokens if usage else 0
        completion_tokens = usage.completion_tokens if usage else 0
        cost = (prompt_tokens * price.input + completion_tokens * price.output) / 1_000_000
        state.usage.add(
            Usage(
                llm_calls=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=round(cost, 8)
            )
        )
        choice = completion.choices[0] if completion.choices else None
        content = (choice.message.content or "") if choice else ""
        state.last_raw = content
        return _Answer(content, choice.finish_reason if choice else None)

    async def _call(self, state: _CallState, spec: AnswerSpec[Any]) -> _Outcome:
        mode = self.mode()
        try:
            completion = await self._send(state, self._build(state.messages, spec, mode))
        except openai.OpenAIError as exc:
            return self._classify(exc, mode, state)
        return self._account(state, completion)

    # -- the validated loop ---------------------------------------------------------
    def _backoff(self, again: _Again, calls: int) -> float:
        if again.wait_s is not None:
            return again.wait_s
        # Full jitter: uniform in [0, base * 2^(n-1)], capped.
        return random.uniform(0, min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (calls - 1)))

    def _validate(self, spec: AnswerSpec[T], answer: _Answer) -> T | _Rejected:
        """The accepted value, or the problems the model is to hear about."""
        try:
            return spec.validate(answer.content)
        except SummaryRejected as exc:
            problems = list(exc.problems)
        if answer.finish_reason == "length":
            problems.append(cut_off_problem(self.settings.max_output_tokens))
        return _Rejected(problems)

    async def complete_validated(
        self,
        messages: Messages,
        spec: AnswerSpec[T],
        *,
        paper_id: str | None = None,
        max_attempts: int | None = None,
    ) -> Validated[T]:
        """Ask until ``spec.validate`` accepts the answer, within ``llm.max_attempts`` calls (or ``max_attempts``).

        Raises ``OutputInvalidError`` (last raw output kept), ``LLMError`` for a
        transport failure, ``AuthenticationFailed`` on a 401.  Each carries
        ``usage``: what the failed attempts cost.
        """
        state = _CallState(messages=list(messages), paper_id=paper_id)
        budget = max_attempts or self.settings.max_attempts
        while True:
            outcome = await self._call(state, spec)
            if isinstance(outcome, _Answer):
                checked = self._validate(spec, outcome)
                if not isinstance(checked, _Rejected):
                    return Validated(
                        checked, outcome.content, state.usage, state.calls, self.mode(), self.settings.model
                    )
                if state.calls >= budget:
                    raise _invalid(state, checked.problems)
                log.info(
                    "re-ask %s (call %d of %d): %s", paper_id or "", state.calls, budget, "; ".join(checked.problems)
                )
                state.messages = [*messages, *spec.reask(outcome.content, checked.problems)]
            elif state.calls >= budget:
                raise _gave_up(state, outcome)
            else:
                wait = self._backoff(outcome, state.calls)
                log.info("retry %s after %.1f s (call %d of %d): %s", paper_id or "", wait, state.calls, budget,
                         outcome.reason)  # fmt: skip
                await asyncio.sleep(wait)


def _invalid(state: _CallState, problems: list[str]) -> OutputInvalidError:
    return OutputInvalidError(
        f"the model's answer was still invalid after {state.calls} attempts: {'; '.join(problems)}",
        paper_id=state.paper_id,
        attempt=state.calls,
        raw_output=state.last_raw,
        usage=state.usage,
    )


def _gave_up(state: _CallState, again: _Again) -> LLMError:
    if again.why == "refused":
        reason = (
            "the provider kept refusing the request's parameters (json_schema, max_tokens or temperature) "
            "and the attempts ran out"
        )
    else:
        reason = f"{again.reason} (gave up after {state.calls} attempts)"
    return LLMError(reason, paper_id=state.paper_id, attempt=state.calls, raw_output=state.last_raw, usage=state.usage)


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


def response_format_for(mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    return {"type": "json_object"}


def chat_request(llm: LLMSettings, messages: Messages, spec: AnswerSpec[Any]) -> dict[str, Any]:
    """The request body the online path sends first for ``messages`` (the batch path writes the same)."""
    mode: Mode = "json_object" if llm.structured_output == "json_object" else "json_schema"
    return _request_body(llm, messages, spec, mode, frozenset())


def _request_body(
    llm: LLMSettings, messages: Messages, spec: AnswerSpec[Any], mode: Mode, refused: Set[str]
) -> dict[str, Any]:
    return {
        "model": llm.model,
        "messages": messages if mode == "json_schema" else _with_note(messages, spec.schema_note),
        "response_format": response_format_for(mode, spec.name, spec.schema),
        **sampling_params(llm, llm.max_output_tokens, refused),
    }


def _with_note(messages: Messages, note: str) -> Messages:
    """``note`` at the end of the system prompt (a system message of its own when there is none)."""
    if messages and messages[0]["role"] == "system":
        return [{"role": "system", "content": f"{messages[0]['content']}\n\n{note}"}, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def cut_off_problem(max_tokens: int) -> str:
    return (
        f"the answer was cut off at {max_tokens} tokens (llm.max_output_tokens): "
        "answer shorter, with the JSON object complete"
    )


def key_refused(llm: LLMSettings, usage: Usage | None = None) -> AuthenticationFailed:
    """A 401, in words that name the variable to check (never the key or the provider's body)."""
    return AuthenticationFailed(
        f"the provider refused the API key (HTTP 401): check the environment variable "
        f"{llm.api_key_env} (llm.api_key_env) for {llm.base_url}",
        usage=usage,
    )


def usage_of(exc: BaseException) -> Usage:
    """What the failed attempts behind an error from this module cost (zero if unknown)."""
    usage = exc.usage if isinstance(exc, (LLMError, AuthenticationFailed)) else None
    return usage if usage is not None else Usage()
