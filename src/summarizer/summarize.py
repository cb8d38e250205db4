"""Summarize stage: the model writes each paper's summary. Arrives with issue #4."""

from __future__ import annotations

from .config import Settings
from .console import StageReport
from .errors import NotReadyError
from .store import Store


def summarize_venue(
    settings: Settings, store: Store, venue_id: str, *, limit: int | None = None, force: bool = False
) -> StageReport:
    raise NotReadyError("summarize is not built yet (issue #4)")
