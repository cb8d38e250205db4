"""Transport to an OpenAI-compatible chat-completions provider; it knows nothing about papers.

One ``LLMClient`` per run: an ``AsyncOpenAI`` client (``max_retries=0``: the
retries here are the only ones), at most ``llm.max_concurrency`` requests in
flight, client-side pacing by ``core.pacing.RateLimiter`` (requests and tokens
per minute, so a run stays under the provider's limits instead of collecting
429s), and retries for 429, 5xx, timeouts and connection errors — honouring
``retry-after-ms`` / ``retry-after``, else the run's ``RetryPolicy``
(``llm.backoff_s``, jittered, doubling, at most 60 s).
400/401/403 are never retried; a 401 raises ``AuthenticationFailed`` naming
``llm.api_key_env``, which stops the run.

Structured output: ``json_schema`` (strict) first; a server that refuses it (a 400
or 422 naming it: DeepSeek, Kimi, GLM, most Qwen models; a 500 naming it:
llama-cpp-python's server) or ignores it is asked again with ``json_object`` and
the schema, and the step down is remembered for the rest of the run
(``structured.ModeBook``).  ``llm.structured_output`` forces a mode.  A refusal of
a request parameter is the protocol's, not the paper's: the call asked again
without it is free, outside the paper's ``llm.max_attempts``.

``complete_validated`` is the instructor-style loop; the caller's
``AnswerSpec`` brings the schema, the validator and the re-ask builder.  When
the validator raises ``TextRejected`` the model sees its previous answer and
the problems (worded by the caller), and answers again.  Each call is built
(``chat_request``), sent, classified and accounted; a call that another call
may improve on raises ``_TryAgain`` (why, and how long to wait first), and
tenacity's loop retries exactly that, so transport retries and re-asks share
one budget of ``llm.max_attempts`` calls per paper.  The SDK's exceptions end
here: what leaves is ``LLMError`` (this paper) or ``AuthenticationFailed`` (the
run), each carrying the usage so far.

The API key is read from the environment when the client is built and never
appears in a message, a cache key or a log line: provider error texts are
scrubbed of it, and a 401's body is never shown at all.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type

from summarizer.core.config import LLMSettings
from summarizer.core.errors import AuthenticationFailed, LLMError, OutputInvalidError, TextRejected
from summarizer.core.pacing import RateLimiter
from summarizer.core.retry import RetryPolicy, retry_after_seconds
from summarizer.core.tokens import estimate_tokens
from summarizer.core.usage import Usage

from .chat_request import AnswerSpec, Messages, Mode, request_body
from .provider import chat_client, scrub
from .structured import ModeBook, described, not_json, person_reason, provider_text, refuses_format

# `summarizer -v` shows these: retries, backoffs and mode switches; `-vv` every request.
log = logging.getLogger(__name__)

# A Retry-After longer than this is not waited out: the paper fails with the reason.
RETRY_AFTER_MAX_S = 300.0
# Free calls (refused parameters, an ignored response_format) per paper at most: each teaches the run
# one thing (json_schema, response_format.schema, max_tokens, temperature, an ignored schema), so more
# than this is a server that changes its mind, and the paper's own budget takes over.
MAX_FREE_CALLS = 6

T = TypeVar("T")


def llm_retry_policy(llm: LLMSettings) -> RetryPolicy:
    """``llm.max_attempts`` calls per paper; waits from ``llm.backoff_s``, doubling, at most a minute."""
    return RetryPolicy(attempts=llm.max_attempts, base_s=llm.backoff_s, max_s=60.0)


@dataclass
class Validated(Generic[T]):
    value: T
    raw: str
    usage: Usage
    attempts: int
    mode: Mode
    model: str


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
    free: int = 0  # calls the protocol cost (a refused parameter, an ignored schema): not the paper's attempts

    @property
    def attempts(self) -> int:
        """The paper's own calls: every call but the free ones."""
        return self.calls - self.free


@dataclass
class _Answer:
    content: str
    finish_reason: str | None
    mode: Mode


class _TryAgain(Exception):
    """A call gave no accepted answer and another call may: the one thing the retry loop retries.

    ``why`` is "reask" (the validator's problems, in ``reason``, go back to the model), "refused"
    (the provider refused a parameter the rest of the run leaves out) or "transient" (429, 5xx, timeout,
    connection); ``wait_s`` is how long to wait first (None: the retry policy's backoff).
    """

    def __init__(
        self,
        why: Literal["reask", "refused", "transient"],
        reason: str,
        *,
        wait_s: float | None = 0.0,
        problems: list[str] | None = None,
    ):
        super().__init__(reason)
        self.why = why
        self.reason = reason
        self.wait_s = wait_s
        self.problems = problems or []

    def exhausted(self, state: _CallState) -> LLMError:
        """The error for a paper whose calls ran out on this."""
        if self.why == "reask":
            reason = person_reason(self.problems, state.attempts)
            return OutputInvalidError(
                reason, paper_id=state.paper_id, attempt=state.attempts, raw_output=state.last_raw, usage=state.usage
            )
        if self.why == "refused":
            reason = (
                "the provider kept refusing the request's parameters (response_format, max_tokens or temperature) "
                "and the attempts ran out"
            )
        else:
            reason = f"{self.reason} (gave up after {state.attempts} attempts)"
        return LLMError(
            reason, paper_id=state.paper_id, attempt=state.attempts, raw_output=state.last_raw, usage=state.usage
        )


class LLMClient:
    """One run's connection to the provider. Use as ``async with LLMClient(settings.llm) as client``.

    ``retry`` (default ``llm_retry_policy``) and ``limiter`` (default: ``llm.requests_per_minute``
    and ``llm.tokens_per_minute`` per minute) are the run's; a test passes its own.
    """

    def __init__(self, llm: LLMSettings, *, retry: RetryPolicy | None = None, limiter: RateLimiter | None = None):
        self.settings = llm
        self.client = chat_client(llm)  # MissingAPIKeyError (exit 2) before any work
        self._api_key = self.client.api_key
        self.retry = retry or llm_retry_policy(llm)
        self.semaphore = asyncio.Semaphore(llm.max_concurrency)
        self.limiter = limiter or RateLimiter(llm.requests_per_minute, llm.tokens_per_minute)
        # The structured-output mode learnt this run (a client serves one base_url and model).
        self.modes = ModeBook(llm.structured_output)
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
        return self.modes.mode()

    def _step_down(self, exc: openai.APIStatusError, mode: Mode, body: dict[str, Any]) -> bool:
        """A refusal of ``response_format``: True when the run steps down to a mode left (see ``structured``)."""
        sent = body.get("response_format")
        with_schema = isinstance(sent, dict) and sent.get("type") == "json_object" and "schema" in sent
        why = f"HTTP {exc.status_code}: {self.scrub(provider_text(exc))}"
        if not self.modes.step_down(mode, with_schema, why):
            return False
        now = "json_object, the schema in the prompt only" if with_schema else self.mode()
        log.info(
            "structured output: %s refused %s (%s); %s for the rest of the run", self.settings.model, mode, why, now
        )
        return True

    # -- parameters a model may refuse -------------------------------------------
    def _learn_unsupported(self, exc: openai.BadRequestError) -> bool:
        """True when the 400 refused ``max_tokens`` or ``temperature`` for the first time (ask again without it)."""
        param = exc.param if exc.code in ("unsupported_parameter", "unsupported_value") else None
        if param in ("max_tokens", "temperature") and param not in self._refused_params:
            log.info("%s refused %s; asking without it for the rest of the run", self.settings.model, param)
            self._refused_params.add(param)
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
            return self.scrub(described(exc))
        return self.scrub(str(exc))

    # -- one HTTP call: build, send, classify, account ------------------------------
    def _build(self, messages: Messages, spec: AnswerSpec[Any], mode: Mode) -> dict[str, Any]:
        """The request body for this mode and what this model accepts."""
        return request_body(self.settings, messages, spec, mode, self._refused_params | self.modes.refused)

    async def _send(self, state: _CallState, body: dict[str, Any], cap: int) -> Any:
        """One paced request (both buckets, the concurrency cap); the completion, or the SDK's exception."""
        estimate = sum(estimate_tokens(m["content"]) for m in body["messages"]) + cap
        await self.limiter.acquire(estimate)
        async with self.semaphore:
            state.calls += 1
            completion = await self.client.chat.completions.create(**body)
        usage = completion.usage
        if usage is not None:
            self.limiter.settle(estimate, usage.total_tokens or (usage.prompt_tokens + usage.completion_tokens))
        return completion

    def _classify(self, exc: openai.OpenAIError, mode: Mode, state: _CallState, body: dict[str, Any]) -> _TryAgain:
        """A failed call: what to try again (when and why), or raised here: the error that ends the paper or run."""
        if isinstance(exc, openai.AuthenticationError):
            raise key_refused(self.settings, state.usage) from None
        refused = isinstance(exc, openai.BadRequestError) and self._learn_unsupported(exc)
        if not refused and isinstance(exc, openai.APIStatusError) and refuses_format(exc):
            if not self._step_down(exc, mode, body):
                raise self._failed(state, self.modes.exhausted())
            refused = True
        if refused:
            state.free += 1
            return _TryAgain("refused", "the provider kept refusing the request's parameters")
        reason = self._describe(exc)
        if not _transient(exc):
            raise self._failed(state, reason)
        wait = retry_after_seconds(exc.response.headers) if isinstance(exc, openai.APIStatusError) else None
        if wait is not None and isinstance(exc, openai.RateLimitError):
            self.limiter.pause(min(wait, RETRY_AFTER_MAX_S))  # everyone waits, not only this paper
        return _TryAgain("transient", reason, wait_s=None if wait is None else min(wait, RETRY_AFTER_MAX_S))

    def _failed(self, state: _CallState, reason: str) -> LLMError:
        return LLMError(
            reason, paper_id=state.paper_id, attempt=state.attempts, raw_output=state.last_raw, usage=state.usage
        )

    def _account(self, state: _CallState, completion: Any, mode: Mode) -> _Answer:
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
        return _Answer(content, choice.finish_reason if choice else None, mode)

    async def _call(self, state: _CallState, spec: AnswerSpec[Any]) -> _Answer:
        mode = self.mode()
        body = self._build(state.messages, spec, mode)
        try:
            completion = await self._send(state, body, spec.output_cap(self.settings))
        except openai.OpenAIError as exc:
            raise self._classify(exc, mode, state, body) from None
        return self._account(state, completion, mode)

    # -- the validated loop ---------------------------------------------------------
    async def _attempt(self, state: _CallState, messages: Messages, spec: AnswerSpec[T]) -> Validated[T]:
        """One call: the accepted answer, or ``_TryAgain`` with the re-ask in ``state.messages``."""
        answer = await self._call(state, spec)
        try:
            value = spec.validate(answer.content)
        except TextRejected as exc:
            if answer.finish_reason != "length" and not_json(answer.content) and self.modes.ignored(answer.mode):
                log.info(
                    "structured output: %s ignored json_schema; json_object for the rest of the run",
                    self.settings.model,
                )
                state.messages, state.free = list(messages), state.free + 1  # asked afresh, in the new mode
                raise _TryAgain("refused", "the server ignored response_format") from None
            problems = list(exc.problems)
            if answer.finish_reason == "length":
                problems.append(cut_off_problem(spec, self.settings))
            state.messages = [*messages, *spec.reask(answer.content, problems)]
            raise _TryAgain("reask", "; ".join(problems), problems=problems) from None
        return Validated(value, answer.content, state.usage, state.calls, answer.mode, self.settings.model)

    def _wait(self, retry_state: RetryCallState) -> float:
        """Seconds before the next call: what the provider asked for, else the policy's jittered backoff."""
        again = retry_state.outcome.exception() if retry_state.outcome else None
        if isinstance(again, _TryAgain) and again.wait_s is not None:
            return again.wait_s
        return self.retry.jittered_wait(retry_state.attempt_number)

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
        budget = max_attempts or self.retry.attempts
        retrying = AsyncRetrying(
            stop=lambda retry_state: _out_of_calls(retry_state, state, budget),
            wait=self._wait,
            retry=retry_if_exception_type(_TryAgain),
            before_sleep=lambda retry_state: _log_again(retry_state, state, budget),
            reraise=True,
        )
        try:
            result: Validated[T] = await retrying(self._attempt, state, messages, spec)
        except _TryAgain as last:
            raise last.exhausted(state) from None
        return result


def _out_of_calls(retry_state: RetryCallState, state: _CallState, budget: int) -> bool:
    """The paper's ``budget`` of calls is spent (free calls aside, up to ``MAX_FREE_CALLS``)."""
    return retry_state.attempt_number - state.free >= budget or state.free > MAX_FREE_CALLS


def _log_again(retry_state: RetryCallState, state: _CallState, budget: int) -> None:
    again = retry_state.outcome.exception() if retry_state.outcome else None
    if not isinstance(again, _TryAgain):
        return
    paper = state.paper_id or ""
    if again.why == "reask":
        log.info("re-ask %s (call %d of %d): %s", paper, state.attempts, budget, again.reason)
    else:
        wait = retry_state.upcoming_sleep
        log.info("retry %s after %.1f s (call %d of %d): %s", paper, wait, state.attempts, budget, again.reason)


def cut_off_problem(spec: AnswerSpec[Any], llm: LLMSettings) -> str:
    return (
        f"the answer was cut off at {spec.output_cap(llm)} tokens ({spec.max_tokens_key}): "
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
