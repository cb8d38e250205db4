"""Written by `summarizer build` beside ``hooks/search_index.py``: a paper page's Chinese as character pairs.

Pagefind matches whole words or their prefixes, and a dictionary decides what a Chinese word is, so a
word glued into a longer one (对齐 in 人类对齐) is not found.  The field's answer is overlapping
character bigrams (Lucene's ``CJKBigramFilter``): every pair of adjacent Han characters is a term, the
search page turns a query into the same pairs and asks for all of them, and a query of three or more
characters is checked against the pairs' order (``search.js``).  A run of Han characters also gives
its last character with an end mark, so a one-character query (a prefix of the pairs) finds a
character wherever it stands.

Pagefind would segment Han terms again, so each term is written in Latin letters: ``zq`` then four
letters a character (base 26 of its code point), ``zzzz`` for the end mark — ten letters, all the same
length, so a pair's prefix match is an exact match.  The terms go into a hidden part of the page's
indexed body that only Pagefind reads: the title and tags weigh most, then the summary, then the rest
(the note).  Latin words are there too, lower-cased: Pagefind's Chinese segmenter glues a Latin
word to the Han characters beside it (``LLM推理``), and a reader looks for ``LLM``.  What the reader
sees is indexed as well, after the hidden part (a result's snippet comes from it).

Standard library only: the built site needs nothing of summarizer's.
"""

from __future__ import annotations

import html as html_lib
import itertools
import re
from html.parser import HTMLParser

# CJK Unified Ideographs, Extension A, compatibility ideographs, Extensions B–G (search.js has the same).
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
WORDS = re.compile(f"([{_HAN}]+)|(?:(?![{_HAN}])[^\\W_])+")  # a Han run, or a run of other letters and digits
END = "zzzz"  # 26**4 - 1 lies above every Han code point: never a character's letters
LAST = f"zq{END}{END}"  # ends the hidden part: what follows in a result's text is what the reader sees
TITLE, SUMMARY, BODY = 10.0, 4.0, 1.0
# Elements whose text is not a word a reader searches for: heading anchors, TeX source.
SKIPPED = frozenset({"headerlink", "arithmatex"})
BLOCKS = frozenset(
    {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "br", "hr", "td", "th", "tr", "table",
     "blockquote", "pre", "dt", "dd", "dl", "details", "summary", "figure", "figcaption", "caption"}
)  # fmt: skip
VOID = frozenset({"br", "hr", "img", "input", "col", "wbr"})


def letters(char: str) -> str:
    n, out = ord(char), ""
    for _ in range(4):
        out = chr(97 + n % 26) + out
        n //= 26
    return out


def pair_terms(text: str) -> list[str]:
    """The terms of ``text``, in order: each Han run's pairs, then its last character with the end mark; each
    Latin word (letters and digits) lower-cased, which Pagefind's Chinese segmenter would glue to the Han
    characters beside it (``LLM推理``)."""
    terms = []
    for found in WORDS.finditer(text):
        if found.group(1) is None:
            terms.append(found.group(0).lower())
            continue
        codes = [letters(c) for c in found.group(1)]
        terms += [f"zq{a}{b}" for a, b in itertools.pairwise(codes)]
        terms.append(f"zq{codes[-1]}{END}")
    return terms


class _Parts(HTMLParser):
    """The text of the indexed body (``data-pagefind-body``) by weight: title and tags, summary, the rest."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: dict[float, list[str]] = {TITLE: [], SUMMARY: [], BODY: []}
        self.stack: list[tuple[str, float | None, bool]] = []  # tag, weight it sets, skipped
        self.body_depth: int | None = None
        self.section = BODY
        self.heading: list[str] | None = None
        self.seen_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            self._break()
            return
        found = dict(attrs)
        if self.body_depth is None:
            if "data-pagefind-body" in found:
                self.body_depth = len(self.stack)
            self.stack.append((tag, None, False))
            return
        classes = set((found.get("class") or "").split())
        skipped = bool(classes & SKIPPED) or "data-pagefind-ignore" in found or (self.stack and self.stack[-1][2])
        weight = None
        if tag == "h1" and not self.seen_title:
            weight, self.seen_title = TITLE, True
        elif tag == "a" and re.search(r"(^|/)(tags/|search/\?q=)", found.get("href") or ""):  # a tag's link
            weight = TITLE
        elif tag in ("h1", "h2"):
            self.heading = []
        if tag in BLOCKS:
            self._break()
        self.stack.append((tag, weight, bool(skipped)))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.stack:
            return
        while self.stack:
            name, _, _ = self.stack.pop()
            if name == tag:
                break
        if self.body_depth is not None and len(self.stack) <= self.body_depth:
            self.body_depth = -1  # the body is over: nothing after it is indexed
        if tag in ("h1", "h2") and self.heading is not None:
            self.section = SUMMARY if "一句话总结" in "".join(self.heading) else BODY
            self.heading = None
        if tag in BLOCKS:
            self._break()

    def handle_data(self, data: str) -> None:
        if self.body_depth is None or self.body_depth < 0 or (self.stack and self.stack[-1][2]):
            return
        if self.heading is not None:
            self.heading.append(data)
        weights = [w for _, w, _ in self.stack if w is not None]
        self.text[weights[-1] if weights else self.section].append(data)

    def _break(self) -> None:
        for parts in self.text.values():
            parts.append("\n")


def index_part(page_html: str, filters: dict[str, str]) -> str:
    """The hidden, index-only part to put first in the page's indexed body: its terms by weight, and filters."""
    parts = _Parts()
    parts.feed(page_html)
    parts.close()
    rows = []
    for weight, chunks in parts.text.items():
        terms = pair_terms("".join(chunks))
        if terms:
            rows.append(f'<p data-pagefind-weight="{weight:g}">{" ".join(terms)}</p>')
    # Filters, not metadata: Pagefind makes metadata values searchable words, and a page is found by its
    # text alone.  A result shows its venue and field from its filters.  A value ends at a comma.
    pairs = [html_lib.escape(f"{name}:{value.replace(',', '，')}", quote=True) for name, value in filters.items()]
    marks = "".join(f'<span data-pagefind-filter="{pair}"></span>' for pair in pairs)
    return f'<div class="search-terms" hidden>{marks}{"".join(rows)}<p>{LAST}</p></div>'
