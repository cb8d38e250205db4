"""What the editor just decided at the desk (approve, reject a summary or a note), newest first, so each can be undone.

The list lives as long as the desk: it is the session's "just decided" list.  Undoing puts the paper's
review state back as it was, and only if the paper is still as the decision left it (``undo_decision``).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from summarizer.review.actions import ReviewState

KEEP = 50  # decisions remembered; older ones can no longer be undone here (the CLI still can change them)


@dataclass(frozen=True)
class Decision:
    ref: str
    action: str  # "approved" or "rejected": what the list shows
    title: str
    before: ReviewState
    after: ReviewState
    kind: str = "summary"  # what was decided: the paper's "summary" or its "note"

    @property
    def page(self) -> str:
        """The desk's page of what was decided."""
        return f"/note/{self.ref}" if self.kind == "note" else f"/paper/{self.ref}"


class Decisions:
    """The desk's recent decisions (thread-safe: requests run in a thread pool)."""

    def __init__(self, keep: int = KEEP):
        self._items: deque[Decision] = deque(maxlen=keep)
        self._lock = threading.Lock()

    def add(self, decision: Decision) -> None:
        with self._lock:
            self._items.appendleft(decision)

    def recent(self, n: int = 10) -> list[Decision]:
        with self._lock:
            return list(self._items)[:n]

    def latest(self, ref: str | None = None, kind: str | None = None) -> Decision | None:
        """The newest decision (on ``ref``, of ``kind``, when given)."""
        with self._lock:
            return next(
                (d for d in self._items if (ref is None or d.ref == ref) and (kind is None or d.kind == kind)), None
            )

    def drop(self, decision: Decision) -> None:
        with self._lock:
            if decision in self._items:
                self._items.remove(decision)
