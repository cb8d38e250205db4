"""`run`: the stages in order — fetch, then summarize; the CLI builds the preview site after them."""

from __future__ import annotations

from collections.abc import Callable

from .config import Settings
from .console import StageReport
from .store import Store


def run_venue(
    settings: Settings,
    store: Store,
    venue: str,
    *,
    limit: int | None = None,
    batch: bool = False,
    wait: bool = True,
    on_report: Callable[[StageReport], None] = lambda report: None,
) -> bool:
    """Fetch and summarise the venue (through the Batch API with ``batch``); True when no paper failed.

    Each stage's report goes to ``on_report`` as soon as the stage ends (the CLI prints it).
    """
    from .sources import fetch_venue
    from .summarize import summarize_venue

    fetched = fetch_venue(settings, store, venue, limit=limit)
    on_report(fetched)
    if batch:
        from .batch import summarize_venue_batch

        summarized = summarize_venue_batch(settings, store, venue, limit=limit, wait=wait)
    else:
        summarized = summarize_venue(settings, store, venue, limit=limit)
    on_report(summarized)
    return fetched.ok and summarized.ok
