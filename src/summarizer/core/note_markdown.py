"""A paper's note as the Markdown page the site publishes: ``render(settings, record, version)``.

The page is the reference's: ``# Title``, the bold metadata lines (会议, arXiv, 代码, 领域, 关键词, each
from the record, the paper's summary and config.yaml, never from the model), ``## 一句话总结`` (the
paper's approved summary, copied), then the note's own sections as stored.  An imported note keeps
its own header and 一句话总结 as written, and renders as it did on the reference.

Whatever the version holds passes ``safe_markdown`` on the way out, since a record file can be edited
by hand: raw HTML other than a few attribute-less inline tags and comments shows as text, a link or
image whose target is not http(s) (``javascript:``, ``data:``) is no link, images are never loaded,
``{key=value}`` braces that attr_list would turn into attributes are text, and TeX that could make
a link or a style loses its backslash.  Code spans, fenced code and math are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .config import Settings
from .errors import UnknownVenue
from .fences import outside_fences
from .ids import strip_version
from .note_rules import HEADINGS, split_sections
from .records import NoteVersion, Record, Version
from .unsafe_tex import without_unsafe_tex
from .web_links import local_host

# Inline HTML that shows text as the reference did and can carry nothing: kept when it has no attributes.
SAFE_TAGS = frozenset({"br", "sub", "sup", "b", "i", "em", "strong", "u", "s", "del", "mark", "kbd", "small"})
_SAFE_SCHEMES = ("http://", "https://", "mailto:")

# What every pattern below needs (a tag's '<', a link's '](' or '[x]:', an attribute list's '{…='): the quick look.
_CAN_ACT = re.compile(r"<|\]\(|\]:|\{[^{}\n]*=")
_CODE_OR_MATH = re.compile(
    r"(`+)(?!`).*?(?<!`)\1(?!`)"  # a code span
    r"|\$\$.+?\$\$|(?<![\\$])\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)"  # $$ … $$, $ … $
    r"|\\\(.+?\\\)|\\\[.+?\\\]"  # \( … \), \[ … \]
)
_TAG = re.compile(r"<(!--.*?-->|/?([A-Za-z][A-Za-z0-9-]*)(\s[^<>]*)?/?>|[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]*>)")
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?[^)\n]*\)")
_DEFINITION = re.compile(r"^( {0,3})\[([^\]\n]+)\]:\s*<?(\S*?)>?(\s.*)?$")
_ATTRIBUTES = re.compile(r"\{:?[^{}\n]*=[^{}\n]*\}")
_HAS_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_INLINE_SPECIAL = re.compile(r"[\\`*_$|<>&\[\]{}]")
_INLINE_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "[": "&#91;", "]": "&#93;", "{": "&#123;", "}": "&#125;"}


def _safe_target(target: str) -> bool:
    """A link target the page may keep: http(s) (not to the reader's own network), mailto, or a relative
    path or anchor (no scheme)."""
    target = target.strip()
    if target.lower().startswith(("http://", "https://")):
        return not local_host(target)
    return target.lower().startswith(_SAFE_SCHEMES) or not _HAS_SCHEME.match(target)


def _tag(match: re.Match[str]) -> str:
    whole, name, attributes = match.group(0), match.group(2), match.group(3)
    if whole.startswith("<!--") or (name and name.lower() in SAFE_TAGS and not (attributes or "").strip()):
        return whole
    if not name and whole[1:].lower().startswith(("http://", "https://")) and not local_host(whole[1:-1]):
        return whole  # an autolink to a web page
    return "&lt;" + whole[1:]


def _link(match: re.Match[str]) -> str:
    bang, text, target = match.group(1), match.group(2), match.group(3)
    if not bang and _safe_target(target):
        return match.group(0)
    rest = match.group(0)[len(bang) + len(text) + 2 :]
    return f"{bang}&#91;{text}&#93;{rest}"  # shown as written, never followed or loaded


def _safe_text(text: str) -> str:
    """One stretch of Markdown outside code and math, made inert where it could act."""
    if "<" in text:
        text = _TAG.sub(_tag, text)
    if "[" in text:
        text = _LINK.sub(_link, text)
    return _ATTRIBUTES.sub(lambda m: "&#123;" + m.group(0)[1:], text) if "{" in text else text


def _safe_line(line: str) -> str:
    definition = _DEFINITION.match(line) if "]:" in line else None
    if definition is not None and not _safe_target(definition.group(3)):
        return f"{definition.group(1)}&#91;{definition.group(2)}&#93;:" + line[definition.end(2) + 2 :]
    out: list[str] = []
    pos = 0
    for match in _CODE_OR_MATH.finditer(line):
        out.append(_safe_text(line[pos : match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(_safe_text(line[pos:]))
    return "".join(out)


def safe_markdown(markdown: str) -> str:
    """``markdown`` with everything that could act on the page made inert (see the module doc)."""
    text = without_unsafe_tex(markdown) if "\\" in markdown else markdown
    if _CAN_ACT.search(text) is None:
        return text  # no tag, link or attribute list can start anywhere in it
    lines = text.split("\n")
    for i, line in outside_fences(lines):
        if _CAN_ACT.search(line):  # most of a note's lines can make no tag, link or attribute list
            lines[i] = _safe_line(line)
    return "\n".join(lines)


def escape_inline(text: str) -> str:
    """Outside text (a title, a tag) in a heading or a bold line: shown as written, never read as markup."""
    return _INLINE_SPECIAL.sub(lambda m: _INLINE_ENTITIES.get(m.group(), "\\" + m.group()), " ".join(text.split()))


def summary_version(record: Record) -> Version | None:
    """The summary a note's header and 一句话总结 come from: the approved one, else the newest."""
    return record.summaries.approved or record.summaries.current


def header(settings: Settings, record: Record) -> str:
    """``# Title`` and the bold metadata lines, from the record, its summary and config.yaml."""
    try:
        venue = settings.venue(record.venue).name
    except UnknownVenue:
        venue = record.venue
    if record.tier:
        venue = f"{venue} ({record.tier})"
    summary = summary_version(record)
    field = settings.field(summary.field) if summary else None
    arxiv = strip_version(record.arxiv_id) if record.arxiv_id else None
    code = record.notes.code_url
    lines = [
        ("会议", escape_inline(venue)),
        ("arXiv", f"[{arxiv}](https://arxiv.org/abs/{arxiv})" if arxiv else "无"),
        ("代码", f"[{escape_inline(code)}]({code})" if code else "无"),
        ("领域", escape_inline(field.name) if field else "无"),
        ("关键词", escape_inline(", ".join(summary.tags)) if summary and summary.tags else "无"),
    ]
    bold = "  \n".join(f"**{label}**: {value}" for label, value in lines)
    return f"# {escape_inline(record.title)}\n\n{bold}\n"


def note_version(record: Record) -> NoteVersion | None:
    """The note a page shows: the approved one, else the newest (a preview's)."""
    return record.notes.approved or record.notes.current


def render(
    settings: Settings,
    record: Record,
    version: NoteVersion | None = None,
    *,
    summary_markdown: Callable[[str], str] = safe_markdown,
) -> str:
    """The note's whole page as Markdown (``version``: default the approved note, else the newest); "" for none.

    A note with no ``## 一句话总结`` of its own gets the paper's summary (approved, else newest) copied in,
    written by ``summary_markdown`` (the site passes the escaping its digest pages give a summary).
    """
    version = version or note_version(record)
    if version is None:
        return ""
    top = version.header if version.header is not None else header(settings, record) + "\n"
    summary = summary_version(record)
    if summary is None or _has_summary(version.markdown):
        page = safe_markdown(top + version.markdown)
    else:
        copied = f"## {HEADINGS['summary']}\n{summary_markdown(summary.summary)}\n\n"
        page = safe_markdown(top) + copied + safe_markdown(version.markdown)
    return page.rstrip("\n") + "\n"


def _has_summary(markdown: str) -> bool:
    """The note holds its own ``## 一句话总结`` (outside code: the quick look first, a site builds thousands)."""
    if HEADINGS["summary"] not in markdown:
        return False
    return any(s.key == "summary" for s in split_sections(markdown))
