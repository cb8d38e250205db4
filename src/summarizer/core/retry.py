"""One retry policy for every request the tool makes, and one pacer per host.

``RetryPolicy`` is an object the caller passes in (built from ``config.yaml``: ``http.retry_attempts``,
``http.backoff_s``; ``llm.max_attempts``, ``llm.backoff_s``), so a test passes a small one instead of
patching constants.  Sync calls (listings, PDFs, the arXiv API, the Batch API's endpoints) retry
through tenacity; the model client's loop asks the same policy how long to wait, because its
attempts are shared with the re-asks of an invalid answer.

``HostPacer`` keeps at most one request per interval to each host, across threads, so a listing,
its detail pages and its PDFs never hammer one server.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urlsplit

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

# `summarizer -v` shows the retries and the waits.
log = logging.getLogger("summarizer.retry")

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


class HostPacer:
    """At most one request per ``interval`` seconds to each host, across threads."""

    def __init__(self, interval: float):
        self.interval = interval
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}

    def wait(self, url: str) -> None:
        if self.interval <= 0:
            return
        host = (urlsplit(url).hostname or "").lower()
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next.get(host, now))
            self._next[host] = slot + self.interval
        if slot > now:
            log.info("pacing: %.1f s before the next request to %s", slot - now, host)
            time.sleep(slot - now)
