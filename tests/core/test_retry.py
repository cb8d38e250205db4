"""The retry policy's waits and what an HTTP answer says about waiting."""

from __future__ import annotations

import email.utils

from summarizer.core.retry import RetryPolicy, retry_after_seconds

NOW = 1_767_225_600.0  # 2026-01-01 00:00:00 UTC


def test_retry_after_headers() -> None:
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    future = email.utils.formatdate(NOW + 30, usegmt=True)
    assert retry_after_seconds({"retry-after": future}, now=lambda: NOW) == 30.0
    past = email.utils.formatdate(NOW - 30, usegmt=True)
    assert retry_after_seconds({"retry-after": past}, now=lambda: NOW) == 0.0
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None
    assert retry_after_seconds(None) is None


def test_jittered_wait_doubles_from_the_base_and_stops_at_the_cap() -> None:
    policy = RetryPolicy(attempts=8, base_s=1.0, max_s=60.0)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (7, 60.0)]:
        waits = [policy.jittered_wait(attempt) for _ in range(200)]
        assert all(0 <= w <= ceiling for w in waits)
        assert max(waits) > ceiling / 2  # spread over the range, not stuck at 0
