"""The ``virtual_site`` source: a conference site's ``…/static/virtual/data/{conf}-{year}-orals-posters.json``.

No login.  The answer is ``{"count", "next", "previous", "results": [...]}``; each result has
``uid``, ``name`` (the title), ``authors[{fullname}]``, ``abstract``, ``decision``
(``"Accept (oral)"``), ``eventtype``, ``paper_url`` (an OpenReview forum or a PMLR page) …
Orals also appear as poster rows: one paper is kept once (by ``uid``, else ``paper_url``), with
its highest tier.  Undocumented, so read defensively: rows without a title are skipped.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from summarizer.core.errors import FetchError, SourceError
from summarizer.core.source_settings import VirtualSiteSource

from .base import Entry, Gathered, SourceContext, dig, native_entry, tier_of
from .plain_data import load_json

MAX_PAGES = 50
RANK = {"oral": 0, "spotlight": 1, "highlight": 2, "poster": 3, None: 4}


def gather(ctx: SourceContext, source: VirtualSiteSource, limit: int | None) -> Gathered:
    assert source.url is not None
    rows: list[Any] = []
    url: str | None = source.url
    for _ in range(MAX_PAGES):
        if not url:
            break
        try:
            data = load_json(ctx.http.get_bytes(url), url)
        except (ValueError, UnicodeDecodeError) as exc:
            raise SourceError(f"{url} did not answer JSON (the virtual site may have moved)") from exc
        except FetchError as exc:
            raise SourceError(f"the virtual-site list could not be read from {url}: {exc.reason}") from exc
        page = data.get("results") if isinstance(data, dict) else data
        if not isinstance(page, list):
            raise SourceError(f"{url}: no 'results' list (not the virtual-site format)")
        rows.extend(page)
        url = dig(data, "next") if isinstance(dig(data, "next"), str) else None
    return Gathered(parse_rows(rows))


def parse_rows(rows: list[Any]) -> list[Entry]:
    best: dict[str, Entry] = {}
    for row in rows:
        if not isinstance(row, dict) or not row.get("name"):
            continue
        decision = str(row.get("decision") or "")
        if decision and not decision.lower().startswith("accept"):
            continue
        entry = _entry(row)
        key = str(row.get("uid") or row.get("paper_url") or row.get("id"))
        if key not in best or RANK[entry.tier] < RANK[best[key].tier]:
            best[key] = entry
    return list(best.values())


def _entry(row: dict[str, Any]) -> Entry:
    paper_url = str(row.get("paper_url") or "")
    label = str(row.get("decision") or row.get("eventtype") or "")
    return native_entry(
        "virtual_site",
        str(row.get("uid") or row.get("id")),
        title=str(row["name"]),
        authors=[str(a.get("fullname") or "") for a in row.get("authors") or [] if isinstance(a, dict)],
        abstract=str(row.get("abstract") or ""),
        url=paper_url or str(row.get("virtualsite_url") or ""),
        pdf_url=pdf_for(paper_url),
        tier=tier_of(label) or tier_of(str(row.get("eventtype") or "")),
        venue_label=label,
    )


def pdf_for(paper_url: str) -> str | None:
    """The PDF behind a paper link: OpenReview forum → ``/pdf?id=``, PMLR ``x.html`` → ``x/x.pdf``."""
    parts = urlsplit(paper_url)
    if parts.hostname and parts.hostname.endswith("openreview.net"):
        forum = parse_qs(parts.query).get("id")
        return f"https://openreview.net/pdf?id={forum[0]}" if forum else None
    m = re.match(r"^(https?://proceedings\.mlr\.press/v\d+/)([\w-]+)\.html\Z", paper_url)
    if m:
        return f"{m.group(1)}{m.group(2)}/{m.group(2)}.pdf"
    return paper_url if paper_url.lower().endswith(".pdf") else None
