"""A clock that moves only when something sleeps on it: pacing is tested by its arithmetic, never by waiting.

Pass ``clock`` as the pacer's clock and ``clock.sleep`` (threads) or ``clock.asleep`` (asyncio) as its
sleep.  A sleep moves the time forward at once; ``asleep`` then lets the other tasks run, so each
waiter computes its wait from the time the others have already moved to.
"""

from __future__ import annotations

import asyncio


class LogicalClock:
    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)
        await asyncio.sleep(0)
