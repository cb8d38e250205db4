"""What the page sanitiser costs the published site: ``core.page_safety.clean_html`` over the content of
every page a build wrote, timed in this process (CPU time), beside ``mkdocs build``'s own CPU time.

``hooks/sanitize.py`` runs the same function over the same HTML (MkDocs' rendered page content, which
Material puts in the page's one ``<article>``) during ``mkdocs build``; so its cost is measured here
apart, and the scale section's build and rebuild figures hold it already.
"""

from __future__ import annotations

import time
from pathlib import Path

from summarizer.core.page_safety import clean_html

_OPEN = "<article"
_CLOSE = "</article>"


def _content(page: str) -> str | None:
    start = page.find(_OPEN)
    if start == -1:
        return None
    body = page[page.index(">", start) + 1 :]
    return body[: body.rfind(_CLOSE)]


def sanitise_all(site: Path) -> tuple[float, int, float]:
    """(CPU seconds, pages, MB of content) for sanitising every built page's content once."""
    contents = [c for p in sorted(site.rglob("*.html")) if (c := _content(p.read_text("utf-8"))) is not None]
    started = time.process_time()
    for content in contents:
        clean_html(content)
    return time.process_time() - started, len(contents), sum(len(c.encode()) for c in contents) / 1e6
