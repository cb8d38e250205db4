"""Fetch stage: a venue's source → paper entries → metadata → cached PDFs → the text of each paper.

``run`` is the pipeline (gather → resolve metadata → fetch PDFs → extract); ``sources`` reads each
kind of venue list; ``net`` is the polite HTTP every host gets; ``arxiv_api`` the arXiv client;
``pdf_text`` turns a PDF into its sections.  ``fetch_venue`` is the stage's one entry point.
"""

from __future__ import annotations

from .run import fetch_venue

__all__ = ["fetch_venue"]
