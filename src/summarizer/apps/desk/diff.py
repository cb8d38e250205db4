"""Diffs for the paper view: a summary word by word (Latin words and numbers whole, each Chinese character a
word), a note line by line."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_TOKENS = re.compile(r"[A-Za-z0-9_.\\%-]+|\s+|.", re.DOTALL)


@dataclass
class Piece:
    kind: str  # "same", "del", "ins"
    text: str


def word_diff(old: str, new: str) -> list[Piece]:
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    pieces: list[Piece] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append(Piece("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            pieces.append(Piece("del", "".join(a[i1:i2])))
        if j2 > j1:
            pieces.append(Piece("ins", "".join(b[j1:j2])))
    return pieces


def line_diff(old: str, new: str) -> list[Piece]:
    """Two notes line by line: each line the same, taken out or put in (a note is read by its lines)."""
    a, b = old.split("\n"), new.split("\n")
    pieces: list[Piece] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            pieces += [Piece("same", line) for line in a[i1:i2]]
            continue
        pieces += [Piece("del", line) for line in a[i1:i2]]
        pieces += [Piece("ins", line) for line in b[j1:j2]]
    return pieces
