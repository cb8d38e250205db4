"""The pacers on a logical clock: one request per interval per host, requests and tokens per minute."""

from __future__ import annotations

import asyncio

import pytest

from logical_clock import LogicalClock
from summarizer.core.pacing import REQUEST_MARGIN, HostPacer, RateLimiter, TokenBucket

# -- one request per interval per host --------------------------------------------------------------


def test_requests_to_one_host_keep_the_minimum_interval() -> None:
    clock = LogicalClock()
    pacer = HostPacer(0.2, clock=clock, sleep=clock.sleep)
    sent = []
    for _ in range(3):
        pacer.wait("http://listing.example/a")
        sent.append(clock.now)
    assert sent == pytest.approx([0.0, 0.2, 0.4])
    pacer.wait("http://other.example/b")  # another host does not wait for this one
    assert clock.now == pytest.approx(0.4)


def test_a_host_with_its_own_interval_keeps_it() -> None:
    clock = LogicalClock()
    pacer = HostPacer(1.0, {"Export.Arxiv.org": 3.0}, clock=clock, sleep=clock.sleep)
    for _ in range(3):
        pacer.wait("https://export.arxiv.org/api/query?id_list=1")
    assert clock.sleeps == pytest.approx([3.0, 3.0])
    pacer.wait("https://arxiv.org/pdf/2501.00001")  # the PDF host: the interval every host has
    pacer.wait("https://arxiv.org/pdf/2501.00002")
    assert clock.sleeps[2:] == pytest.approx([1.0])


def test_no_interval_never_waits() -> None:
    clock = LogicalClock()
    pacer = HostPacer(0, clock=clock, sleep=clock.sleep)
    for _ in range(5):
        pacer.wait("http://listing.example/a")
    assert clock.sleeps == []


# -- token buckets: client-side pacing under a provider's per-minute limits -------------------------


def test_bucket_allows_a_burst_of_one_minute_then_refills_continuously() -> None:
    clock = LogicalClock()
    bucket = TokenBucket(60, 60.0, clock=clock)  # 60 per minute = 1 per second
    for _ in range(60):
        assert bucket.wait_time(1) == 0
        bucket.take(1)
    assert bucket.wait_time(1) == pytest.approx(1.0)
    clock.now = 0.5
    assert bucket.wait_time(1) == pytest.approx(0.5)
    clock.now = 10
    assert bucket.level == pytest.approx(10)
    clock.now = 1000
    assert bucket.level == 60  # never more than one minute's allowance


def test_token_bucket_is_corrected_by_real_usage() -> None:
    clock = LogicalClock()
    bucket = TokenBucket(1000, 60.0, clock=clock)
    bucket.take(600)  # estimate: prompt + completion cap
    bucket.adjust(250 - 600)  # the provider reported 250: refund the rest
    assert bucket.level == pytest.approx(750)
    bucket.adjust(2000)  # under-estimated: later requests wait longer
    assert bucket.level < 0 and bucket.wait_time(1) > 0
    # A request larger than the whole capacity waits for a full bucket, not forever.
    assert bucket.wait_time(5000) == pytest.approx((1000 - bucket.level) / (1000 / 60))


def test_bucket_acquire_waits_for_refill() -> None:
    clock = LogicalClock()
    bucket = TokenBucket(2, 0.1, clock=clock, sleep=clock.asleep)  # 2 per 0.1 s

    async def go() -> list[float]:
        granted = []
        for _ in range(4):
            await bucket.acquire(1)
            granted.append(clock.now)
        return granted

    assert asyncio.run(go()) == pytest.approx([0.0, 0.0, 0.05, 0.1])  # 2 at once, then 2 more at 20/s


def granted_times(limiter: RateLimiter, clock: LogicalClock, n: int, tokens: int = 1) -> list[float]:
    """When each of ``n`` requests, all asking at once, is let through."""

    async def one() -> float:
        await limiter.acquire(tokens)
        return clock.now

    async def go() -> list[float]:
        return sorted(await asyncio.gather(*(one() for _ in range(n))))

    return asyncio.run(go())


def test_a_long_run_is_paced_at_the_limit() -> None:
    clock = LogicalClock()
    rpm, n = 5, 20
    limiter = RateLimiter(rpm, 10**9, window_s=60.0, clock=clock, sleep=clock.asleep)
    granted = granted_times(limiter, clock, n)
    rate = rpm / 60.0
    # A burst of one minute's allowance (less the margin), then one request per 12 s.
    assert granted[: rpm - REQUEST_MARGIN] == [0.0] * (rpm - REQUEST_MARGIN)
    for i, t in enumerate(granted):  # token-bucket conformance: burst + refill, never more
        assert i + 1 <= rpm + t * rate + 1e-9
    assert granted[-1] >= (n - rpm) / rate
    assert granted[-1] == pytest.approx((n - rpm + REQUEST_MARGIN) / rate)  # and not slower than that


def test_a_run_under_the_limits_is_never_slowed() -> None:
    clock = LogicalClock()
    limiter = RateLimiter(500, 200_000, clock=clock, sleep=clock.asleep)
    assert granted_times(limiter, clock, 8, tokens=2000) == [0.0] * 8  # max_concurrency at once
    assert clock.sleeps == []


def test_tokens_per_minute_pace_and_usage_corrects_the_estimate() -> None:
    clock = LogicalClock()
    limiter = RateLimiter(1000, 6000, clock=clock, sleep=clock.asleep)  # 100 tokens a second
    assert granted_times(limiter, clock, 3, tokens=2000) == [0.0, 0.0, 0.0]
    limiter.settle(2000, 500)  # the provider counted 500: 1500 back
    assert granted_times(limiter, clock, 1, tokens=1500) == [0.0]
    limiter.settle(1500, 3500)  # 2000 more than estimated: the next request waits for them
    assert granted_times(limiter, clock, 1, tokens=100) == pytest.approx([21.0])


def test_a_pause_holds_every_request() -> None:
    clock = LogicalClock()
    limiter = RateLimiter(500, 200_000, clock=clock, sleep=clock.asleep)
    limiter.pause(2.5)  # a 429 said Retry-After: 2.5
    limiter.pause(1.0)  # a shorter one does not shorten it
    assert granted_times(limiter, clock, 3) == pytest.approx([2.5, 2.5, 2.5])
