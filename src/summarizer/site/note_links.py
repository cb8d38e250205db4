"""A note's relative links, checked against the pages this build writes: kept, mended, or made text.

An import rewrites a note's links to the paper pages they mean (``review.note_links``); since then the
paper may be filed under another field, or be off the site (not approved, rejected, in a venue this
build leaves out).  A link to a page the build writes is kept; one to a paper page under an old field
goes to the paper's page now; anything else becomes its text, so ``mkdocs build --strict`` never meets
a link to a missing page.  Notes without a relative link (nearly all) cost one substring test.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from summarizer.core.note_rules import without_code

from .pages import SiteView, paper_file

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?[^)\n]*\)")
_HAS_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def mend_links(markdown: str, view: SiteView, folder: str, pages: set[str]) -> str:
    """``markdown`` (a note on a page in ``folder``, e.g. ``ICML2026/llm``) with each local link checked."""
    if "](" not in markdown:
        return markdown
    masked = without_code(markdown)
    out: list[str] = []
    pos = 0
    for match in _LINK.finditer(masked):
        target = match.group(3)
        if match.group(1) or not target or _HAS_SCHEME.match(target) or target.startswith(("#", "/")):
            continue
        path = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not path:
            continue
        resolved = posixpath.normpath(posixpath.join(folder, path))
        if resolved in pages:
            continue
        text = markdown[match.start(2) : match.end(2)]
        moved = _paper_now(view, resolved)
        out += [markdown[pos : match.start()], f"[{text}]({posixpath.relpath(moved, folder)})" if moved else text]
        pos = match.end()
    return "".join([*out, markdown[pos:]]) if out else markdown


def _paper_now(view: SiteView, resolved: str) -> str | None:
    """``VENUE/FIELD/<id>.md`` of the paper a link to ``VENUE/<old field>/<id>.md`` means, when it is on the site."""
    parts = resolved.split("/")
    if len(parts) != 3 or not parts[2].endswith(".md"):
        return None
    stem = parts[2].removesuffix(".md")
    entry = view.by_key.get(f"{parts[0]}/{stem}") or view.by_key.get(f"{parts[0]}/{stem.removeprefix('paper-')}")
    if entry is None:
        return None
    return f"{parts[0]}/{entry.version.field}/{paper_file(entry.record.id)}"
