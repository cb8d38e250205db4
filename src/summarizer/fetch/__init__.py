"""Fetch stage: a venue's source → paper entries → metadata → cached PDFs → the text of each paper.

``run`` is the pipeline (gather → resolve metadata → fetch PDFs → extract); ``sources`` reads each
kind of venue list; ``net`` is the polite HTTP every host gets; ``arxiv_api`` the arXiv client;
``pdf_worker`` reads each PDF's text (``pdf_text``) in a process of its own, bounded per paper.
``fetch_venue`` is the stage's entry point; ``preview_venue`` says what it would do (``run --dry-run``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .preview import preview_venue
    from .run import fetch_venue

__all__ = ["fetch_venue", "preview_venue"]


def __getattr__(name: str) -> Any:
    # Imported when asked for: the PDF worker's interpreter imports this package too, and needs none of the
    # pipeline (arxiv, requests: 0.2 s of every worker's start, measured).
    if name == "fetch_venue":
        from .run import fetch_venue

        return fetch_venue
    if name == "preview_venue":
        from .preview import preview_venue

        return preview_venue
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
