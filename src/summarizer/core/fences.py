"""Fenced code blocks in Markdown (```` ``` ```` or ``~~~``, up to three spaces in): which lines are code.

One reading for every step that must leave code as written (a note's safety, its rules, the restored
TeX escapes, the fence a note leaves open) and for the desk's marks.  A fence closes on a line of the
same character, at least as long, as CommonMark reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_FENCE_STARTS = (" ", "`", "~")  # what a fence's line can start with: the quick look before the pattern


class Fences:
    """Lines read in order; ``open`` is the fence they are inside of (its backticks or tildes), or None."""

    def __init__(self) -> None:
        self.open: str | None = None

    def code(self, line: str) -> bool:
        """Whether ``line`` is fenced code or a fence's own line (the fence it opens or closes is followed)."""
        opened = FENCE.match(line) if line.startswith(_FENCE_STARTS) else None
        if self.open is not None:
            fence = self.open
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                self.open = None
            return True
        if opened:
            self.open = opened.group(1)
            return True
        return False


def outside_fences(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(index, line) of each line outside a fenced code block (the fences' own lines left out)."""
    fences = Fences()
    for i, line in enumerate(lines):
        if not fences.code(line):
            yield i, line


def open_fence(text: str) -> str | None:
    """The fence ``text`` leaves open at its end (its backticks or tildes), or None."""
    fences = Fences()
    for line in text.split("\n"):
        fences.code(line)
    return fences.open
