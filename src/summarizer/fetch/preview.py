"""What fetching a venue would do, read-only (``run VENUE --dry-run``): its source's list read — a login
checked, a listing parsed — and counted against the records there; nothing downloaded, asked or written."""

from __future__ import annotations

from summarizer.core.config import Settings
from summarizer.core.report import Report
from summarizer.core.store import Store

from .arxiv_api import ArxivAPI
from .net import PoliteHTTP, host_pacer
from .sources import gather
from .sources.base import SourceContext

SHOWN_UNUSABLE = 5  # lines named in the report; the rest are counted


def preview_venue(settings: Settings, store: Store, venue_id: str, *, limit: int | None = None) -> Report:
    """Counts: listed, new (no record yet), to summarize (no summary yet), unusable (lines naming no paper)."""
    venue = settings.venue(venue_id)
    pacer = host_pacer(settings)
    ctx = SourceContext(settings, PoliteHTTP(settings, pacer), ArxivAPI(settings, pacer))
    records = store.records(venue_id)
    gathered = gather(ctx, venue, records, limit)  # raises, as a run would, before anything else
    by_entry = {r.source_entry: r for r in records if r.source_entry}
    by_id = {r.id: r for r in records}
    report = Report("dry run", venue_id, per_paper=False)
    unusable = [e for e in gathered.entries if e.problem]
    usable = [e for e in gathered.entries if not e.problem]
    known = [by_entry.get(e.line) or by_id.get(e.record_id or "") for e in usable]
    report.count("listed", len(gathered.entries))
    report.count("new", sum(1 for r in known if r is None))
    report.count(
        "to summarize",
        sum(1 for r in known if r is None or (not r.summaries.versions and r.summaries.status != "rejected")),
    )
    if unusable:
        report.count("unusable", len(unusable))
    report.warnings += [f"{e.line}: {e.problem}" for e in unusable[:SHOWN_UNUSABLE]]
    if len(unusable) > SHOWN_UNUSABLE:
        report.warn(f"… and {len(unusable) - SHOWN_UNUSABLE} more lines that name no paper")
    report.warnings += [f"{venue_id}: {line}" for line in gathered.warnings]
    return report
