"""The last step before a browser: every page's HTML passes an allowlist sanitiser (ammonia, as ``nh3``).

Whatever a note, a summary, a title or a name from config.yaml holds, what a reader's browser gets is
made of the elements and attributes listed here, and nothing else: what the reference's Markdown
extensions produce (headings, paragraphs, lists, tables, code, ``arithmatex`` math, admonitions,
details, task lists, critic marks) and the few attributes the site's own templates write.  Links go to
``http``, ``https``, ``mailto`` or a relative target; images load only from the site itself; no
``style`` but a table cell's alignment; no ``id`` but a heading's; no ``data-*`` but the site's parts
and Pagefind's bare body and ignore markers, so nothing a record holds can set search titles, URLs,
filters or weights; comments are dropped.

This file is the allowlist and the one sanitiser: ``summarizer build`` copies it into the site's
``hooks/`` folder, where ``hooks/sanitize.py`` runs it over every page MkDocs renders, and the review
desk runs it over every text it shows, so a reviewer sees what the site will publish.  It needs only
``nh3`` and the standard library, so the built site needs nothing of summarizer's.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import nh3

TAGS = frozenset(
    {
        # text and structure
        "p", "br", "hr", "div", "span", "blockquote", "pre", "code", "kbd", "samp", "var",
        "h1", "h2", "h3", "h4", "h5", "h6",
        "strong", "b", "em", "i", "u", "s", "del", "ins", "mark", "small", "sub", "sup", "abbr", "q", "cite",
        "ul", "ol", "li", "dl", "dt", "dd",
        "table", "caption", "colgroup", "col", "thead", "tbody", "tfoot", "tr", "th", "td",
        # pymdownx.details, pymdownx.tasklist, images of the site's own
        "details", "summary", "label", "input", "img", "figure", "figcaption",
        "a",
    }
)  # fmt: skip
ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href", "title", "class", "id", "name"},  # id and name: a code line's anchor only
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
    "td": {"colspan", "rowspan", "align", "style"},
    "th": {"colspan", "rowspan", "align", "style"},
    "details": {"open"},
    "input": {"checked", "disabled"},
    "h1": {"id"}, "h2": {"id"}, "h3": {"id"}, "h4": {"id"}, "h5": {"id"}, "h6": {"id"},
    "*": {"class"},
    # The site's own markers: a part the rebuild hook patches, the search page's mount point and
    # bundles, and what Pagefind indexes.  None of them can carry a script or a search title.
    "p": {"class", "data-part"},
    "ul": {"class", "data-part"},
    "div": {"class", "id", "data-bundles", "data-pagefind-body", "data-pagefind-ignore"},
}  # fmt: skip
# A task list's box is a ticked or empty checkbox a reader cannot change, whatever the text asked for.
FORCED_VALUES = {"input": {"type": "checkbox", "disabled": ""}}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
# The one `id` a div may have: the search page's mount point.
DIV_IDS = frozenset({"site-search"})
CLASSES = frozenset(
    {
        # the site's own wrappers
        "paper-about", "paper-note", "grid", "cards",
        # toc, arithmatex, pymdownx.highlight
        "headerlink", "toclink", "arithmatex", "highlight", "highlighttable", "linenos", "linenodiv", "filename",
        # admonitions and their kinds (Material's)
        "admonition", "admonition-title", "note", "abstract", "summary", "tldr", "info", "todo", "tip", "hint",
        "important", "success", "check", "done", "question", "help", "faq", "warning", "caution", "attention",
        "failure", "fail", "missing", "danger", "error", "bug", "example", "quote", "cite",
        # pymdownx.tasklist and pymdownx.critic
        "task-list", "task-list-item", "task-list-control", "task-list-indicator", "critic", "comment", "break",
    }
)  # fmt: skip
# Pygments' token classes (`n`, `kc`, `s2`, `err`): short, lower-case, carry nothing.
# pymdownx.highlight's anchor of a code line (anchor_linenums).
_CODE_LINE_ANCHOR = re.compile(r"__codelineno-[0-9]+-[0-9]+\Z")
_TOKEN_CLASS = re.compile(r"[a-z]{1,3}[0-9]?\Z")
_TEXT_ALIGN = re.compile(r"\s*text-align\s*:\s*(left|right|center)\s*;?\s*\Z", re.IGNORECASE)
_SCHEME = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.-]*):")


def _scheme(url: str) -> str | None:
    found = _SCHEME.match(url)
    return found.group(1).lower() if found else None


def _allowed_class(token: str) -> bool:
    return token in CLASSES or _TOKEN_CLASS.match(token) is not None


def _relative(url: str) -> bool:
    """A target on the site itself: no scheme, not protocol-relative (``//host``), no backslash tricks."""
    url = url.strip()
    return not _SCHEME.match(url) and not url.startswith(("//", "\\", "/\\"))


def _attribute(element: str, name: str, value: str) -> str | None:
    """nh3's callback for each allowed attribute: the value to keep, or None to drop it."""
    if name == "class":
        kept = [token for token in value.split() if _allowed_class(token)]
        return " ".join(kept) or None
    if name == "style":
        return value if _TEXT_ALIGN.match(value) else None
    if name == "src":
        return value if _relative(value) else None  # a page loads nothing from another host
    if name == "id" and element == "div":
        return value if value in DIV_IDS else None
    if name in ("id", "name") and element == "a":
        return value if _CODE_LINE_ANCHOR.match(value) else None
    return value


_CLEANER = nh3.Cleaner(
    tags=set(TAGS),
    attributes=ATTRIBUTES,
    attribute_filter=_attribute,
    set_tag_attribute_values=FORCED_VALUES,
    url_schemes=set(URL_SCHEMES),
    strip_comments=True,
    link_rel=None,  # links are the site's and the notes' own; the site's parts are kept byte for byte
    clean_content_tags={"script", "style"},
)


def clean_html(html: str) -> str:
    """``html`` with every element, attribute and URL outside the allowlist removed (an element's text kept)."""
    return _CLEANER.clean(html)


def removed_markup(html: str) -> list[str]:
    """What ``clean_html`` takes out of ``html``, in words for a reviewer: "an <svg> element", "an onload
    attribute", "a javascript: link"; each once, in the order met."""
    finder = _RemovedFinder()
    finder.feed(html)
    finder.close()
    return list(dict.fromkeys(finder.found))


class _RemovedFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TAGS:
            self.found.append(f"an <{tag}> element")
            return
        allowed = ATTRIBUTES.get(tag, set()) | ATTRIBUTES["*"]
        for name, value in attrs:
            if name not in allowed and not (tag in FORCED_VALUES and name in FORCED_VALUES[tag]):
                self.found.append(f"an {name} attribute" if name[:1] in "aeiou" else f"a {name} attribute")
            elif name == "href" and value and (scheme := _scheme(value)) and scheme not in URL_SCHEMES:
                self.found.append(f"a {scheme}: link")
            elif name == "src" and value and not _relative(value):
                self.found.append("an image from another host")

    def handle_comment(self, data: str) -> None:
        self.found.append("an HTML comment")
