"""Markup that ran script on the published site when the text was cleaned before Markdown by patterns,
and what a page may hold once it is sanitised: the checks every door's test makes of a built page.

Each form is a note's paragraph; each aims at a place where a pattern over the Markdown reads it
otherwise than Python-Markdown and a browser do.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

from summarizer.core.page_safety import ATTRIBUTES, TAGS, URL_SCHEMES

# A URL's scheme as a browser reads it: tabs and line breaks inside it are dropped first.
_SCHEME = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.\t\n\r-]*):")

FORMS = {
    "svg-slash": "一张图 <svg/onload=alert(1)> 在这里。",
    "escaped-backtick": "看起来像代码 \\`<img src=x onerror=alert(2)>` 其实不是。",
    "escaped-math": "看起来像公式 \\\\(<img src=x onerror=alert(3)>\\) 其实不是。",
    "split-tag": "一个跨行的标签 <img src=x\nonerror=alert(4)> 在这里。",
    "comment-ended-early": "一段注释 <!--><img src=x onerror=alert(5)>--> 结束。",
    "comment-bang": "另一段注释 <!-- --!><img src=x onerror=alert(6)>--> 结束。",
    "nested-brackets": "嵌套括号的链接 [这 [里] 看](javascript:alert(7)) 即可。",
    "target-next-line": "换行目标的链接 [这里](\njavascript:alert(8)) 即可。",
    "definition-next-line": "换行定义的链接 [这里][x] 即可。\n\n[x]:\n    javascript:alert(9)",
}
# Search metadata smuggled in by the two-line trick: a title and a link of the note's own choosing.
SEARCH_FORM = '伪造 <span\ndata-pagefind-meta="title:伪造的结果" data-pagefind-filter="venue:EVIL">元数据</span>。'
FAKE_TITLE = "伪造的结果"


def lead_words(form: str) -> str:
    """The words a form opens with: on the page whenever its note is."""
    return form.split(" ", 1)[0]


def note_markdown(form: str) -> str:
    """A whole note whose background holds ``form``."""
    return (
        "## 研究背景与动机\n注意力的代价随序列长度平方增长。\n\n" + form + "\n\n"
        "## 方法详解\n分层稀疏注意力，复杂度 \\(O(n\\log n)\\)。\n"
    )


def markup_problems(html: str) -> list[str]:
    """What in ``html`` (a page's content), parsed as a browser parses it (Lexbor, an HTML5 parser), is
    outside the allowlist: [] when all of it is allowed."""
    problems = []
    for node in LexborHTMLParser(f"<body>{html}</body>").body.traverse(include_text=False):  # type: ignore[union-attr]
        tag = node.tag
        if tag in ("body", "-comment"):
            continue
        if tag not in TAGS:
            problems.append(f"<{tag}> is not in the allowlist")
        allowed = ATTRIBUTES.get(tag, set()) | ATTRIBUTES["*"] | ({"type"} if tag == "input" else set())
        for name, value in node.attributes.items():
            if name.startswith("on") or name not in allowed:
                problems.append(f"<{tag} {name}> is not in the allowlist")
            scheme = _SCHEME.match(value or "") if name in ("href", "src") else None
            if scheme and re.sub(r"[\t\n\r]", "", scheme.group(1)).lower() not in URL_SCHEMES:
                problems.append(f"<{tag} {name}={value!r}>")
    return problems


# The one part of a paper page the search hook writes (hooks/search_terms.py), first in the indexed body:
# filters, then terms (lower-case letters and digits) by weight, then the end mark.  Nothing else.
SEARCH_PART = re.compile(
    r'(<div\b[^>]*\bdata-pagefind-body\b[^>]*>)<div class="search-terms" hidden>'
    r'((?:<span data-pagefind-filter="(?:venue|field):[^"<>&]*"></span>)*)'
    r'(?:<p data-pagefind-weight="[0-9.]+">[^<>"&]*</p>)*<p>zqzzzzzzzz</p></div>'
)


def search_part(page: str) -> tuple[str, list[str]]:
    """The page without the search hook's part, and that part's filters (``venue:X``); the page as it is
    and [] when it has none."""
    found = SEARCH_PART.search(page)
    if found is None:
        return page, []
    filters = re.findall(r'data-pagefind-filter="([^"]*)"', found.group(2))
    return page[: found.start()] + found.group(1) + page[found.end() :], filters


def article(page: str) -> str:
    """The content of a built page (MkDocs Material puts it in the one <article>), without the search part."""
    return search_part(page)[0].split("<article", 1)[1].split("</article>", 1)[0].split(">", 1)[1]
