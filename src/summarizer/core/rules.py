"""The rules every summary meets, whoever wrote it: the model, an editor or an import.

Hard limits reject clearly broken text (no Chinese at all, several lines, far
too short or long, an unknown field, no tags).  Style preferences only warn:
they are the prompt's job and the reviewer's, not grounds for rejection.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from . import limits
from .cjk import CJK, CJK_RANGES
from .config import Settings, TagSettings
from .errors import TextRejected
from .sanitize import clean_line, clean_text
from .unsafe_tex import unsafe_tex_commands

MIN_CHARS = 40
MAX_CHARS = 600

_LETTER_OR_CJK = re.compile(f"[A-Za-z{CJK_RANGES}]")
_PREAMBLE = re.compile(r"^\s*(摘要|总结|概要|中文摘要|Summary)\s*[:：]")
_MARKDOWN_BLOCK = re.compile(r"^\s*(#{1,6}\s|[-*+]\s|\d+\.\s|>)")


@dataclass
class CheckedSummary:
    summary: str
    tags: list[str]
    field: str
    warnings: list[str] = dataclass_field(default_factory=list)


def cjk_share(text: str) -> float:
    """Chinese characters among letters and Chinese characters."""
    letters = _LETTER_OR_CJK.findall(text)
    if not letters:
        return 0.0
    return sum(1 for ch in letters if CJK.match(ch)) / len(letters)


def cjk_count(text: str) -> int:
    """Chinese characters (Han ideographs): what the house length counts."""
    return len(CJK.findall(text))


def house_range() -> dict[str, int]:
    """The house length's figures by name (``limits.HOUSE_*``): what the prompt asks for and a report states."""
    return {
        "cjk_low": limits.HOUSE_CJK_LOW,
        "cjk_median": limits.HOUSE_CJK_MEDIAN,
        "cjk_high": limits.HOUSE_CJK_HIGH,
        "chars_low": limits.HOUSE_CHARS_LOW,
        "chars_median": limits.HOUSE_CHARS_MEDIAN,
        "chars_high": limits.HOUSE_CHARS_HIGH,
    }


def in_house_range(text: str) -> bool:
    """Within the house length (``limits.HOUSE_*``: the reference's p5-p95), in Chinese characters and in all."""
    cjk = cjk_count(text)
    return (
        limits.HOUSE_CJK_LOW <= cjk <= limits.HOUSE_CJK_HIGH
        and limits.HOUSE_CHARS_LOW <= len(text) <= limits.HOUSE_CHARS_HIGH
    )


def length_warning(text: str) -> str | None:
    """The style warning for a summary outside the house length; None inside it."""
    if in_house_range(text):
        return None
    return (
        f"length {cjk_count(text)} Chinese characters, {len(text)} in all: outside the house range "
        f"({limits.HOUSE_CJK_LOW}-{limits.HOUSE_CJK_HIGH} Chinese, "
        f"{limits.HOUSE_CHARS_LOW}-{limits.HOUSE_CHARS_HIGH} in all)"
    )


def summary_problems(text: str) -> list[str]:
    problems = []
    if not text:
        return ["the summary is empty"]
    if not CJK.search(text):
        problems.append("the summary has no Chinese: write it in Chinese, keeping technical terms in English")
    if "\n" in text or "\r" in text:
        problems.append("the summary has line breaks: it must be one paragraph on one line")
    if len(text) < MIN_CHARS:
        problems.append(f"the summary is too short ({len(text)} characters; at least {MIN_CHARS})")
    if len(text) > MAX_CHARS:
        problems.append(f"the summary is too long ({len(text)} characters; at most {MAX_CHARS})")
    unsafe = unsafe_tex_commands(text)
    if unsafe:
        problems.append(
            f"the summary uses {', '.join(unsafe)}: TeX that makes links, styles or HTML is not allowed; "
            "write plain math such as \\(O(n\\log n)\\)"
        )
    return problems


def summary_warnings(text: str) -> list[str]:
    length = length_warning(text)
    warnings = [length] if length else []
    if CJK.search(text) and cjk_share(text) < limits.HOUSE_MIN_CJK_SHARE:
        warnings.append(f"little Chinese ({cjk_share(text):.0%})")
    if _PREAMBLE.match(text):
        warnings.append("starts with a preamble like 摘要：")
    if _MARKDOWN_BLOCK.match(text):
        warnings.append("starts like a heading or list item")
    return warnings


def normalize_tag(tag: str, tags: TagSettings) -> str:
    tag = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", tag)).strip()
    canonical = tags.canonical(tag.casefold())
    return tag if canonical is None else canonical


def normalize_tags(raw: list[str], tags: TagSettings) -> list[str]:
    """NFKC, trimmed, aliases resolved case-insensitively, duplicates dropped (first kept)."""
    out: list[str] = []
    seen: set[str] = set()
    for item in raw:
        tag = normalize_tag(item, tags)
        if tag and tag.casefold() not in seen:
            seen.add(tag.casefold())
            out.append(tag)
    return out


def check_summary(summary: str, tags: list[str], field_id: str, settings: Settings) -> CheckedSummary:
    """Normalise and check one summary; raise TextRejected listing every hard problem."""
    summary = summary.strip()
    problems = summary_problems(summary)
    clean_tags = normalize_tags(tags, settings.tags)
    if not clean_tags:
        problems.append("give 1 to 5 topic tags")
    if settings.field(field_id) is None:
        known = ", ".join(settings.field_ids())
        problems.append(f"unknown field {field_id!r}: choose one of {known}")
    if problems:
        raise TextRejected(problems)
    warnings = summary_warnings(summary)
    if len(clean_tags) > limits.TAGS:
        warnings.append(f"{len(clean_tags)} tags, kept the first {limits.TAGS}")
        clean_tags = clean_tags[: limits.TAGS]
    return CheckedSummary(summary=summary, tags=clean_tags, field=field_id, warnings=warnings)


# -- human text (edits and imports): a person chose these words, so only what breaks the page is rejected --


_WIDE_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff00-\uffef]")


def _spaced(before: str, after: str) -> bool:
    """Whether joining two lines needs a space: not between Chinese characters, nor next to full-width punctuation."""
    if _WIDE_PUNCTUATION.match(before) or _WIDE_PUNCTUATION.match(after):
        return False
    return not (CJK.match(before) and CJK.match(after))


def join_lines(text: str) -> tuple[str, int]:
    """Several lines as one paragraph: no space where two Chinese characters meet; (text, lines joined)."""
    parts = [part.strip() for part in text.splitlines()]
    parts = [part for part in parts if part]
    joined = ""
    for part in parts:
        joined += " " if joined and _spaced(joined[-1], part[0]) else ""
        joined += part
    return joined, len(parts)


def human_tags(raw: list[str], tags: TagSettings) -> tuple[list[str], list[str]]:
    """Tags as stored: controls removed, then normalised; (tags, hard problems)."""
    clean = normalize_tags([clean_line(tag) for tag in raw], tags)
    problems = [
        f"tags: {tag[: limits.TAG]}… is {len(tag)} characters (at most {limits.TAG})"
        for tag in clean
        if len(tag) > limits.TAG
    ]
    if len(clean) > limits.TAGS:
        problems.append(f"tags: {len(clean)} tags (at most {limits.TAGS}): keep the {limits.TAGS} that matter most")
    return clean, problems


def human_summary_warnings(summary: str) -> list[str]:
    warnings = [] if CJK.search(summary) else ["no Chinese"]
    return warnings + summary_warnings(summary)


def check_human_summary(summary: str, tags: list[str], field_id: str, settings: Settings) -> CheckedSummary:
    """Normalise and check a person's summary (an edit or an import line).

    Hard problems are only what cannot be published safely or placed: an empty
    summary, one over 2,000 characters, unsafe TeX, tags over the stored bounds,
    an unknown field.  Everything else (no tags, short, little Chinese, several
    lines) is a warning kept with the version.  Raises TextRejected listing
    every hard problem, each starting with the field it is about.
    """
    text, lines = join_lines(clean_text(summary))
    text = clean_line(text)
    problems: list[str] = []
    if not text:
        problems.append("summary: the summary is empty")
    elif len(text) > limits.HUMAN_SUMMARY:
        problems.append(f"summary: {len(text)} characters (at most {limits.HUMAN_SUMMARY}); shorten it")
    unsafe = unsafe_tex_commands(text)
    if unsafe:
        problems.append(f"summary: unsafe TeX {', '.join(unsafe)} (links, ids, styles and HTML are not allowed)")
    clean_tags, tag_problems = human_tags(tags, settings.tags)
    problems += tag_problems
    problems += [f"tags: unsafe TeX {', '.join(found)}" for found in map(unsafe_tex_commands, clean_tags) if found]
    if settings.field(field_id) is None:
        problems.append(f"field: unknown field {field_id[:60]!r}: choose one of {', '.join(settings.field_ids())}")
    if problems:
        raise TextRejected(problems)
    warnings = human_summary_warnings(text)
    if lines > 1:
        warnings.append(f"{lines} lines joined into one paragraph")
    if not clean_tags:
        warnings.append("no tags (adds nothing to the hot topics)")
    return CheckedSummary(summary=text, tags=clean_tags, field=field_id, warnings=warnings)
