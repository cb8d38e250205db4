"""Text from outside (arXiv, PDFs, imports, model answers, edits) is hostile until cleaned.

Two jobs, one owner:

- ``clean_line`` / ``clean_text`` run on every text *before it enters a record*: C0 and
  C1 control characters and the bidi embedding/override/isolate characters
  (U+202A–U+202E, U+2066–U+2069) are removed, so a title cannot clear a terminal,
  set a window title, smuggle an OSC-8 link or reverse the text around it.  In a
  one-line field (title, tag, author) tabs and line breaks become one space.
- Lone surrogates (a ``\\ud800`` escape in JSON or YAML with no pair) and Unicode non-characters
  (U+FFFE, U+FFFF, U+FDD0–U+FDEF and their kin on every plane) cannot be written as UTF-8 or in XML:
  the cleaners replace them with U+FFFD, and ``unstorable_characters`` names them for whoever must
  refuse them instead (a model's answer is asked again).
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
_PLANE_ENDS = "".join(f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(17))
_UNSTORABLE = re.compile(f"[\ud800-\udfff\ufdd0-\ufdef{_PLANE_ENDS}]")
REPLACEMENT = "\ufffd"


def unstorable_characters(text: str) -> list[str]:
    """The lone surrogates and non-characters in ``text``, each once, as ``\\uXXXX`` escapes."""
    found = dict.fromkeys(_UNSTORABLE.findall(text))
    return [f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}" for c in found]


def storable(text: str) -> str:
    """``text`` with every lone surrogate and non-character replaced by U+FFFD."""
    return _UNSTORABLE.sub(REPLACEMENT, text) if _UNSTORABLE.search(text) else text


def clean_line(text: str) -> str:
    """A one-line field: controls and bidi overrides removed, tabs and breaks become one space, trimmed."""
    text = _LINE_BREAKS.sub(" ", storable(text))
    text = _UNSAFE.sub("", text)
    return _SPACES.sub(" ", text).strip()


def clean_text(text: str) -> str:
    """A multi-line text (abstract, paper body, note): line breaks and tabs kept, other controls removed."""
    text = storable(text).replace("\r\n", "\n").replace("\r", "\n")
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
