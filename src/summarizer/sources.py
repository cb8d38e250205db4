"""Fetch stage: venue list → arXiv metadata → PDFs. Arrives with issue #3."""

from __future__ import annotations

from .config import Settings
from .console import StageReport
from .errors import NotReadyError
from .store import Store


def fetch_venue(settings: Settings, store: Store, venue_id: str, *, limit: int | None = None) -> StageReport:
    raise NotReadyError("fetch is not built yet (issue #3)")
