"""The fetch pipeline: gather entries from the source → resolve metadata → fetch PDFs → extract.

Every paper gets a record, saved as soon as the paper is done; a failure is a reason in the
record and in the report, never a crash.  A paper that already has its metadata and readable
text is skipped without any request; a cached text or PDF that does not parse is fetched again.
A paper that disappears from its source's list is reported and kept, never deleted.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor, as_completed

from summarizer.core.cache_layout import CacheLayout
from summarizer.core.config import Settings
from summarizer.core.errors import FetchError, FileSystemError
from summarizer.core.progress import QUIET, Progress
from summarizer.core.records import Record, now_iso
from summarizer.core.report import Report
from summarizer.core.store import Store

from .arxiv_api import ArxivAPI
from .net import PoliteHTTP, host_pacer
from .papers import FetchRun
from .pdf_worker import PdfWorker
from .resolve import resolve
from .sources import gather
from .sources.base import Entry, SourceContext

log = logging.getLogger(__name__)


def fetch_venue(
    settings: Settings, store: Store, venue_id: str, *, limit: int | None = None, progress: Progress = QUIET
) -> Report:
    """Fetch every paper of the venue's source: metadata, PDF, sections; one record each."""
    venue = settings.venue(venue_id)
    pacer = host_pacer(settings)  # one pacer for every host, the arXiv API's included
    ctx = SourceContext(settings, PoliteHTTP(settings, pacer), ArxivAPI(settings, pacer))
    records = store.records(venue_id)
    gathered = gather(ctx, venue, records, limit)  # raises before any record changes
    source_type = venue.source.type if venue.source else None
    reader = PdfWorker(settings.extract)  # started when a PDF is to be read, stopped with the run
    with progress.bar(f"fetch {venue_id}", total=len(gathered.entries)) as bar, reader:
        run = FetchRun(settings, store, venue_id, bar, records, source_type, reader)
        for key, n in gathered.counts.items():
            run.report.count(key, n)
        need_pdf = resolve(run, ctx, gathered.entries, match_arxiv=bool(venue.source and venue.source.match_arxiv))
        fetch_pdfs(ctx, run, need_pdf)
        if venue.source is None:
            mark_abstract_only(run)
        if source_type and gathered.complete:
            gathered.warnings.extend(mark_missing(run, source_type, gathered.entries))
    run.report.warnings += [f"{venue_id}: {line}" for line in gathered.warnings]
    return run.report


def fetch_pdfs(ctx: SourceContext, run: FetchRun, records: list[Record]) -> None:
    """Download what is missing (threads, at most pdf_concurrency); text read by the run's worker, a paper at a time."""
    cache = CacheLayout(ctx.settings.cache_dir)
    if records:
        run.reader.start()  # it loads pymupdf while the first PDFs download
    to_download: list[Record] = []
    for record in records:
        sha = record.fetch.pdf_sha256
        if sha and cache.pdf(sha).is_file() and run.extracted(record, sha) is None:
            continue  # a cached PDF that does not parse is downloaded again below
        if not record.fetch.pdf_url:
            run.fail(record, "no PDF link known for this paper")
        else:
            to_download.append(record)
    if to_download:
        _download_all(ctx.http, run, to_download, ctx.settings.http.pdf_concurrency)


def _download_all(http: PoliteHTTP, run: FetchRun, records: list[Record], workers: int) -> None:
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pdf")
    try:
        futures: dict[Future[str], Record] = {}
        for record in records:
            assert record.fetch.pdf_url is not None
            futures[pool.submit(http.download_pdf, record.fetch.pdf_url)] = record
        run.bar.show("PDFs")
        for future in as_completed(futures):
            record = futures[future]
            try:
                sha = future.result()
            except FetchError as exc:
                run.fail(record, exc.reason)
                continue
            except FileSystemError:  # cache/ cannot be written: every paper would fail alike, stop in one line
                raise
            except Exception as exc:  # an odd server or a bug of ours: this paper fails, the run goes on
                log.debug("PDF download of %s failed", record.id, exc_info=exc)  # -vv shows the traceback
                run.fail(record, f"PDF download failed: {type(exc).__name__}: {exc}")
                continue
            problem = run.extracted(record, sha)
            if problem is not None:
                run.fail(record, problem)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def mark_missing(run: FetchRun, source_type: str, entries: list[Entry]) -> list[str]:
    """Records of this source no longer on its list: flagged (``source_missing_since``), kept, reported."""
    listed = {e.line for e in entries}
    gone: list[str] = []
    for record in run.records.values():
        if record.source_type != source_type or not record.source_entry or record.source_entry in listed:
            continue
        if record.source_missing_since is None:
            record.source_missing_since = now_iso()
            run.save(record)
        gone.append(record.id)
    if not gone:
        return []
    shown = ", ".join(sorted(gone)[:5]) + (" …" if len(gone) > 5 else "")
    return [f"{len(gone)} paper(s) no longer on the source's list, kept (not deleted): {shown}"]


def mark_abstract_only(run: FetchRun) -> None:
    """A source-less paper with an abstract and nothing to download is summarised from its abstract."""
    for record in run.records.values():
        if record.arxiv_id or record.fetch.pdf_url or record.fetch.text_path or not (record.abstract or "").strip():
            continue
        record.fetch.abstract_only = True
        run.save(record)
