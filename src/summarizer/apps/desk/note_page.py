"""A note as the desk shows it: the page the site publishes, turned into HTML section by section, each
section with its own warnings and the numbers they name marked in its text.

The Markdown is ``core.note_markdown.render``'s, read with the site's Markdown extensions and passed
through the site's own sanitiser (``core.page_safety``), so a reviewer sees what the site will publish;
the desk adds only ``<mark>`` around flagged numbers.  What the sanitiser takes out is among the note's
warnings (``core.note_flags.page_warnings``: "removed: an <svg> element"), so a reviewer knows that the
text holds more than shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import markdown

from summarizer.core.config import Settings
from summarizer.core.flags import PREFIX_NUMBERS
from summarizer.core.markdown_containment import contained
from summarizer.core.markdown_dialect import markdown_extensions
from summarizer.core.note_markdown import render
from summarizer.core.note_rules import split_sections, without_code
from summarizer.core.page_safety import clean_html
from summarizer.core.records import NoteVersion, Record

from .highlight import PLACEHOLDER, flags_in_html, mark_markdown, without_placeholders

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_SECTION_LINE = re.compile(r"^##[ \t]")
_IN_SECTION = re.compile(r"^(?P<token>.+) \((?P<heading>[^()]+)\)$")  # "71.3 (实验关键数据)"
_LENGTH_OF = re.compile(r"^length of (?P<heading>.+?) [\d,]+ outside ")


@dataclass
class NoteSection:
    anchor: str  # the section's id on the page
    heading: str
    html: str
    warnings: list[str] = field(default_factory=list)


@dataclass
class ShownWarning:
    text: str
    section: NoteSection | None = None  # the section it is about (a link to it), or None: the whole note


@dataclass
class NotePage:
    top: str  # the header as HTML: the title and the bold metadata lines
    sections: list[NoteSection]
    warnings: list[ShownWarning]  # the note's, then each section's (shown again with its section)


@dataclass
class _Placed:
    whole: list[str] = field(default_factory=list)
    by_section: dict[str, list[str]] = field(default_factory=dict)
    flagged: dict[str, list[str]] = field(default_factory=dict)


def _place(warnings: list[str], headings: set[str]) -> _Placed:
    """Each warning with the section it names (numbers one by one, a section's length), the rest for the note."""
    placed = _Placed()
    for warning in warnings:
        length = _LENGTH_OF.match(warning)
        if length and length.group("heading") in headings:
            placed.by_section.setdefault(length.group("heading"), []).append(warning)
        elif warning.startswith(f"{PREFIX_NUMBERS}: "):
            _place_numbers(warning.split(": ", 1)[1].split(", "), headings, placed)
        else:
            placed.whole.append(warning)
    for heading, tokens in placed.flagged.items():
        placed.by_section.setdefault(heading, []).insert(0, f"{PREFIX_NUMBERS}: {', '.join(tokens)}")
    return placed


def _place_numbers(items: list[str], headings: set[str], placed: _Placed) -> None:
    elsewhere = []
    for item in items:
        found = _IN_SECTION.match(item)
        if found and found.group("heading") in headings:
            placed.flagged.setdefault(found.group("heading"), []).append(found.group("token"))
        else:
            elsewhere.append(item)
    if elsewhere:
        placed.whole.append(f"{PREFIX_NUMBERS}: {', '.join(elsewhere)}")


def rendered(text: str) -> str:
    """``text`` as Python-Markdown renders it with the site's extensions, before the sanitiser."""
    names, options = markdown_extensions()  # the site's, so a note reads here as it will there
    return markdown.markdown(text, extensions=names, extension_configs=options)


def to_html(text: str) -> str:
    """``text`` as the site's pages show it: rendered, then sanitised."""
    return clean_html(rendered(text))


def _top(page: str) -> str:
    """What comes before the first ``##`` section (code blocks are not read for headings)."""
    lines, masked = page.split("\n"), without_code(page).split("\n")
    first = next((i for i, line in enumerate(masked) if _SECTION_LINE.match(line)), len(lines))
    return "\n".join(lines[:first])


def note_page(settings: Settings, record: Record, version: NoteVersion, warnings: list[str]) -> NotePage:
    """``version`` of the paper's note as the site will show it, its ``warnings`` beside the sections they name."""
    page = without_placeholders(_FRONT_MATTER.sub("", render(settings, record, version)))
    sections = split_sections(page)
    placed = _place(warnings, {s.heading for s in sections})
    shown = [
        NoteSection(
            f"note-section-{n}",
            s.heading,
            flags_in_html(to_html(mark_markdown(contained(s.body)[0], placed.flagged.get(s.heading, []), PLACEHOLDER))),
            placed.by_section.get(s.heading, []),
        )
        for n, s in enumerate(sections, 1)
    ]
    listed = [ShownWarning(w) for w in placed.whole]
    listed += [ShownWarning(w, s) for s in shown for w in s.warnings]
    return NotePage(to_html(contained(_top(page))[0]), shown, listed)
