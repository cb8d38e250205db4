"""The ``arxiv_query`` source: an arXiv search, kept to papers whose comment says they were accepted.

``co:"ICLR 2026"`` also finds "Under review at ICLR 2026" and "Submitted to ICLR 2026": those
would be published as accepted papers.  By default a result is kept only when its comment says it
was accepted (accepted, to appear, camera-ready, oral, spotlight, poster, findings, proceedings …)
and says nothing like under review / submitted / in submission / preprint;
``include_unconfirmed: true`` keeps every result.  The run line says how many were excluded and why.
"""

from __future__ import annotations

import re

from summarizer.core.errors import ArxivUnavailable, SourceError
from summarizer.core.source_settings import ArxivQuerySource

from .base import Entry, Gathered, SourceContext

UNCONFIRMED = re.compile(
    r"under\s+review|submitted\s+(?:to|for)|under\s+submission|in\s+submission|submission\s+to|"
    r"\bpreprint\b|work\s+in\s+progress|\bwip\b|in\s+review|\bsubmitted\b|rejected",
    re.I,
)
ACCEPTED = re.compile(
    r"\baccepted\b|\baccept\b|to\s+appear|appear(?:s|ing)?\s+(?:in|at)|camera[- ]ready|\bpublished\b|"
    r"\boral\b|\bspotlight\b|\bposter\b|\bfindings\b|proceedings|main\s+(?:conference|track)|"
    r"conference\s+paper|\bhighlight\b",
    re.I,
)


def acceptance(comment: str | None) -> str | None:
    """None when the comment says the paper was accepted; else why it is excluded."""
    text = comment or ""
    if UNCONFIRMED.search(text):
        return "under review / submitted / preprint"
    if not ACCEPTED.search(text):
        return "comment does not say accepted"
    return None


def gather(ctx: SourceContext, source: ArxivQuerySource, limit: int | None) -> Gathered:
    assert source.query is not None
    wanted = min(source.max_results, limit) if limit and source.include_unconfirmed else source.max_results
    try:
        results = list(ctx.api.query(source.query, wanted))
    except ArxivUnavailable as exc:
        raise SourceError(f"the arXiv query {source.query!r} failed: {exc}") from exc
    entries: list[Entry] = []
    excluded: dict[str, int] = {}
    for result in results:
        why = None if source.include_unconfirmed else acceptance(result.comment)
        if why is not None:
            excluded[why] = excluded.get(why, 0) + 1
            continue
        short = result.get_short_id()
        entries.append(Entry(line=short, arxiv_id=short, title=result.title, meta=result))
    gathered = Gathered(entries)
    total = sum(excluded.values())
    if total:
        reasons = ", ".join(f"{n} {why}" for why, n in sorted(excluded.items()))
        gathered.counts["excluded"] = total
        gathered.warnings.append(
            f"{total} arXiv result(s) excluded as not confirmed accepted ({reasons}); "
            "include_unconfirmed: true keeps them"
        )
    return gathered
