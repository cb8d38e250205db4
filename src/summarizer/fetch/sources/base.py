"""What every source hands the fetch pipeline: entries (one per paper) and notes for the run line.

A source is a function ``gather(ctx, source, limit) -> Gathered``.  It reads the venue's
accepted-paper list and turns each paper into an ``Entry``: title, authors, abstract when the
source has it, its own id, an arXiv id when known, a landing URL, a PDF URL and the acceptance
tier.  It never writes a record: a source that fails raises ``SourceError`` before anything
changes on disk.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import arxiv

from summarizer.core import limits
from summarizer.core.bounds import fit_names, fit_oneline, fit_text, fit_title, fit_url
from summarizer.core.ids import record_id

if TYPE_CHECKING:
    from summarizer.core.config import Settings

    from ..arxiv_api import ArxivAPI
    from ..net import PoliteHTTP


@dataclass
class Entry:
    """One paper as the venue's source names it."""

    line: str  # the list line, or "<source type>:<source id>" (kept in record.source_entry)
    arxiv_id: str | None = None  # as written, maybe with a version
    title: str | None = None
    url: str | None = None  # the landing page (forum, anthology page …)
    pdf_url: str | None = None
    problem: str | None = None  # why this line cannot be fetched at all
    meta: arxiv.Result | None = None  # already known (an arxiv_query result)
    source_type: str | None = None  # set by sources other than a list / arxiv_query
    source_id: str | None = None
    tier: str | None = None  # oral, spotlight, poster, findings, long …
    venue_label: str | None = None  # the source's own words for the decision ("ICLR 2026 Oral")
    authors: list[str] = field(default_factory=list)
    abstract: str | None = None
    record_id: str | None = None  # a record that already exists (a source-less venue's papers)
    abstract_from: Callable[[PoliteHTTP], str | None] | None = None  # a detail page read only when needed

    def provisional_id(self) -> str:
        if self.record_id:
            return self.record_id
        if self.arxiv_id:
            return record_id(arxiv_id=self.arxiv_id)
        return record_id(title=self.title or self.line)

    @property
    def native(self) -> bool:
        """Metadata comes from the source itself (not from arXiv)."""
        return self.source_type is not None and self.meta is None


def native_entry(
    source_type: str,
    source_id: str,
    *,
    title: str,
    authors: list[str] | None = None,
    abstract: str | None = None,
    url: str | None = None,
    pdf_url: str | None = None,
    tier: str | None = None,
    venue_label: str | None = None,
    arxiv_id: str | None = None,
) -> Entry:
    """An entry from a source's own metadata; every text cleaned and fitted on the way in (``core.bounds``)."""
    text = fit_text(abstract, limits.ABSTRACT)
    source_id = fit_oneline(source_id, limits.SOURCE_ID) or ""
    return Entry(
        line=f"{source_type}:{source_id}",
        title=fit_title(title) or None,
        authors=fit_names(authors or []),
        abstract=re.sub(r"[ \t]+", " ", text).strip() if text else None,
        url=fit_url(url),
        pdf_url=fit_url(pdf_url),
        source_type=source_type,
        source_id=source_id,
        tier=fit_oneline(tier, limits.SOURCE_ID),
        venue_label=fit_oneline(venue_label, limits.SOURCE_ID),
        arxiv_id=arxiv_id,
    )


_TIERS = (
    ("oral", re.compile(r"\boral\b", re.I)),
    ("spotlight", re.compile(r"\bspotlight", re.I)),  # ICML 2025 writes "spotlightposter"
    ("poster", re.compile(r"poster\b", re.I)),
    ("highlight", re.compile(r"\bhighlight\b", re.I)),
)


def tier_of(label: str | None) -> str | None:
    """The acceptance tier in a decision or venue string (``"ICLR 2026 Oral"`` → ``oral``), case-insensitive."""
    for tier, pattern in _TIERS:
        if label and pattern.search(label):
            return tier
    return None


@dataclass
class Gathered:
    entries: list[Entry]
    warnings: list[str] = field(default_factory=list)  # said on the run line (e.g. "3 excluded: under review")
    counts: dict[str, int] = field(default_factory=dict)  # added to the stage report
    complete: bool = True  # the whole list (not cut by --limit): papers missing from it are reported


@dataclass
class SourceContext:
    settings: Settings
    http: PoliteHTTP
    api: ArxivAPI


def dig(data: Any, *keys: str) -> Any:
    """``data[k1][k2]…`` or None, whatever the shape (answers from outside are not trusted)."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
