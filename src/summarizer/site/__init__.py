"""Site stage: the records → MkDocs Markdown pages (``build``), escaped so any text renders as written
(``markdown_text``), laid out by the jinja2 ``templates``."""

from __future__ import annotations

from .build import MATHJAX_CONFIG, build_site, draft_field_page

__all__ = ["MATHJAX_CONFIG", "build_site", "draft_field_page"]
