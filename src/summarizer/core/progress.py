"""How a stage says how far it is without printing anything.

A stage takes a ``Progress`` and reports through it: a ``Bar`` for counted work (papers fetched,
summarised), a wait bar for work on someone else's side (a provider's batch), and lines a person
should see while the stage runs (a batch submitted, a batch cancelled).  The CLI passes one that
draws on the terminal; every other caller (the review desk, the tests, a library user) gets
``QUIET``, which shows nothing.  What a stage found in the end goes into its ``Report``.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager


class Bar:
    """One counted piece of work: a paper more done, the text beside the bar, or a count reached."""

    def advance(self, text: str | None = None) -> None:
        """One more done; ``text`` (when given) replaces the text beside the bar."""

    def show(self, text: str) -> None:
        """What is happening now, beside the bar (``arXiv metadata``, ``12 done · $0.03``)."""

    def reach(self, done: int, text: str) -> None:
        """``done`` finished in all, counted elsewhere (a provider's batch)."""


class Progress:
    """Shows nothing: the default for any caller that is not a terminal."""

    def bar(self, description: str, total: int) -> AbstractContextManager[Bar]:
        return contextlib.nullcontext(Bar())

    def wait_bar(self, description: str, total: int) -> AbstractContextManager[Bar]:
        """A long wait on another's side, whose changes are also said as lines (``say``)."""
        return contextlib.nullcontext(Bar())

    def say(self, message: str) -> None:
        """A line a person watching should see now."""

    def warn(self, message: str) -> None:
        """A line about something that may need the person's attention."""


QUIET = Progress()
