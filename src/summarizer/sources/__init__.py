"""Fetch stage: a venue's source → paper entries → metadata → cached PDFs → the text of each paper.

One small module per source, behind one interface (``base.Entry``, ``base.Gathered``):
``lists`` (a file of arXiv ids, URLs or titles), ``arxiv_query``, ``openreview``,
``virtual_site``, ``acl`` (``acl_anthology``), ``cvf``, ``pmlr``.  ``gather`` picks the source,
``fetch`` runs the pipeline (gather → resolve metadata → fetch PDFs → extract), ``net`` is the
polite HTTP every host gets, ``arxiv_api`` the arXiv client.
"""

from __future__ import annotations

# Patchable knobs (tests set RETRY_BASE_S to ~0 so backoff does not slow the suite).
RETRY_ATTEMPTS = 4  # tries per request, the first included
RETRY_BASE_S = 2.0  # backoff: base, 2×base, 4×base … capped at RETRY_MAX_S
RETRY_MAX_S = 60.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

from ..extract import PaperText  # noqa: E402
from ..ids import normalize_title  # noqa: E402
from .arxiv_api import ArxivAPI, title_query, titles_match  # noqa: E402
from .base import Entry, SourceAuthRequired, SourceError  # noqa: E402
from .fetch import fetch_venue  # noqa: E402
from .lists import parse_line, read_list  # noqa: E402

__all__ = [
    "ArxivAPI",
    "Entry",
    "PaperText",
    "SourceAuthRequired",
    "SourceError",
    "fetch_venue",
    "normalize_title",
    "parse_line",
    "read_list",
    "title_query",
    "titles_match",
]
