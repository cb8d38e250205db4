"""The flagged numbers of a summary (or of a note's section), marked where they stand in its text.

The warning ``numbers not in the paper text: 71.3%, GPT-4o`` names the tokens; each is marked where it
occurs in the summary as a whole token (``71.3%`` in ``提升到 71.3%``, not the ``1.3`` of ``11.3``).  A
flagged number inside math (``\\(4.1\\times\\)``) marks the whole math span: MathJax typesets math only
when its delimiters stay in one piece of text.
"""

from __future__ import annotations

import re

from summarizer.core.fences import outside_fences
from summarizer.core.flags import warning_kind

_MATH = re.compile(r"\\\(.*?\\\)|\\\[.*?\\\]|\$[^$\n]+\$", re.DOTALL)
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+")


def flagged_tokens(warnings: list[str]) -> list[str]:
    """The tokens the numbers warnings name (``numbers not in …: a, b`` → ``[a, b]``)."""
    tokens: list[str] = []
    for warning in warnings:
        if warning_kind(warning) == "numbers" and ": " in warning:
            tokens += [t for t in warning.split(": ", 1)[1].split(", ") if t and t not in tokens]
    return tokens


def _pattern(tokens: list[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True))
    return re.compile(f"(?<![A-Za-z0-9.])(?:{alternatives})(?![A-Za-z0-9])")


def _plain(text: str, pattern: re.Pattern[str]) -> list[tuple[str, bool]]:
    parts: list[tuple[str, bool]] = []
    at = 0
    for match in pattern.finditer(text):
        parts += [(text[at : match.start()], False), (match.group(), True)]
        at = match.end()
    return [*parts, (text[at:], False)]


def mark_flagged(summary: str, tokens: list[str]) -> list[tuple[str, bool]]:
    """The summary as (text, flagged) pieces, in order: joined, they are the summary unchanged."""
    if not tokens:
        return [(summary, False)]
    pattern = _pattern(tokens)
    parts: list[tuple[str, bool]] = []
    at = 0
    for math in _MATH.finditer(summary):
        parts += _plain(summary[at : math.start()], pattern)
        inside = _TEX_COMMAND.sub(" ", math.group())
        parts.append((math.group(), pattern.search(inside) is not None))
        at = math.end()
    parts += _plain(summary[at:], pattern)
    return [(text, flagged) for text, flagged in parts if text]


# Code spans, link targets, tags and autolinks, character references (``&#91;``): a mark inside any of
# them would show as text or break it.
_LEFT_AS_IS = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)|\]\([^)\n]*\)|<[^<>\n]*>|&#?\w+;")
FLAG = '<mark class="flagged" title="not in the paper text">{}</mark>'
# A mark as it passes the site's sanitiser, which keeps no class or title: two private-use characters that
# become FLAG's tags after it (``flags_in_html``); a note's own are dropped first (``without_placeholders``).
_OPEN, _CLOSE = "\ue000", "\ue001"
PLACEHOLDER = _OPEN + "{}" + _CLOSE


def without_placeholders(text: str) -> str:
    return text.replace(_OPEN, "").replace(_CLOSE, "") if _OPEN in text or _CLOSE in text else text


def flags_in_html(html: str) -> str:
    """Sanitised HTML with each placeholder mark made FLAG's ``<mark>``."""
    opened, closed = FLAG.split("{}")
    return html.replace(_OPEN, opened).replace(_CLOSE, closed)


def _mark_line(line: str, tokens: list[str], flag: str) -> str:
    out: list[str] = []
    at = 0
    for kept in _LEFT_AS_IS.finditer(line):
        out.append(_marked(line[at : kept.start()], tokens, flag))
        out.append(kept.group())
        at = kept.end()
    out.append(_marked(line[at:], tokens, flag))
    return "".join(out)


def _marked(text: str, tokens: list[str], flag: str) -> str:
    return "".join(flag.format(piece) if flagged else piece for piece, flagged in mark_flagged(text, tokens))


def mark_markdown(markdown: str, tokens: list[str], flag: str = FLAG) -> str:
    """A note's Markdown (made safe already) with each flagged token wrapped in ``<mark>``, outside code.

    The mark (``flag``) is the only HTML added; a flagged number inside math marks the whole math span.
    """
    if not tokens:
        return markdown
    lines = markdown.split("\n")
    for i, line in outside_fences(lines):
        lines[i] = _mark_line(line, tokens, flag)
    return "\n".join(lines)
