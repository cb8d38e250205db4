"""One note file of an imported folder, read: its text, what it says of itself, whether it is a note at all.

A note is ``# Title`` and bold metadata lines (``**arXiv**: [2506.02998](…)``, ``**关键词**: …``), or YAML
front matter (``arxiv:``, ``title:``), or MkDocs' ``Title: …``/``arXiv: …`` metadata lines, then ``##``
sections.  The front matter is read line by line (``key: value``), never as YAML.  A file with neither
an arXiv id nor a section a note has (一句话总结, 研究背景与动机 …) is not a note (a folder's
``index.md``, ``TODO.md``): the import skips it.

A note's control characters are a generator's lost TeX backslashes or noise (``core.lost_escapes``):
restored or removed, and said among the note's warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from summarizer.core import limits
from summarizer.core.ids import parse_arxiv_id
from summarizer.core.lost_escapes import repair
from summarizer.core.note_rules import CheckedNote, check_human_note, split_sections, without_code
from summarizer.core.sanitize import clean_line, has_unsafe_characters

_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---[ \t]*\n", re.DOTALL)
# ``Title: …`` / ``arXiv: …`` lines opening a note: MkDocs' MultiMarkdown-style metadata, read as front matter.
_META_LINES = re.compile(r"\A((?:[ ]{0,3}[A-Za-z0-9_-]+:[^\n]*\n)+)")
_FRONT_KEY = re.compile(r"^(title|arxiv|keywords)\s*:\s*(.*?)\s*$", re.MULTILINE | re.IGNORECASE)
_TITLE_LINE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_ARXIV_LINE = re.compile(r"^\*\*arXiv\*\*\s*[:：]\s*(.+)$", re.MULTILINE | re.IGNORECASE)
_KEYWORDS_LINE = re.compile(r"^\*\*关键词\*\*\s*[:：]\s*(.+?)\s*$", re.MULTILINE)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_SECTION_START = re.compile(r"^##[ \t]", re.MULTILINE)
_KEYWORD_SEPARATORS = re.compile(r"[,，、;；]")
TITLE_MAX = 500


@dataclass
class Identity:
    """What a note's header says of its paper; None (or empty) for what it lacks."""

    arxiv: str | None = None
    title: str | None = None
    keywords: list[str] = field(default_factory=list)


@dataclass
class ReadNote:
    """A note file's note as stored, what its header names, and what the import changed in it."""

    note: CheckedNote
    identity: Identity


class NotANote(ValueError):
    """The file is not a note (no arXiv id, no note section): skipped, not failed."""


def split_note(text: str) -> tuple[str, str]:
    """(header, sections): the text before the first ``## `` heading outside code, and the rest, as written."""
    masked = without_code(text)
    match = _SECTION_START.search(masked)
    if match is None:
        return text, ""
    return text[: match.start()], text[match.start() :]


def _unquoted(value: str) -> str:
    return value.strip().strip("\"'").strip()


def _keywords(value: str) -> list[str]:
    value = _unquoted(value).strip("[]")
    return [w for w in (clean_line(_unquoted(part)) for part in _KEYWORD_SEPARATORS.split(value)) if w]


def note_identity(header: str) -> Identity:
    """The arXiv id, title and keywords a note's header gives (bold lines or front matter)."""
    found = Identity()
    front = _FRONT_MATTER.match(header) or _META_LINES.match(header)
    if front is not None:
        for key, value in _FRONT_KEY.findall(front.group(1)):
            if key.lower() == "arxiv":
                found.arxiv = parse_arxiv_id(_unquoted(value))
            elif key.lower() == "keywords":
                found.keywords = _keywords(value)
            else:
                found.title = _unquoted(value) or None
    line = _ARXIV_LINE.search(header)
    if found.arxiv is None and line is not None:
        target = _LINK_TARGET.search(line.group(1))
        found.arxiv = parse_arxiv_id(target.group(1) if target else line.group(1).strip())
    keywords = _KEYWORDS_LINE.search(header)
    if keywords is not None and not found.keywords:
        found.keywords = _keywords(keywords.group(1))
    heading = _TITLE_LINE.search(header[front.end() :] if front else header)
    found.title = found.title or (heading.group(1).strip() if heading else None)
    if found.title is not None:
        found.title = clean_line(found.title)[:TITLE_MAX] or None
    return found


def read_text(path: Path) -> str:
    """A note file's text (UTF-8, a BOM dropped, line endings ``\\n``); ``ValueError`` saying why not."""
    with path.open("rb") as handle:
        data = handle.read(limits.NOTE_FILE + 1)
    if len(data) > limits.NOTE_FILE:
        raise ValueError(f"over {limits.NOTE_FILE:,} bytes (a note is at most {limits.NOTE:,} characters)")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_note(path: Path) -> ReadNote:
    """The note in ``path``, checked as a person's note; ``NotANote``, ``TextRejected`` or ``ValueError``."""
    text = read_text(path)
    changes: list[str] = []
    if "\t" in text or has_unsafe_characters(text):  # a tab alone can be a lost \t (\times, \theta)
        text, changes = repair(text)
    header, markdown = split_note(text)
    identity = note_identity(header)
    if identity.arxiv is None and not any(s.key is not None for s in split_sections(markdown)):
        raise NotANote("not a note (no arXiv line and no note section such as ## 一句话总结)")
    note = check_human_note(markdown, header)
    note.warnings = changes + note.warnings
    return ReadNote(note, identity)
