"""The ``pmlr`` source (ICML proceedings): the volume's ``citeproc.yaml`` (CSL-YAML).

``source: {type: pmlr, volume: 267}`` reads ``https://proceedings.mlr.press/v267/assets/bib/citeproc.yaml``
(or ``url:`` for another copy).  Each entry has ``id``, ``title``, ``abstract``,
``author[{given, family}]``, ``URL`` (the abstract page) and ``PDF``.  Some volumes hold stray
control characters, which YAML refuses: they are removed before parsing.  The file is read as
plain data (``plain_data.load_yaml``): anchors, aliases and tags are refused.
"""

from __future__ import annotations

from typing import Any

from summarizer.core.errors import FetchError, SourceError
from summarizer.core.sanitize import clean_text
from summarizer.core.source_settings import PmlrSource

from .base import Entry, Gathered, SourceContext, native_entry
from .plain_data import load_yaml

CITEPROC = "https://proceedings.mlr.press/v{volume}/assets/bib/citeproc.yaml"


def gather(ctx: SourceContext, source: PmlrSource, limit: int | None) -> Gathered:
    url = source.url or CITEPROC.format(volume=source.volume)
    try:
        text = ctx.http.get_text(url)
    except FetchError as exc:
        raise SourceError(f"the PMLR volume could not be read from {url}: {exc.reason}") from exc
    return Gathered(parse_citeproc(text, url))


def parse_citeproc(text: str, where: str = "citeproc.yaml") -> list[Entry]:
    data = load_yaml(clean_text(text), where)  # plain data only: no aliases, no tags
    if not isinstance(data, list):
        raise SourceError(f"{where} is not a CSL-YAML list of papers")
    return [_entry(item) for item in data if isinstance(item, dict) and item.get("id") and item.get("title")]


def _entry(item: dict[str, Any]) -> Entry:
    authors = []
    for person in item.get("author") or []:
        if isinstance(person, dict):
            authors.append(" ".join(str(person.get(k) or "") for k in ("given", "family")).strip())
    return native_entry(
        "pmlr",
        str(item["id"]),
        title=str(item["title"]),
        authors=authors,
        abstract=str(item.get("abstract") or ""),
        url=str(item.get("URL") or ""),
        pdf_url=str(item.get("PDF") or ""),
    )
