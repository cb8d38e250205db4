"""Every limiter on how fast the tool talks to a server, each with its window and clock passed in.

``HostPacer`` keeps at most one request per interval to each host, across threads (listings,
detail pages, PDFs, the arXiv API with its own interval).  ``RateLimiter`` keeps the model's
requests and tokens per minute under the provider's limits with two ``TokenBucket``s, and holds
every request back when the provider asks for a pause.  Each takes its clock and its sleep, so a
test runs them on a logical clock instead of waiting.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlsplit

# `summarizer -v` shows every pacing wait.
log = logging.getLogger(__name__)

Clock = Callable[[], float]
AsyncSleep = Callable[[float], Awaitable[None]]

# Requests kept in hand below the RPM cap.  The provider counts a request when it arrives, and
# arrival delays vary (the first requests also open connections): a client pacing exactly at the
# cap ends up a fraction of a request ahead of the provider's bucket and gets a 429 (measured by
# `make bench`).  One request of margin absorbs that; the first burst is one request smaller.
REQUEST_MARGIN = 1


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


class HostPacer:
    """At most one request per interval to each host, across threads.

    ``interval`` holds for every host; ``hosts`` gives some hosts their own (the arXiv API asks
    for one request every 3 s, more than a listing's host needs).
    """

    def __init__(
        self,
        interval: float,
        hosts: Mapping[str, float] | None = None,
        *,
        clock: Clock = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.interval = interval
        self.hosts = {host.lower(): seconds for host, seconds in (hosts or {}).items()}
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}

    def interval_for(self, host: str) -> float:
        return self.hosts.get(host, self.interval)

    def wait(self, url: str) -> None:
        host = host_of(url)
        interval = self.interval_for(host)
        if interval <= 0:
            return
        with self._lock:
            now = self._clock()
            slot = max(now, self._next.get(host, now))
            self._next[host] = slot + interval
        if slot > now:
            log.info("pacing: %.1f s before the next request to %s", slot - now, host)
            self._sleep(slot - now)


class TokenBucket:
    """Capacity = one window's allowance, refilled continuously; starts full.

    ``acquire(n)`` waits until ``n`` tokens are there (a request bigger than the
    whole capacity waits for a full bucket, never forever).  ``adjust(delta)``
    corrects an estimate once the real cost is known; the level may go
    negative, which delays later requests.
    """

    def __init__(
        self, per_window: float, window_s: float, *, clock: Clock = time.monotonic, sleep: AsyncSleep = asyncio.sleep
    ):
        self.capacity = float(per_window)
        self.rate = float(per_window) / window_s
        self._clock = clock
        self._sleep = sleep
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
                await self._sleep(delay)
            self.take(n)

    def adjust(self, delta: float) -> None:
        self._refill()
        self._level = min(self.capacity, self._level - delta)

    @property
    def level(self) -> float:
        self._refill()
        return self._level


class RateLimiter:
    """Requests and tokens per window (a minute for a provider's limits), plus a shared pause after a 429."""

    def __init__(
        self,
        rpm: int,
        tpm: int,
        *,
        window_s: float = 60.0,
        clock: Clock = time.monotonic,
        sleep: AsyncSleep = asyncio.sleep,
    ):
        self.requests = TokenBucket(rpm, window_s, clock=clock, sleep=sleep)
        self.tokens = TokenBucket(tpm, window_s, clock=clock, sleep=sleep)
        self._clock = clock
        self._sleep = sleep
        self._paused_until = clock()

    def pause(self, seconds: float) -> None:
        """The provider asked everyone to wait (Retry-After): hold back every request, not just one."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    async def acquire(self, estimated_tokens: int) -> None:
        while (wait := self._paused_until - self._clock()) > 0:
            log.info("pacing: the provider asked to wait, holding requests %.1f s", wait)
            await self._sleep(wait)
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
