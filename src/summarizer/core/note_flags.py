"""Warnings that find suspicious notes, as ``flags`` does for summaries: none rejects a note.

Numbers and names that hold a digit are looked for in the paper text the note was written from
(``paper_text.note_sections``), section by section and in the table cells: what the paper does not
have is named with the section it is in.  A paper that reports results but whose note has no table
is flagged; so is a whole note (header and 一句话总结 included) outside the reference's p5-p95.
"""

from __future__ import annotations

import markdown

from .config import Settings
from .errors import NoInput
from .flags import PREFIX_NUMBERS, PaperFacts, invented_numbers, merge
from .markdown_containment import contained
from .markdown_dialect import markdown_extensions
from .note_markdown import render
from .note_rules import length_warnings, split_sections
from .page_safety import removed_markup
from .paper_text import note_sections
from .records import NoteVersion, Record

PREFIX_NO_TABLE = "no results table, though the paper reports results"
PREFIX_REMOVED = "removed"
WHOLE_PREFIX = "length of the note"


def read_paper_for_notes(settings: Settings, record: Record) -> str | None:
    """Title plus what a note reads of the paper; None when there is no text to compare with."""
    try:
        sections = note_sections(settings, record)
    except NoInput:
        return None
    return "\n".join([record.title, *(body for _, body in sections)])


def paper_note_warnings(markdown: str, text: str | None) -> list[str]:
    """Numbers not in the paper (by section), and a missing results table; none without the paper's text."""
    if not text:
        return []
    facts = PaperFacts(text, words=False)
    found: list[str] = []
    for section in split_sections(markdown):
        invented = invented_numbers(section.body, facts)
        found += [f"{token} ({section.heading})" for token in invented]
    warnings = [f"{PREFIX_NUMBERS}: {', '.join(found[:8])}"] if found else []
    has_table = any(line.lstrip().startswith("|") for line in markdown.split("\n"))
    if facts.has_results and not has_table:
        warnings.append(PREFIX_NO_TABLE)
    return warnings


def page_warnings(page: str) -> list[str]:
    """What the page does with a note's Markdown that its text does not show: markup the sanitiser removes
    ("removed: an <svg> element"), and what it mends so the note cannot swallow the page."""
    if "<" not in page and "](" not in page and "]:" not in page:
        return []  # nothing that can make markup
    mended, said = contained(page)
    names, options = markdown_extensions()
    html = markdown.markdown(mended, extensions=names, extension_configs=options)
    return [*said, *(f"{PREFIX_REMOVED}: {what}" for what in removed_markup(html))]


def note_warnings(settings: Settings, record: Record, version: NoteVersion) -> list[str]:
    """Every warning about a note version that needs the paper or the record (stored with a model's note)."""
    text = read_paper_for_notes(settings, record)
    page = render(settings, record, version)
    return merge(
        paper_note_warnings(version.markdown, text),
        length_warnings([], len(page)),
        page_warnings(page),
    )


def current_note_warnings(settings: Settings, record: Record, version: NoteVersion | None = None) -> list[str]:
    """A note version's stored warnings, plus those found now when it was stored unchecked (edits, imports)."""
    version = version or record.notes.current
    if version is None:
        return []
    if version.checked:
        return list(version.warnings)
    stored = [w for w in version.warnings if not w.startswith(WHOLE_PREFIX)]
    return merge(stored, note_warnings(settings, record, version))
