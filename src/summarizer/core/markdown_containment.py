"""A note cannot swallow the page it stands on: what it leaves open is closed or shown as text.

A note is one part of its paper's page, between the page's own parts (the header, the paper's links and
tags, related papers, the way back).  A code fence it never closes, an HTML comment it never ends, or a
raw HTML block it leaves open would take everything after it on the page into that fence, comment or
block (Python-Markdown's ``md_in_html`` even drops the whole page for a comment opened at a line's
start).  So before a note is placed, ``contained`` checks it with the site's own Markdown, inside the
``<div markdown="1">`` the page puts it in, followed by a comment and a paragraph of the page's: when
they do not come out as written, the note is mended step by step (the open fence closed at its end, an open
comment shown as text, then any raw HTML block start shown as text) until it does.  Each step taken
is said, for the reviewer.

Only a note that can open such a block is checked (a comment, a line that starts with ``<``, a fence): the
check is one Markdown render, and most notes need none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import markdown

from .fences import open_fence
from .markdown_dialect import markdown_extensions

_BLOCK_HTML = re.compile(r"^ {0,3}<[A-Za-z!?/]", re.MULTILINE)
_TAG_START = re.compile(r"<(?=[A-Za-z!?/])")
_SENTINEL = "summarizer-note-ends-here"
# The page around a note, as paper.md.j2 writes it: the indexed div, the note's div, then the page's own
# comment and a paragraph.  The comment matters: an open one of the note's would end there.
_WRAPPED = (
    '<div markdown="1">\n\n<div class="paper-note" markdown="1">\n\n{}\n\n</div>\n\n</div>\n'
    f"<!-- {_SENTINEL} -->\n\n{_SENTINEL}\n"
)
_ENDS_WELL = re.compile(r"</div>\s*</div>\s*<!-- " + _SENTINEL + r" -->\s*<p>" + _SENTINEL + r"</p>\s*\Z")


def _could_open_a_block(text: str) -> bool:
    return "<!--" in text or _BLOCK_HTML.search(text) is not None or "```" in text or "~~~" in text


@lru_cache(maxsize=1)
def _renderer() -> markdown.Markdown:
    names, options = markdown_extensions()
    return markdown.Markdown(extensions=names, extension_configs=options)


def _ends_on_its_own(text: str) -> bool:
    """The page's next paragraph still comes out as a paragraph after ``text``, as the site renders it."""
    renderer = _renderer()
    renderer.reset()
    return _ENDS_WELL.search(renderer.convert(_WRAPPED.format(text))) is not None


def _close_fence(text: str) -> str:
    fence = open_fence(text)
    return f"{text.rstrip()}\n{fence}" if fence else text


def _open_comment_as_text(text: str) -> str:
    """Each ``<!--`` that no later ``-->`` ends, shown as text."""
    out, at = [], 0
    while (start := text.find("<!--", at)) != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            out.append(text[at:start] + "&lt;!--")
            at = start + 4
        else:
            out.append(text[at : end + 3])
            at = end + 3
    return "".join(out) + text[at:]


def _block_html_as_text(text: str) -> str:
    """Every line that starts raw HTML (a tag, a comment, a declaration) shown as text from its ``<``."""
    return _BLOCK_HTML.sub(lambda m: m.group(0)[:-2] + "&lt;" + m.group(0)[-1], text)


def _all_markup_as_text(text: str) -> str:
    return _TAG_START.sub("&lt;", text)


_MENDS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("a code fence left open: closed at the note's end", _close_fence),
    ("an HTML comment left open: shown as text", _open_comment_as_text),
    ("raw HTML left open: shown as text", _block_html_as_text),
    ("markup that took the rest of the page: shown as text", _all_markup_as_text),
)


def contained(text: str) -> tuple[str, list[str]]:
    """``text`` mended until it cannot swallow what follows it on the page, and the mends made, in words."""
    if not _could_open_a_block(text) or _ends_on_its_own(text):
        return text, []
    said = []
    for reason, mend in _MENDS:
        mended = mend(text)
        if mended != text:
            text = mended
            said.append(reason)
            if _ends_on_its_own(text):
                break
    return text, said
