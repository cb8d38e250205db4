"""One retry policy for every request the tool makes, and what an HTTP answer says about waiting.

``RetryPolicy`` is an object the caller passes in (built from ``config.yaml``: ``http.retry_attempts``,
``http.backoff_s``; ``llm.max_attempts``, ``llm.backoff_s``), so a test passes a small one instead of
patching constants.  Sync calls (listings, PDFs, the arXiv API, the Batch API's endpoints) retry
through ``call``; the model client retries through tenacity's async loop and asks the same policy
how long to wait (``jittered_wait``), because its attempts are shared with the re-asks of an
invalid answer.  ``retry_after_seconds`` reads a 429's or 503's ``Retry-After``.

The pacers (one request per interval per host, requests and tokens per minute) are in ``pacing``.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

# `summarizer -v` shows the retries and the waits.
log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Tries per request (the first included) and an exponential backoff: base, 2×base, 4×base … capped."""

    attempts: int = 4
    base_s: float = 2.0
    max_s: float = 60.0

    def call(self, fn: Callable[[], T], *, retry_on: Callable[[BaseException], bool]) -> T:
        """``fn()``, tried again after the exceptions ``retry_on`` accepts; the last one is raised."""
        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            wait=wait_exponential(multiplier=self.base_s, max=self.max_s),
            retry=retry_if_exception(retry_on),
            reraise=True,
            before_sleep=_log_retry,
        )
        return retrying(fn)

    def jittered_wait(self, attempt: int) -> float:
        """Seconds before try ``attempt + 1``: uniform in [0, base × 2^(attempt-1)], capped (full jitter)."""
        return random.uniform(0, min(self.max_s, self.base_s * 2 ** (attempt - 1)))


def _log_retry(state: RetryCallState) -> None:
    wait = state.next_action.sleep if state.next_action else 0.0
    error = state.outcome.exception() if state.outcome else None
    log.info("retry after %.1f s (attempt %d): %s", wait, state.attempt_number, error)


def retry_after_seconds(headers: Mapping[str, str] | None, *, now: Callable[[], float] = time.time) -> float | None:
    """``retry-after-ms`` (OpenAI), else ``retry-after`` in seconds or as an HTTP date (from ``now()``)."""
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
    return max(0.0, when.timestamp() - now())
