"""Word-level diff of two summaries: Latin words and numbers whole, each Chinese character a word."""

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
