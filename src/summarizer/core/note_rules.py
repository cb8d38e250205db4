"""The rules every per-paper note meets, whoever wrote it: the model, an editor or an import.

A note is Markdown in the reference's sections (``SECTIONS``, in order).  What is measured and checked:

* **lengths** per section and for the whole note: a warning outside the reference's p5-p95 (measured
  over its 3,484 notes), an error past ``limits.NOTE`` characters for the whole note;
* **markup** the page must not carry from a model: raw HTML, images, code fences, links and URLs
  (metadata and links come from the record), ``$ … $`` math (the site writes ``\\( … \\)``), headings
  inside a field; TeX that could put a link or a style on the page (``unsafe_tex``), from anyone;
* **Chinese**: a section of the model's with no Chinese at all is broken output.

The model's answer is checked field by field (``summarize.note_answer``) with ``markup_problems``
and ``has_chinese``; a person's Markdown (an edit, an imported note) with ``check_human_note``:
hard errors only for what cannot be published safely or placed (empty, over the cap, control
characters, unsafe TeX), everything else a warning kept with the version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import limits
from .cjk import CJK
from .errors import TextRejected
from .fences import FENCE, outside_fences
from .sanitize import has_unsafe_characters
from .unsafe_tex import unsafe_tex_commands

# The sections of a note, in the reference's order: (key, heading the tool writes, headings the reference uses).
SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("summary", "一句话总结", ()),
    ("background", "研究背景与动机", ("背景与动机",)),
    ("problem", "核心问题", ()),
    ("method", "方法详解", ("关键方法",)),
    ("experiments", "实验关键数据", ("实验", "实验与结果")),
    ("highlights", "亮点与洞察", ("亮点", "亮点 / 我学到了什么")),
    ("limitations", "局限性 / 可改进方向", ("局限性",)),
    ("related", "与相关工作的对比", ("相关工作与启发", "相关工作")),
    ("ratings", "评分", ()),
)
HEADINGS = {key: heading for key, heading, _ in SECTIONS}
_KEY_OF_HEADING = {name: key for key, heading, aliases in SECTIONS for name in (heading, *aliases)}

# The reference's p5-p95 in characters (whole note: header and every section).
WHOLE_BOUNDS = (1_760, 5_676)
SECTION_BOUNDS: dict[str, tuple[int, int]] = {
    "summary": (73, 202),
    "background": (154, 714),
    "method": (317, 1_828),
    "experiments": (119, 1_542),
    "highlights": (67, 363),
    "limitations": (32, 353),
    "related": (61, 419),
}

# A code span stays within its paragraph: it may break a line, never cross a blank one.
_CODE_SPAN = re.compile(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)\1(?!`)", re.DOTALL)
_NOT_NEWLINE = re.compile(r"[^\n]")
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)", re.MULTILINE)
_SECTION_LINE = re.compile(r"^##[ \t]+(.+?)[ \t#]*$")
HTML_TAG = re.compile(r"<(?:!--|/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]*>)")
IMAGE = re.compile(r"!\[[^\]\n]*\]\s*[(\[]")
LINK = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)|\bhttps?://|\bwww\.[A-Za-z0-9-]+\.", re.IGNORECASE)
DOLLAR_MATH = re.compile(r"\$\$|(?<![\\$])\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)")


def _blank(text: str) -> str:
    return _NOT_NEWLINE.sub(" ", text)


def without_code(text: str) -> str:
    """``text`` with inline code spans and fenced blocks blanked: what Markdown reads as markup.

    Blanked to spaces of the same length, line breaks kept, so a place in the result is the same
    place in ``text`` (a section or a header is cut where the masked text says).
    """
    lines = text.split("\n")
    kept = [_blank(line) for line in lines]
    for i, line in outside_fences(lines):
        kept[i] = line
    return _CODE_SPAN.sub(lambda m: _blank(m.group(0)), "\n".join(kept))


def has_chinese(text: str) -> bool:
    return CJK.search(text) is not None


def markup_problems(text: str, where: str) -> list[str]:
    """What a model's field must not hold, each problem naming ``where`` (a key path of its answer)."""
    problems: list[str] = []
    if FENCE.search(text) or "```" in text:
        problems.append(f"{where}: no code fences (```)")
    plain = without_code(text)
    checks = (
        (HTML_TAG, "no HTML tags or comments (write <, > as text only inside `code`)"),
        (IMAGE, "no images"),
        (LINK, "no links or URLs (links come from the paper's record)"),
        (DOLLAR_MATH, "write math as \\( … \\), not $ … $"),
        (_HEADING_LINE, "no headings (#) inside a field"),
    )
    problems += [f"{where}: {rule}" for pattern, rule in checks if pattern.search(plain)]
    unsafe = unsafe_tex_commands(text)
    if unsafe:
        problems.append(f"{where}: TeX {', '.join(unsafe)} is not allowed (no links, styles or HTML in math)")
    return problems


@dataclass
class Section:
    key: str | None  # a SECTIONS key, or None for a heading the reference does not share (kept as written)
    heading: str
    body: str


def split_sections(markdown: str) -> list[Section]:
    """The ``##`` sections of a note's Markdown (headings inside code fences are code), in order."""
    sections: list[Section] = []
    lines = markdown.split("\n")
    masked = without_code(markdown).split("\n")
    heading: str | None = None
    body: list[str] = []
    for line, plain in zip(lines, masked, strict=True):
        match = _SECTION_LINE.match(plain) if plain.strip() else None
        if match is not None:
            if heading is not None:
                sections.append(Section(_KEY_OF_HEADING.get(heading), heading, "\n".join(body).strip()))
            heading, body = match.group(1).strip(), []
        elif heading is not None:
            body.append(line)
    if heading is not None:
        sections.append(Section(_KEY_OF_HEADING.get(heading), heading, "\n".join(body).strip()))
    return sections


def length_warnings(sections: list[Section], whole: int | None) -> list[str]:
    """A warning for the whole note (``whole``: its length, None: not known here) and each section whose
    length is outside the reference's p5-p95."""
    warnings: list[str] = []
    low, high = WHOLE_BOUNDS
    if whole is not None and not low <= whole <= high:
        warnings.append(f"length of the note {whole:,} outside {low:,}-{high:,}")
    for section in sections:
        bounds = SECTION_BOUNDS.get(section.key or "")
        if bounds is not None and not bounds[0] <= len(section.body) <= bounds[1]:
            warnings.append(f"length of {section.heading} {len(section.body):,} outside {bounds[0]:,}-{bounds[1]:,}")
    return warnings


# -- a person's note (an edit or an import) ------------------------------------------------------------


@dataclass
class CheckedNote:
    markdown: str
    header: str | None = None
    warnings: list[str] = field(default_factory=list)


def human_note_problems(markdown: str, header: str | None) -> list[str]:
    """What stops a person's note from being stored: empty, past the cap, control characters, unsafe TeX."""
    whole = (header or "") + markdown
    problems: list[str] = []
    if not split_sections(markdown):
        problems.append("note: no section (a note's sections start with '## ', e.g. ## 研究背景与动机)")
    if len(whole) > limits.NOTE:
        problems.append(f"note: {len(whole):,} characters (at most {limits.NOTE:,}); shorten it")
    if has_unsafe_characters(whole):
        problems.append("note: control or bidi-override characters; remove them")
    unsafe = unsafe_tex_commands(whole)
    if unsafe:
        problems.append(f"note: unsafe TeX {', '.join(unsafe)} (links, ids, styles and HTML are not allowed)")
    return problems


def human_note_warnings(markdown: str, header: str | None) -> list[str]:
    """Everything a reviewer may want to look at in a person's note, none of it fatal."""
    sections = split_sections(markdown)
    plain = without_code(markdown)
    warnings = [] if has_chinese(markdown) else ["no Chinese"]
    for pattern, what in ((HTML_TAG, "raw HTML (shown as text on the site)"), (IMAGE, "an image")):
        if pattern.search(plain):
            warnings.append(what)
    known = {s.key for s in sections}
    missing = [HEADINGS[k] for k in ("background", "method", "experiments") if k not in known]
    if missing:
        warnings.append(f"no section {', '.join(missing)}")
    # The whole page's length is known here only for a note with its own header (an import).
    return warnings + length_warnings(sections, len(header + markdown) if header is not None else None)


def check_human_note(markdown: str, header: str | None = None) -> CheckedNote:
    """A person's note as stored (line endings made ``\\n``, nothing else changed), or ``TextRejected``."""
    markdown = markdown.replace("\r\n", "\n").replace("\r", "\n")
    header = header.replace("\r\n", "\n").replace("\r", "\n") if header is not None else None
    problems = human_note_problems(markdown, header)
    if problems:
        raise TextRejected(problems)
    return CheckedNote(markdown, header, human_note_warnings(markdown, header))
