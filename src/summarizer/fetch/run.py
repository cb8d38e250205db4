"""The fetch pipeline: gather entries from the source → resolve metadata → fetch PDFs → extract.

Every paper gets a record, saved as soon as the paper is done; a failure is a reason in the
record and in the report, never a crash.  A paper that already has its metadata and readable
text is skipped without any request; a cached text or PDF that does not parse is fetched again.
A paper that disappears from its source's list is reported and kept, never deleted.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor, as_completed

import arxiv

from summarizer.core import limits
from summarizer.core.cache_layout import CacheLayout
from summarizer.core.config import Settings
from summarizer.core.errors import ArxivUnavailable, FetchError, FileSystemError
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.ids import normalize_title, record_id
from summarizer.core.paper_text import read_paper_text
from summarizer.core.progress import QUIET, Bar, Progress
from summarizer.core.records import Record, now_iso
from summarizer.core.report import Report
from summarizer.core.sanitize import clean_line, clean_text
from summarizer.core.store import Store

from .arxiv_api import ArxivAPI
from .net import PoliteHTTP, host_pacer
from .pdf_text import extract_pdf
from .sources import gather
from .sources.base import Entry, SourceContext

SHORT_TITLE_WORDS = 5  # below this many words a title match also needs the first author


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
    with progress.bar(f"fetch {venue_id}", total=len(gathered.entries)) as bar:
        run = _FetchRun(settings, store, venue_id, bar, records, source_type)
        for key, n in gathered.counts.items():
            run.report.count(key, n)
        need_pdf = resolve(run, ctx, gathered.entries, match_arxiv=bool(venue.source and venue.source.match_arxiv))
        fetch_pdfs(ctx, run, need_pdf)
        if venue.source is None:
            mark_abstract_only(run)
        if source_type and gathered.complete:
            gathered.notes.extend(mark_missing(run, source_type, gathered.entries))
    run.report.warnings += [f"{venue_id}: {note}" for note in gathered.notes]
    return run.report


# -- state of one run ---------------------------------------------------------------------


def text_readable(settings: Settings, text_path: str | None) -> bool:
    """The cached sections exist and parse (a truncated or garbled file is fetched again)."""
    return read_paper_text(settings.cache_dir, text_path) is not None


def _done(settings: Settings, record: Record) -> bool:
    """Metadata and readable text already here: nothing to request."""
    has_meta = bool(record.title) and (bool(record.abstract) or not record.arxiv_id)
    has_text = not record.fetch.abstract_only and text_readable(settings, record.fetch.text_path)
    return has_meta and "fetch" not in record.failures and has_text


class _FetchRun:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        venue: str,
        bar: Bar,
        records: list[Record],
        source_type: str | None,
    ):
        self.settings = settings
        self.store = store
        self.venue = venue
        self.bar = bar
        self.source_type = source_type
        self.report = Report("fetch", venue, counts={"fetched": 0, "cached": 0, "failed": 0})
        self.records = {r.id: r for r in records}
        self.by_entry = {r.source_entry: r for r in records if r.source_entry}
        self.taken: dict[str, str] = {}  # paper id → the entry line that claimed it in this run

    def record(self, paper_id: str, entry: Entry, title: str | None = None) -> Record:
        record = self.records.get(paper_id)
        if record is None:
            record = Record(
                venue=self.venue, id=paper_id, title=clean_line(title or entry.title or entry.line)[: limits.TITLE]
            )
            self.records[paper_id] = record
        if self.source_type is not None:  # a source-less venue's records keep what they had
            record.source_entry = entry.line
            record.source_type = entry.source_type or self.source_type
            record.source_id = entry.source_id or entry.arxiv_id or entry.line
            record.source_missing_since = None
        return record

    def claim(self, paper_id: str, entry: Entry) -> bool:
        """False (with a warning) when another line of the list already named this paper."""
        first = self.taken.get(paper_id)
        if first is not None and first != entry.line:
            self.report.warn(f"{self.venue}: {entry.line!r} is the same paper as {first!r} ({paper_id}); listed once")
            self.bar.advance()
            return False
        self.taken[paper_id] = entry.line
        return True

    def forget_unresolved(self, entry: Entry, paper_id: str) -> None:
        """A title that failed to resolve in an earlier run left a record under its slug: drop it."""
        stale = self.records.get(entry.provisional_id())
        if stale is not None and stale.id != paper_id and not stale.versions:
            self.store.delete(self.venue, stale.id)
            del self.records[stale.id]

    def fail(self, record: Record, reason: str) -> None:
        if record.abstract:
            record.fetch.abstract_only = True
            reason += "; the abstract will be summarised instead"
        if record.fetch.text_path and not text_readable(self.settings, record.fetch.text_path):
            record.fetch.text_path = None
        record.fail("fetch", reason)
        self.store.save(record)
        self.report.fail(record.id, reason)
        self.report.count("failed")
        self.bar.advance(record.id)

    def cached(self, record: Record) -> None:
        self.store.save(record)  # a source's metadata may have changed (a tier, a fixed title): no-op otherwise
        self.report.count("cached")
        self.bar.advance(record.id)

    def extracted(self, record: Record, sha: str) -> str | None:
        """Text for the PDF ``sha`` (extracted now, or already in the text cache) → the record.

        When the PDF does not parse: why; the file is removed, so it is downloaded again.
        """
        cache = CacheLayout(self.settings.cache_dir)
        relative = cache.text_ref(sha)
        if read_paper_text(self.settings.cache_dir, relative) is None:
            try:
                text = extract_pdf(cache.pdf(sha))
            except FetchError as exc:
                cache.pdf(sha).unlink(missing_ok=True)
                record.fetch.pdf_sha256 = None
                return exc.reason
            text.title = clean_line(text.title or record.title)
            for name in ("abstract", "introduction", "conclusion", "rest"):
                setattr(text, name, clean_text(getattr(text, name)))
            atomic_write_text(cache.text(sha), text.to_json())
        record.fetch.pdf_sha256 = sha
        record.fetch.text_path = relative
        record.fetch.abstract_only = False
        record.fetch.fetched_at = now_iso()
        record.clear_failure("fetch")
        self.store.save(record)
        self.report.count("fetched")
        self.bar.advance(record.id)
        return None


# -- resolve metadata ---------------------------------------------------------------------


def apply_arxiv(record: Record, result: arxiv.Result, entry: Entry) -> None:
    """arXiv's metadata → the record (cleaned: controls out, one-line fields on one line)."""
    record.title = clean_line(result.title)[: limits.TITLE] or record.title
    record.authors = [clean_line(a.name)[: limits.AUTHOR] for a in result.authors][: limits.AUTHORS]
    record.abstract = clean_line(result.summary) or None
    record.categories = list(result.categories)
    record.comment = clean_line(result.comment or "") or None
    record.arxiv_id = result.get_short_id()
    if entry.url and not record.url:
        record.url = entry.url
    record.fetch.pdf_url = entry.pdf_url or result.pdf_url or f"https://arxiv.org/pdf/{record.arxiv_id}"


def apply_native(record: Record, entry: Entry) -> None:
    """The source's own metadata → the record; what the source lacks keeps what arXiv gave."""
    record.title = entry.title or record.title
    record.authors = entry.authors or record.authors
    record.abstract = entry.abstract or record.abstract
    record.url = entry.url or record.url
    record.fetch.pdf_url = entry.pdf_url or record.fetch.pdf_url
    record.tier = entry.tier
    record.venue_label = entry.venue_label
    if entry.arxiv_id:
        record.arxiv_id = entry.arxiv_id


def resolve(run: _FetchRun, ctx: SourceContext, entries: list[Entry], *, match_arxiv: bool) -> list[Record]:
    """Every entry → a record with its metadata; the records whose PDF is still to fetch."""
    need_ids: dict[str, list[Entry]] = {}
    need_titles: list[Entry] = []
    need_pdf: list[Record] = []
    for entry in entries:
        if entry.native:
            record = _native(run, ctx, entry, match_arxiv)
            if record is not None:
                need_pdf.append(record)
        else:
            _triage(run, entry, need_ids, need_titles, need_pdf)
    if need_ids:
        need_pdf.extend(_by_ids(run, ctx.api, need_ids))
    for entry in need_titles:
        record = _by_title(run, ctx.api, entry)
        if record is not None:
            need_pdf.append(record)
    return need_pdf


def _native(run: _FetchRun, ctx: SourceContext, entry: Entry, match_arxiv: bool) -> Record | None:
    api, http = ctx.api, ctx.http
    known = run.by_entry.get(entry.line)
    paper_id = known.id if known is not None else entry.provisional_id()
    if not run.claim(paper_id, entry):
        return None
    record = run.record(paper_id, entry)
    apply_native(record, entry)
    if _done(run.settings, record):
        if match_arxiv:  # fetched before match_arxiv was turned on: looked for once
            _match_once(run, api, record)
        run.cached(record)
        return None
    if not record.abstract and entry.abstract_from is not None:
        run.bar.show("abstracts")
        try:
            record.abstract = clean_line(entry.abstract_from(http) or "")[: limits.ABSTRACT] or None
        except FetchError as exc:
            run.report.warn(f"{run.venue}/{record.id}: abstract page skipped ({exc.reason})")
    if match_arxiv:
        _match_once(run, api, record)
    if not record.fetch.pdf_url and record.arxiv_id:
        record.fetch.pdf_url = f"https://arxiv.org/pdf/{record.arxiv_id}"
    return record


def _match_once(run: _FetchRun, api: ArxivAPI, record: Record) -> None:
    """The paper's arXiv version, looked for once (a paper not on arXiv costs no query on the next fetch)."""
    if record.arxiv_id or record.fetch.arxiv_checked_at is not None:
        return
    run.bar.show("arXiv title match")
    _match_arxiv(api, record, run.report)


def _match_arxiv(api: ArxivAPI, record: Record, report: Report) -> None:
    """A verified close title match (and the first author for short titles) fills what the source lacks."""
    try:
        result = api.by_title(record.title)
    except ArxivUnavailable as exc:
        report.warn(f"{record.venue}/{record.id}: arXiv match skipped ({exc}); the next fetch tries again")
        return
    record.fetch.arxiv_checked_at = now_iso()
    if result is None:
        return
    if len(normalize_title(record.title).split()) < SHORT_TITLE_WORDS and not _same_first_author(record, result):
        return  # a short title alone is too weak: a doubtful match is no match
    record.arxiv_id = result.get_short_id()
    record.abstract = record.abstract or clean_line(result.summary) or None
    record.authors = record.authors or [clean_line(a.name) for a in result.authors]
    record.categories = list(result.categories)
    record.comment = clean_line(result.comment or "") or None


def _same_first_author(record: Record, result: arxiv.Result) -> bool:
    if not record.authors or not result.authors:
        return False
    ours = normalize_title(record.authors[0]).split()
    theirs = normalize_title(result.authors[0].name).split()
    return bool(ours and theirs and ours[-1] == theirs[-1])


def _triage(
    run: _FetchRun, entry: Entry, need_ids: dict[str, list[Entry]], need_titles: list[Entry], need_pdf: list[Record]
) -> None:
    """A list or arXiv-query entry: cached, known, to ask arXiv by id or title, or a PDF of its own."""
    if entry.problem:
        paper_id = entry.provisional_id()
        if run.claim(paper_id, entry):
            run.fail(run.record(paper_id, entry, title=entry.title or entry.line[: limits.TITLE]), entry.problem)
        return
    known = run.by_entry.get(entry.line)
    paper_id = entry.provisional_id() if entry.arxiv_id or known is None else known.id
    record = run.records.get(paper_id)
    if record is not None and _done(run.settings, record):
        if run.claim(paper_id, entry):
            run.cached(run.record(paper_id, entry))
    elif entry.meta is not None:
        if run.claim(paper_id, entry):
            record = run.record(paper_id, entry)
            apply_arxiv(record, entry.meta, entry)
            need_pdf.append(record)
    elif record is not None and record.arxiv_id and record.abstract and record.fetch.pdf_url:
        if run.claim(paper_id, entry):  # metadata from an earlier run: only the PDF is missing
            need_pdf.append(run.record(paper_id, entry))
    elif entry.arxiv_id:
        need_ids.setdefault(entry.arxiv_id, []).append(entry)
    elif entry.pdf_url:
        if run.claim(paper_id, entry):  # not on arXiv: the list gives the PDF
            record = run.record(paper_id, entry)
            record.title = clean_line(entry.title or record.title)[: limits.TITLE]
            record.url = entry.url or record.url
            record.fetch.pdf_url = entry.pdf_url
            need_pdf.append(record)
    else:
        need_titles.append(entry)


def _by_ids(run: _FetchRun, api: ArxivAPI, need_ids: dict[str, list[Entry]]) -> list[Record]:
    run.bar.show("arXiv metadata")
    found, failed = api.by_ids(list(need_ids))
    out: list[Record] = []
    for wanted, group in need_ids.items():
        for entry in group:
            paper_id = entry.provisional_id()
            if not run.claim(paper_id, entry):
                continue
            record = run.record(paper_id, entry)
            if wanted in found:
                apply_arxiv(record, found[wanted], entry)
                out.append(record)
            else:
                run.fail(record, failed.get(wanted, "not found on arXiv"))
    return out


def _by_title(run: _FetchRun, api: ArxivAPI, entry: Entry) -> Record | None:
    assert entry.title is not None
    run.bar.show("arXiv title search")
    try:
        result = api.by_title(entry.title)
    except ArxivUnavailable as exc:
        _fail_entry(run, entry, f"title search failed: {exc}")
        return None
    if result is None:
        _fail_entry(run, entry, "no arXiv match for title")
        return None
    paper_id = record_id(arxiv_id=result.get_short_id())
    if not run.claim(paper_id, entry):
        return None
    run.forget_unresolved(entry, paper_id)
    record = run.record(paper_id, entry)
    if _done(run.settings, record):
        run.cached(record)
        return None
    apply_arxiv(record, result, entry)
    return record


def _fail_entry(run: _FetchRun, entry: Entry, reason: str) -> None:
    paper_id = entry.provisional_id()
    if run.claim(paper_id, entry):
        run.fail(run.record(paper_id, entry), reason)


# -- PDFs and text ------------------------------------------------------------------------


def fetch_pdfs(ctx: SourceContext, run: _FetchRun, records: list[Record]) -> None:
    """Download what is missing (threads, at most pdf_concurrency), extract text here, one paper at a time."""
    cache = CacheLayout(ctx.settings.cache_dir)
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


def _download_all(http: PoliteHTTP, run: _FetchRun, records: list[Record], workers: int) -> None:
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
            except Exception as exc:  # a bug or an odd server: this paper fails, the run goes on
                run.fail(record, f"PDF download failed: {type(exc).__name__}: {exc}")
                continue
            problem = run.extracted(record, sha)
            if problem is not None:
                run.fail(record, problem)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


# -- papers that left the list ------------------------------------------------------------


def mark_missing(run: _FetchRun, source_type: str, entries: list[Entry]) -> list[str]:
    """Records of this source no longer on its list: flagged (``source_missing_since``), kept, reported."""
    listed = {e.line for e in entries}
    gone: list[str] = []
    for record in run.records.values():
        if record.source_type != source_type or not record.source_entry or record.source_entry in listed:
            continue
        if record.source_missing_since is None:
            record.source_missing_since = now_iso()
            run.store.save(record)
        gone.append(record.id)
    if not gone:
        return []
    shown = ", ".join(sorted(gone)[:5]) + (" …" if len(gone) > 5 else "")
    return [f"{len(gone)} paper(s) no longer on the source's list, kept (not deleted): {shown}"]


def mark_abstract_only(run: _FetchRun) -> None:
    """A source-less paper with an abstract and nothing to download is summarised from its abstract."""
    for record in run.records.values():
        if record.arxiv_id or record.fetch.pdf_url or record.fetch.text_path or not (record.abstract or "").strip():
            continue
        record.fetch.abstract_only = True
        run.store.save(record)
