"""Progress that answers "how long": the time left from the pace so far, and what summarize has spent."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from logical_clock import LogicalClock
from summarizer.apps.cli import console


def test_a_progress_line_says_how_long_is_left_at_the_pace_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 3600.0)  # the timer thread stays quiet
    clock = LogicalClock()
    lines = console._PlainLines("summarize ICML2026", 10, clock=clock)
    try:
        assert lines.line() == "summarize ICML2026: 0/10 (0m00s)"  # no pace yet: no guess
        clock.sleep(20)
        for _ in range(4):
            lines.advance("4 done · 0 failed · 0 cached · 9,000 tokens · $0.0042 spent")
        assert lines.line() == (
            "summarize ICML2026: 4/10 · 4 done · 0 failed · 0 cached · 9,000 tokens · $0.0042 spent "
            "(0m20s, about 0m30s left)"
        )
        clock.sleep(7200)
        assert lines.line().endswith("(2h00m, about 3h00m left)")
        lines.reach(10, "done")
        assert lines.line().endswith("(2h00m)")
    finally:
        lines.close()


def test_a_terminal_bar_shows_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUMMARIZER_NO_PROGRESS")
    screen = io.StringIO()
    monkeypatch.setattr(console, "err", Console(file=screen, force_terminal=True, width=160))
    with console.progress("fetch ICML2026", 3) as bar:
        bar.advance("2612.90001")
    assert "fetch ICML2026" in screen.getvalue() and " eta " in screen.getvalue()
