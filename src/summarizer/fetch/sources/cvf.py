"""The ``cvf`` source (CVPR, ICCV): the open-access listing ``{base}/{conference}?day=all``.

The listing names each paper (``<dt class="ptitle"><a href="/content/…_paper.html">Title</a>``),
its authors (``<input name="query_author" value="…">``) and its PDF (``[<a href="…_paper.pdf">pdf</a>]``);
it has no abstract and no tier.  Abstracts come from each paper's page (``<div id="abstract">``),
one request per paper, paced per host, and only for papers that have none yet (``abstracts: false``
skips them: the PDF's own abstract is then used).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urljoin

import lxml.html

from summarizer.core.errors import FetchError, SourceError
from summarizer.core.sanitize import clean_line
from summarizer.core.source_settings import CvfSource

from ..net import PoliteHTTP
from .base import Entry, Gathered, SourceContext, native_entry

OPENACCESS = "https://openaccess.thecvf.com"


def gather(ctx: SourceContext, source: CvfSource, limit: int | None) -> Gathered:
    base = (source.url or OPENACCESS).rstrip("/")
    url = f"{base}/{source.conference}?day=all"
    try:
        html = ctx.http.get_text(url)
    except FetchError as exc:
        raise SourceError(f"the CVF listing could not be read from {url}: {exc.reason}") from exc
    entries = parse_listing(html, url)
    if not entries:
        raise SourceError(f"{url} lists no papers (not the CVF open-access format, or the wrong conference)")
    if source.abstracts:
        for entry in entries:
            entry.abstract_from = _abstract_reader(entry.url)
    return Gathered(entries)


def parse_listing(html: str, page_url: str) -> list[Entry]:
    if not html.strip():
        return []
    doc = lxml.html.fromstring(html)
    entries: list[Entry] = []
    for dt in doc.xpath('//dt[contains(concat(" ", normalize-space(@class), " "), " ptitle ")]'):
        link = dt.find(".//a")
        if link is None or not link.get("href"):
            continue
        details = dt.xpath("following-sibling::dd[position() <= 2]")
        authors = [str(v) for dd in details[:1] for v in dd.xpath('.//input[@name="query_author"]/@value')]
        pdfs = [str(h) for dd in details for h in dd.xpath(".//a/@href") if str(h).lower().endswith(".pdf")]
        paper_pdf = next((p for p in pdfs if "supplemental" not in p.lower()), None)
        page = urljoin(page_url, link.get("href"))
        entries.append(
            native_entry(
                "cvf",
                link.get("href").rsplit("/", 1)[-1].removesuffix(".html"),
                title=link.text_content(),
                authors=authors,
                url=page,
                pdf_url=urljoin(page_url, paper_pdf) if paper_pdf else None,
            )
        )
    return entries


def parse_abstract(html: str) -> str | None:
    if not html.strip():
        return None
    doc = lxml.html.fromstring(html)
    found = doc.xpath('//div[@id="abstract"]')
    if found:
        return clean_line(found[0].text_content()) or None
    meta = doc.xpath('//meta[@name="citation_abstract"]/@content')
    return clean_line(str(meta[0])) or None if meta else None


def _abstract_reader(page: str | None) -> Callable[[PoliteHTTP], str | None] | None:
    if not page:
        return None

    def read(http: PoliteHTTP) -> str | None:
        return parse_abstract(http.get_text(page))

    return read
