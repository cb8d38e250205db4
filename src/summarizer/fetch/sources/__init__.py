"""Step one of fetch: the venue's source → entries.  One module per source type, chosen here.

``lists`` (a file of arXiv ids, URLs or titles), ``arxiv_query``, ``openreview``, ``virtual_site``,
``acl`` (``acl_anthology``), ``cvf``, ``pmlr``: each has ``gather(ctx, source, limit) -> Gathered``
(``base``) and never writes a record.  A venue without a source re-fetches its own records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from summarizer.core.config import Venue
from summarizer.core.errors import ConfigError, UsageError
from summarizer.core.records import Record
from summarizer.core.report import plural
from summarizer.core.source_settings import ListSource

from . import acl, arxiv_query, cvf, openreview, pmlr, virtual_site
from .base import Entry, Gathered, SourceContext
from .lists import read_list

Gatherer = Callable[[SourceContext, Any, "int | None"], Gathered]

GATHERERS: dict[str, Gatherer] = {
    "arxiv_query": arxiv_query.gather,
    "openreview": openreview.gather,
    "virtual_site": virtual_site.gather,
    "acl_anthology": acl.gather,
    "cvf": cvf.gather,
    "pmlr": pmlr.gather,
}


def gather(ctx: SourceContext, venue: Venue, records: list[Record], limit: int | None) -> Gathered:
    source = venue.source
    if source is None:
        return from_records(ctx, venue, records, limit)
    if isinstance(source, ListSource):
        return _from_list(ctx, venue, source, limit)
    gathered = GATHERERS[source.type](ctx, source, limit)
    if limit is not None and len(gathered.entries) > limit:
        gathered.entries = gathered.entries[:limit]
    gathered.complete = gathered.complete and limit is None
    return gathered


def _from_list(ctx: SourceContext, venue: Venue, source: ListSource, limit: int | None) -> Gathered:
    settings = ctx.settings
    if not source.path.is_file():
        raise ConfigError(
            f"venue list not found: {source.path}",
            file=str(settings.config_file),
            key=f"venues[{settings.venues.index(venue)}].source.path",
        )
    entries = read_list(source.path)
    return Gathered(entries[:limit] if limit else entries, complete=limit is None)


def from_records(ctx: SourceContext, venue: Venue, records: list[Record], limit: int | None) -> Gathered:
    """A venue without a source (records from `import`): fetch what has an arXiv id or a PDF URL.

    A record with only an abstract is marked abstract-only, so `summarize` writes from it.
    """
    entries: list[Entry] = []
    abstract_only = 0
    for record in records:
        line = record.source_entry or record.id
        if record.arxiv_id or record.fetch.pdf_url:
            entries.append(
                Entry(
                    line=line,
                    arxiv_id=record.arxiv_id,
                    title=record.title,
                    url=record.url,
                    pdf_url=record.fetch.pdf_url,
                    record_id=record.id,
                )
            )
        elif (record.abstract or "").strip() and not record.fetch.text_path:
            abstract_only += 1
    if not entries and not abstract_only:
        raise UsageError(
            f"venue {venue.id} has no source in {ctx.settings.config_file.name} and none of its "
            f"{plural(len(records), 'record')} has an arXiv id, a PDF URL or an abstract: add source: "
            "{type: list, path: FILE} (or openreview, acl_anthology, cvf, pmlr, virtual_site, arxiv_query)"
        )
    counts = {"abstract only": abstract_only} if abstract_only else {}
    return Gathered(entries[:limit] if limit else entries, counts=counts, complete=False)
