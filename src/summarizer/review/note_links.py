"""An imported note's relative links: to the paper pages they mean, or plain text.

On the old site a note linked another by its file (``[DPCache](dpcache_….md)``, ``../ideas/x.md``).
Here each paper's page is ``VENUE/FIELD/<paper-id>.md``, so a relative link is rewritten at import to
the page of the paper it means: the imported file it names, else the paper whose arXiv id its target
holds, else the paper whose title its text is.  A link to anything else (a page neither site has, a
file the import skipped) becomes its text, so ``mkdocs build --strict`` has no link to warn about.
Links to the web, ``mailto:`` and in-page anchors are kept; links inside code are code.  The build
checks the same links again (``site.note_links``): a paper filed under another field since, or off
the site, is mended there.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote

from summarizer.core.ids import NEW_STYLE
from summarizer.core.note_rules import without_code

_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?[^)\n]*\)")
_HAS_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_ARXIV_IN_PATH = re.compile(rf"(?<![\d.])({NEW_STYLE})(?:v\d+)?(?![\d])")
SHOWN_TARGET = 80


@dataclass(frozen=True)
class Page:
    """A paper's page on the site: ``VENUE/FIELD/<paper-id>.md``."""

    venue: str
    field: str
    paper_id: str

    def href(self) -> str:
        """As a paper page links it (every paper page is two folders below the docs root)."""
        name = f"paper-{self.paper_id}" if self.paper_id.casefold() == "index" else self.paper_id
        return f"../../{self.venue}/{self.field}/{name}.md"


def is_local(target: str) -> bool:
    """A link a static site resolves among its own files: no scheme, not an anchor, not from the root."""
    return bool(target) and not _HAS_SCHEME.match(target) and not target.startswith(("#", "/"))


@dataclass
class Rewriter:
    """Each relative link of an imported note, to a paper page or to text; ``done`` says what became of each."""

    by_file: dict[str, Page]  # an imported file's path (relative to the folder) -> its paper's page
    find: Callable[[str | None, str | None], Page | None]  # (arXiv id, title) -> a paper's page

    def rewrite(self, markdown: str, here: str) -> tuple[str, list[str]]:
        """``markdown`` (a note's header or sections, from the file ``here``) with its local links rewritten."""
        if "](" not in markdown:
            return markdown, []
        done: list[str] = []
        masked = without_code(markdown)  # same places, code blanked
        out: list[str] = []
        pos = 0
        for match in _LINK.finditer(masked):
            bang, text, target = match.group(1), match.group(2), match.group(3)
            if bang or not is_local(target):
                continue
            page = self._page(target, here, markdown[match.start(2) : match.end(2)])
            new = f"[{text}]({page.href()})" if page else markdown[match.start(2) : match.end(2)]
            out += [markdown[pos : match.start()], new]
            pos = match.end()
            shown = target if len(target) <= SHOWN_TARGET else target[: SHOWN_TARGET - 1] + "…"
            what = f"the page of {page.venue}/{page.paper_id}" if page else "text (no such page on this site)"
            done.append(f"{here}: link {shown} → {what}")
        return "".join([*out, markdown[pos:]]), done

    def _page(self, target: str, here: str, text: str) -> Page | None:
        path = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if path:
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(here), path))
            if resolved in self.by_file:
                return self.by_file[resolved]
            arxiv = _ARXIV_IN_PATH.search(posixpath.basename(path))
            if arxiv is not None:
                found = self.find(arxiv.group(1), None)
                if found is not None:
                    return found
        return self.find(None, text) if text.strip() else None
