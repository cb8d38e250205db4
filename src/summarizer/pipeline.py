"""`run`: the stages in order — fetch, summarize, then the preview site."""

from __future__ import annotations

from . import console
from .config import Settings
from .store import Store


def run_venue(
    settings: Settings, store: Store, venue: str, *, limit: int | None = None, batch: bool = False, wait: bool = True
) -> bool:
    """Run every stage over the venue (summarising through the Batch API with ``batch``); True when no paper failed."""
    from .site import build_site
    from .sources import fetch_venue
    from .summarize import summarize_venue

    fetched = fetch_venue(settings, store, venue, limit=limit)
    console.print_report(fetched)
    if batch:
        from .batch import summarize_venue_batch

        summarized = summarize_venue_batch(settings, store, venue, limit=limit, wait=wait)
    else:
        summarized = summarize_venue(settings, store, venue, limit=limit)
    console.print_report(summarized)
    preview = build_site(settings, store, None, drafts=True)
    preview.print()
    console.info(f"preview: mkdocs serve -f {preview.root}/mkdocs.yml")
    return fetched.ok and summarized.ok
