"""Text that renders as written: escaping for the digest pages, plus the sort and YAML helpers.

The site renders Markdown with Python-Markdown and ``pymdownx.arithmatex``
(generic).  A summary or title is split into *math* and *text*:

* Math is exactly what arithmatex reads as inline math — ``\\( … \\)`` and
  ``$ … $`` (its own regular expressions are used, so the split follows the
  installed version).  Math is written to the page untouched, unless it holds
  TeX that could make a link, id, class or style (``texguard``): that is text.
* Everything else is text, and only what Markdown or HTML would read as syntax
  is escaped, so the reader sees the characters that were written:

  ==============================  ======================================
  ``*`` and `````                 always ``\\*`` / ``\\```` (the paper line is
                                  wrapped in ``**…**``, so any of them may pair)
  ``_``                           ``\\_`` unless between two letters/digits
                                  (``d_model`` stays as it is)
  ``$``                           ``\\$`` (a stray one could pair into math)
  ``\\`` before an escapable char  doubled, so ``\\[x\\]`` shows its backslashes
  ``<`` opening a tag or autolink ``&lt;`` (``<script>``, ``<b>``; ``<3%`` stays)
  ``&`` opening a char reference  ``&amp;`` (``&lt;`` shows as written)
  ``]`` followed by ``(``          ``&#93;`` (no link, no image)
  ``{`` right after math          ``\\{`` (attr_list would eat it)
  ``{`` opening a critic mark      ``&#123;`` (``{++``, ``{--``, ``{==``, ``{>>``,
                                  ``{~~``: pymdownx.critic reads them before
                                  anything else, escapes included)
  ``}`` closing a critic mark      ``&#125;`` (``++}`` …)
  ``=`` beside another ``=``       ``&#61;`` (``==x==`` is pymdownx.mark's)
  ==============================  ======================================

  ``[`` is never written as ``\\[`` (that opens display math); in a link text
  unbalanced brackets become ``&#91;``/``&#93;``.  ``×``, ``μP``, ``d²Cache``,
  ``<3%``, ``[expand]`` stay exactly as written.

A summary (``escape_summary``, not titles or tags) may also use the reference site's
Markdown subset: ``**bold**`` and `` `code` `` are written as such (see ``summary_pieces``
for exactly what pairs); a ``{`` right after them is escaped like one after math.

Display math ``\\[ … \\]`` (and ``$$ … $$``) inside a paragraph is not math to
arithmatex — it only reads those as a block of their own — so Markdown would
drop the backslashes.  It is escaped like any text and shows as written.
"""

from __future__ import annotations

import functools
import html
import json
import re
import unicodedata

from pymdownx.arithmatex import RE_BRACKET_INLINE, RE_SMART_DOLLAR_INLINE

from summarizer.core.unsafe_tex import unsafe_tex_commands
from summarizer.core.web_links import local_host

# A critic mark's opening (pymdownx.critic): read in the page's raw text, before code, math or escapes.
CRITIC_OPENER = re.compile(r"\{(?:\+\+|--|==|>>|~~)")
_CRITIC_KINDS = ("++", "--", "==", ">>", "~~")
_CRITIC_CLOSERS = ("++", "--", "==", "<<", "~~")
# What arithmatex (inline_syntax dollar + round, smart_dollar) reads as inline math.
_INLINE_MATH = re.compile(f"(?:{RE_SMART_DOLLAR_INLINE}|{RE_BRACKET_INLINE})")
# Python-Markdown's escapable characters, plus '$' (arithmatex's) and '=' (pymdownx.mark's).
_ESCAPABLE = frozenset("\\`*_{}[]()>#+-.!$=")
# An '&' that HTML could read as a character reference (numeric ones even without ';').
_AMP_REF = re.compile(r"&(?:#|[A-Za-z0-9]+;)")
# '<' opening a tag, comment, declaration, autolink or (anything up to an '@') a mail autolink.
_TAG_START = re.compile(r"<(?:[A-Za-z/!?]|[^> !]*@)")
_SPACE = re.compile(r"[\s\x00-\x1f\x7f]+")


def clean(text: str) -> str:
    """One line: control characters and line breaks become single spaces; trimmed."""
    return _SPACE.sub(" ", text).strip() if _SPACE.search(text) else text.strip()


def split_math(text: str) -> list[tuple[bool, str]]:
    """``(is_math, segment)`` pieces of one line, as arithmatex would split it."""
    pieces: list[tuple[bool, str]] = []
    pos = 0
    while True:
        m = _INLINE_MATH.search(text, pos)
        if m is None:
            break
        escapes = m.group(1) or m.group(4)
        if escapes or "`" in m.group(0) or _AMP_REF.search(m.group(0)):
            # Backslash pairs before a delimiter, or math a code span or an HTML entity would change: text.
            end = m.end() if escapes else m.start() + 1
            pieces.append((False, text[pos:end]))
            pos = end
            continue
        if unsafe_tex_commands(m.group(0)) or CRITIC_OPENER.search(m.group(0)):
            # TeX that could make a link or a style never reaches MathJax, and a critic mark inside math would
            # be read before the math: either shows as written.
            pieces.append((False, text[pos : m.end()]))
            pos = m.end()
            continue
        if m.start() > pos:
            pieces.append((False, text[pos : m.start()]))
        pieces.append((True, m.group(0)))
        pos = m.end()
    if pos < len(text):
        pieces.append((False, text[pos:]))
    merged: list[tuple[bool, str]] = []
    for is_math, segment in pieces:
        if merged and not is_math and not merged[-1][0]:
            merged[-1] = (False, merged[-1][1] + segment)
        else:
            merged.append((is_math, segment))
    return merged


_PLAIN_SPECIAL = re.compile(r"[*`$_\\<&\]{}=]")


def _escape_plain(text: str, *, after_math: bool, tag_starts: frozenset[int] = frozenset(), offset: int = 0) -> str:
    """Markdown-inert ``text``: each special character escaped by what stands beside it, the rest untouched."""

    def escape(match: re.Match[str]) -> str:
        i, ch = match.start(), match.group()
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch in "*`$":
            return "\\" + ch
        if ch == "_":
            prev = text[i - 1] if i else ""
            return "_" if prev.isalnum() and nxt.isalnum() else "\\_"
        if ch == "\\":
            return "\\\\" if (nxt == "" or nxt in _ESCAPABLE) else "\\"
        if ch == "<":
            return "&lt;" if offset + i in tag_starts else "<"
        if ch == "&":
            return "&amp;" if _AMP_REF.match(text, i) else "&"
        if ch == "]":
            return "&#93;" if nxt == "(" else "]"
        return _escape_brace_or_equals(text, i, after_math=after_math)

    return _PLAIN_SPECIAL.sub(escape, text)


def _escape_brace_or_equals(text: str, i: int, *, after_math: bool) -> str:
    """``{``, ``}`` or ``=`` at ``text[i]``: inert for attr_list, pymdownx.critic and pymdownx.mark."""
    ch = text[i]
    if ch == "=":
        return "&#61;" if "=" in (text[i + 1 : i + 2], text[i - 1 : i]) else "="
    if ch == "}":
        return "&#125;" if text[i - 2 : i] in _CRITIC_CLOSERS else "}"
    if text[i + 1 : i + 3] in _CRITIC_KINDS:
        return "&#123;"
    return "\\{" if i == 0 and after_math else "{"


def _escaped_pieces(text: str) -> list[tuple[bool, str]]:
    text = clean(text)
    # A tag or mail autolink may run across math (arithmatex sets it aside first): look at the whole line.
    # Math is replaced by a placeholder without spaces before that, so mask it the same way.
    pieces = split_math(text)
    masked = "".join("x" * len(segment) if is_math else segment for is_math, segment in pieces)
    tag_starts = frozenset(i for i, ch in enumerate(masked) if ch == "<" and _TAG_START.match(masked, i))
    out: list[tuple[bool, str]] = []
    after_math = False
    offset = 0
    for is_math, segment in pieces:
        if is_math:
            out.append((True, segment))
        else:
            out.append((False, _escape_plain(segment, after_math=after_math, tag_starts=tag_starts, offset=offset)))
        after_math = is_math
        offset += len(segment)
    return out


@functools.lru_cache(maxsize=65_536)  # a title is escaped on its field, venue, tag and related papers' pages
def escape_inline(text: str) -> str:
    """A title, summary, tag or name as Markdown that renders as written (math untouched)."""
    return "".join(segment for _, segment in _escaped_pieces(text))


# The Markdown a summary may use, as on the reference site: `code` and **bold**.  A code span is
# one backtick each side (not after a backslash, which Markdown reads as an escaped backtick),
# around text that neither starts nor ends with a space.  A bold mark is a run of exactly two stars.
_CODE_SPAN = re.compile(r"(?<![`\\])`([^`\s]|[^`\s][^`]*[^`\s])`(?!`)")
_BOLD_MARK = re.compile(r"(?<!\*)\*\*(?!\*)")


def _split_code_and_marks(text: str) -> list[tuple[str, str]]:
    """``("text" | "math" | "code" | "mark", segment)``; every ``**`` run is a mark, paired later."""
    pieces: list[tuple[str, str]] = []

    def add_text(part: str) -> None:
        for i, between in enumerate(_BOLD_MARK.split(part)):
            pieces.extend([("mark", "**")] if i else [])
            pieces.append(("text", between))

    for is_math, segment in split_math(text):
        if is_math:
            pieces.append(("math", segment))
            continue
        pos = 0
        for m in _CODE_SPAN.finditer(segment):
            if CRITIC_OPENER.search(m.group(0)):
                continue  # critic would read it before the code span: text, escaped
            add_text(segment[pos : m.start()])
            pieces.append(("code", m.group(0)))
            pos = m.end()
        add_text(segment[pos:])
    return [(kind, segment) for kind, segment in pieces if segment]


def _pair_marks(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Marks that open (before a non-space) and close (after a non-space) bold become ``"bold"``; others text."""
    kinds = [kind for kind, _ in pieces]
    opened: int | None = None
    for i, (kind, _) in enumerate(pieces):
        if kind != "mark":
            continue
        after = pieces[i + 1][1][:1] if i + 1 < len(pieces) else ""
        before = pieces[i - 1][1][-1:] if i else ""
        if opened is None and after.strip():
            opened = i
        elif opened is not None and before.strip() and i > opened + 1:
            kinds[opened] = kinds[i] = "bold"
            opened = None
    merged: list[tuple[str, str]] = []
    for kind, (_, segment) in zip(kinds, pieces, strict=True):
        kind = "text" if kind == "mark" else kind
        if merged and kind == "text" and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + segment)
        else:
            merged.append((kind, segment))
    return merged


def summary_pieces(text: str) -> list[tuple[str, str]]:
    """A summary line as ``(kind, segment)``: ``text``, ``math``, ``code`` (with its backticks), ``bold`` (a
    paired ``**``).  Joined, the segments are the cleaned line."""
    return _pair_marks(_split_code_and_marks(clean(text)))


@functools.lru_cache(maxsize=65_536)  # a summary is escaped on its field page and on its paper's page
def escape_summary(text: str) -> str:
    """A summary as Markdown: ``**bold**`` and `` `code` `` as such, math untouched, the rest as written."""
    pieces = summary_pieces(text)
    masked = "".join("x" * len(segment) if kind == "math" else segment for kind, segment in pieces)
    tag_starts = frozenset(i for i, ch in enumerate(masked) if ch == "<" and _TAG_START.match(masked, i))
    out: list[str] = []
    offset = 0
    for i, (kind, segment) in enumerate(pieces):
        if kind == "text":
            # After math, code or bold, a '{' would be read as an attribute list for that element.
            after_element = i > 0 and pieces[i - 1][0] != "text"
            out.append(_escape_plain(segment, after_math=after_element, tag_starts=tag_starts, offset=offset))
        else:
            out.append(segment)
        offset += len(segment)
    return "".join(out)


def _brackets_balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


@functools.lru_cache(maxsize=65_536)
def escape_link_text(text: str) -> str:
    """Like :func:`escape_inline`, for the text between ``[`` and ``](``: brackets must stay balanced."""
    pieces = _escaped_pieces(text)
    # Math is set aside before links are read, so only the brackets of the text count.
    if _brackets_balanced("".join(segment for is_math, segment in pieces if not is_math)):
        return "".join(segment for _, segment in pieces)
    return "".join(
        segment if is_math else segment.replace("[", "&#91;").replace("]", "&#93;") for is_math, segment in pieces
    )


def escape_heading(text: str) -> str:
    """Like :func:`escape_inline`, for an ATX heading: no closing ``#`` run, no ``{attr}`` list."""
    escaped = escape_inline(text).replace("{", "\\{")
    if escaped.endswith("#"):
        escaped = escaped[:-1] + "\\#"
    return escaped


_SAFE_URL = re.compile(r"^https?://[^\s]+\Z", re.IGNORECASE)


def link_target(url: str | None) -> str | None:
    """An http(s) URL made safe inside ``(…)``; anything else (``javascript:``…, a reader's own machine or
    network) gives no link."""
    if not url:
        return None
    url = url.strip()
    if not _SAFE_URL.match(url) or local_host(url):
        return None
    for ch, code in (("\\", "%5C"), ("(", "%28"), (")", "%29"), ("<", "%3C"), (">", "%3E"), ('"', "%22")):
        url = url.replace(ch, code)
    # Code spans and arithmatex run before links: a backtick or '$' must not reach them.
    return url.replace("`", "%60").replace("$", "%24")


def sort_key(text: str) -> str:
    """Titles and tags sort by NFKC-casefolded text: ``d²Cache`` as ``d2cache``, before ``DreamOn``."""
    return unicodedata.normalize("NFKC", text).casefold()


# Text YAML surely reads back as the same string: a letter or a printable non-ASCII character first (not a
# line or paragraph separator, not a byte-order mark), then those, digits, spaces and ``.,()'/-`` (no ASCII
# ':', '#', quotes or brackets).  The rest is quoted.
_YAML_OTHER = "\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_YAML_PLAIN = re.compile(f"[A-Za-z{_YAML_OTHER}][A-Za-z0-9 .,()'/\\-{_YAML_OTHER}]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def yaml_scalar(text: str) -> str:
    """A YAML scalar for ``text``: plain when it is surely read back unchanged, else double-quoted (JSON's
    double-quoted strings are YAML's).  Not asked of a YAML parser: a site has a title per page."""
    text = clean(text)
    if text and _YAML_PLAIN.fullmatch(text) and text.casefold() not in _YAML_WORDS:
        return text
    return json.dumps(text, ensure_ascii=False)


def escape_html(text: str) -> str:
    """Outside text inside the page's raw HTML: HTML-escaped, and no critic mark (critic reads raw HTML too)."""
    return _no_critic_mark(html.escape(clean(text), quote=True))


def _no_critic_mark(escaped: str) -> str:
    """Escaped text with each critic opener's brace as an entity: shown as written, never read as a mark."""
    return CRITIC_OPENER.sub(lambda m: "&#123;" + m.group(0)[1:], escaped) if "{" in escaped else escaped


def meta_text(text: str) -> str:
    """Front-matter text MkDocs themes put into HTML attributes unescaped: HTML-escape it."""
    return html.escape(clean(text), quote=True)


# What Markdown reads at the start of a block (a definition, a paragraph of its own): a heading, a quote, a
# list item, a definition (``:``), a fence, an admonition (``!!!``) or a collapsible block (``???``).
# Escaped where a summary starts a block: the rest is inline.
_BLOCK_START = re.compile(r"(?P<mark>#|>|[-+](?=\s)|:|~~~|!!!|\?\?\?)|(?P<number>\d+)\.(?=\s)")


def escape_block_start(markdown: str) -> str:
    """``markdown`` (already escaped inline) made safe to start a block: ``# x`` stays text, not a heading."""
    m = _BLOCK_START.match(markdown)
    if m is None:
        return markdown
    if m.group("number") is not None:
        return f"{m.group('number')}\\.{markdown[m.end() :]}"
    mark = m.group("mark")
    if mark in (":", "~~~", "!!!", "???"):
        return f"&#{ord(mark[0])};{markdown[1:]}"
    return "\\" + markdown


def text_only(text: str) -> str:
    """Plain text for a feed or a page's description: the line cleaned, math and all, as written."""
    return clean(text)


def html_inline(text: str) -> str:
    """One line of outside text as raw HTML: escaped (critic marks too, as ``escape_html``), its math marked
    for MathJax as arithmatex marks it."""
    out = []
    for is_math, segment in split_math(clean(text)):
        if not is_math:
            out.append(html.escape(segment, quote=True))
            continue
        tex = f"\\({segment[1:-1]}\\)" if segment.startswith("$") else segment
        out.append(f'<span class="arithmatex">{html.escape(tex, quote=False)}</span>')
    return _no_critic_mark("".join(out))
