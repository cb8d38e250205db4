"""Review stage: list, show, approve, reject, edit, regenerate. Arrives with issue #6."""

from __future__ import annotations

from .config import Settings
from .errors import NotReadyError
from .store import Store


def _not_ready() -> NotReadyError:
    return NotReadyError("review is not built yet (issue #6)")


def list_papers(settings: Settings, store: Store, venue: str, *, status: str | None) -> None:
    raise _not_ready()


def show_paper(settings: Settings, store: Store, venue: str, paper_id: str) -> None:
    raise _not_ready()


def approve(settings: Settings, store: Store, venue: str, paper_ids: list[str] | None) -> None:
    raise _not_ready()


def reject(settings: Settings, store: Store, venue: str, paper_id: str, *, note: str) -> None:
    raise _not_ready()


def edit(
    settings: Settings,
    store: Store,
    venue: str,
    paper_id: str,
    *,
    summary: str | None,
    tags: list[str] | None,
    field: str | None,
) -> None:
    raise _not_ready()


def regenerate(settings: Settings, store: Store, venue: str, paper_id: str, *, feedback: str | None) -> None:
    raise _not_ready()
