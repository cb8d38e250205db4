"""Text from outside (arXiv, PDFs, imports, model answers, edits) is hostile until cleaned.

Two jobs, one owner:

- ``clean_line`` / ``clean_text`` run on every text *before it enters a record*: C0 and
  C1 control characters and the bidi embedding/override/isolate characters
  (U+202A–U+202E, U+2066–U+2069) are removed, so a title cannot clear a terminal,
  set a window title, smuggle an OSC-8 link or reverse the text around it.  In a
  one-line field (title, tag, author) tabs and line breaks become one space.
- ``terminal_safe`` runs on stored text *before the CLI prints it*, so records
  written by an older version are safe to show too: the same characters are
  shown as visible escapes (``\\x1b``, ``\\u202e``) instead of being obeyed.
"""

from __future__ import annotations

import re

_BIDI = "\u202a-\u202e\u2066-\u2069"
# C0 (but tab, LF, CR are handled by the callers), DEL, C1, bidi controls.
_UNSAFE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]")
_UNSAFE_OR_BREAK = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
_LINE_BREAKS = re.compile(r"[\t\n\r\x0b\x0c\x85\u2028\u2029]+")
_SPACES = re.compile(r"[ \u3000]{2,}")


def clean_line(text: str) -> str:
    """A one-line field: controls and bidi overrides removed, tabs and breaks become one space, trimmed."""
    text = _LINE_BREAKS.sub(" ", text)
    text = _UNSAFE.sub("", text)
    return _SPACES.sub(" ", text).strip()


def clean_text(text: str) -> str:
    """A multi-line text (abstract, paper body, note): line breaks and tabs kept, other controls removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _UNSAFE.sub("", text)


def has_unsafe_characters(text: str) -> bool:
    """True when ``text`` holds a control character (other than tab/LF/CR) or a bidi override."""
    return _UNSAFE.search(text) is not None


def terminal_safe(text: str) -> str:
    """Stored text made harmless for a terminal: every control and bidi character shown as an escape."""
    return _UNSAFE_OR_BREAK.sub(_visible_escape, text) if _UNSAFE_OR_BREAK.search(text) else text


# What json.dumps(ensure_ascii=False) leaves raw and a terminal would obey: DEL, C1, bidi (it escapes C0 itself).
_JSON_RAW_UNSAFE = re.compile(f"[\x7f-\x9f{_BIDI}]")


def json_terminal_safe(json_text: str) -> str:
    """JSON text (``ensure_ascii=False``) with DEL, C1 and bidi characters as ``\\uXXXX`` escapes: the same data."""
    return _JSON_RAW_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def _visible_escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\n":
        return "\n"
    if char == "\t":
        return " "
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
