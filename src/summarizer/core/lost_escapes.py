"""An imported note's control characters: TeX commands whose backslash a generator lost, put back.

A note generator that wrote ``"\\alpha"`` into a Python or JSON string without doubling the backslash
stored BEL + ``lpha``: ``\\a`` became U+0007, ``\\b`` U+0008, ``\\f`` U+000C, ``\\v`` U+000B, ``\\t`` a tab.
Such a character followed by a letter is a lost backslash and is restored (``\\alpha``, ``\\beta``,
``\\frac``, ``\\vec``).  A tab is ordinary text, so it is restored only where nothing else could be
meant: after other text on its line (not indentation, not in a code block), followed by the rest of a
TeX command that starts with ``t`` (``\\theta``, ``\\times``, ``\\text`` …; not ``\\tan``: "an" is a
word).  Line breaks are text.  Every other control or bidi character is removed.  ``repair`` says what
it changed, in words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .fences import outside_fences
from .sanitize import clean_text

_LOST = {"\x07": "\\a", "\x08": "\\b", "\x0b": "\\v", "\x0c": "\\f"}
_LOST_BEFORE_LETTER = re.compile(r"[\x07\x08\x0b\x0c](?=[A-Za-z])")
# TeX commands starting with 't' that a tab can have eaten, longest first (``\textbf`` before ``\text``).
_T_WORDS = "theta tau times text textbf textit textrm texttt textsf textsc textnormal textstyle tilde to top"
_T_COMMANDS = sorted([*_T_WORDS.split(), "triangle", "triangleq", "tanh", "tfrac", "tbinom", "therefore", "tiny"],
                     key=len, reverse=True)  # fmt: skip
_LOST_TAB = re.compile(r"\t(?=(?:" + "|".join(c[1:] for c in _T_COMMANDS) + r")(?![A-Za-z]))")
_LETTERS = re.compile(r"[A-Za-z]+")
SHOWN_COMMANDS = 5


def repair(text: str) -> tuple[str, list[str]]:
    """``text`` with lost TeX backslashes restored and other control characters removed; (text, what changed)."""
    restored: list[str] = []

    def put_back(match: re.Match[str]) -> str:
        command = _LOST[match.group()] if match.group() != "\t" else "\\t"
        rest = _LETTERS.match(match.string, match.end())
        restored.append((command + (rest.group() if rest else ""))[:20])
        return command

    repaired = _LOST_BEFORE_LETTER.sub(put_back, text)
    if "\t" in repaired:
        repaired = _restore_tabs(repaired, put_back)
    cleaned = clean_text(repaired)
    removed = len(repaired) - len(cleaned)
    changes = []
    if restored:
        names = ", ".join(dict.fromkeys(restored[:SHOWN_COMMANDS]))
        more = " …" if len(restored) > SHOWN_COMMANDS else ""
        changes.append(f"restored {len(restored)} TeX backslash(es) lost as control characters ({names}{more})")
    if removed:
        changes.append(f"removed {removed} control character(s)")
    return cleaned, changes


def _restore_tabs(text: str, put_back: Callable[[re.Match[str]], str]) -> str:
    """Tabs that stand for ``\\t`` of a TeX command, outside fenced code; the callback notes each."""
    lines = text.split("\n")
    for i, line in outside_fences(lines):
        if "\t" in line:
            # Not indentation: some text before it on the line (``a \times b`` lost its backslash after a space).
            lines[i] = _LOST_TAB.sub(lambda m: put_back(m) if m.string[: m.start()].strip() else m.group(), line)
    return "\n".join(lines)
