"""One fetch run's papers: the venue's records by id, which are done, which list line claimed which
paper, and how a paper's outcome (fetched, cached, failed) reaches its record, the report and the bar.
"""

from __future__ import annotations

from summarizer.core import limits
from summarizer.core.bounds import fit_oneline, fit_record, fit_title
from summarizer.core.cache_layout import CacheLayout
from summarizer.core.config import Settings
from summarizer.core.errors import FetchError
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.paper_text import read_paper_text
from summarizer.core.progress import Bar
from summarizer.core.records import Record, now_iso
from summarizer.core.report import Report
from summarizer.core.sanitize import clean_line, clean_text
from summarizer.core.store import Store

from .pdf_worker import PdfWorker
from .sources.base import Entry


def text_readable(settings: Settings, text_path: str | None) -> bool:
    """The cached sections exist and parse (a truncated or garbled file is fetched again)."""
    return read_paper_text(settings.cache_dir, text_path) is not None


def is_done(settings: Settings, record: Record) -> bool:
    """Metadata and readable text already here: nothing to request."""
    has_meta = bool(record.title) and (bool(record.abstract) or not record.arxiv_id)
    has_text = not record.fetch.abstract_only and text_readable(settings, record.fetch.text_path)
    return has_meta and "fetch" not in record.failures and has_text


class FetchRun:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        venue_id: str,
        bar: Bar,
        records: list[Record],
        source_type: str | None,
        reader: PdfWorker,
    ):
        self.settings = settings
        self.reader = reader  # the run's PDF text reader (a worker process, bounded per paper)
        self.store = store
        self.venue_id = venue_id
        self.bar = bar
        self.source_type = source_type
        self.report = Report("fetch", venue_id, counts={"fetched": 0, "cached": 0, "failed": 0})
        self.records = {r.id: r for r in records}
        self.by_entry = {r.source_entry: r for r in records if r.source_entry}
        self.taken: dict[str, str] = {}  # paper id → the entry line that claimed it in this run

    def record(self, paper_id: str, entry: Entry, title: str | None = None) -> Record:
        record = self.records.get(paper_id)
        if record is None:
            record = Record(venue=self.venue_id, id=paper_id, title=fit_title(title or entry.title or entry.line))
            self.records[paper_id] = record
        if self.source_type is not None:  # a source-less venue's records keep what they had
            record.source_entry = entry.line
            record.source_type = entry.source_type or self.source_type
            record.source_id = fit_oneline(entry.source_id or entry.arxiv_id or entry.line, limits.SOURCE_ID)
            record.source_missing_since = None
        return record

    def claim(self, paper_id: str, entry: Entry) -> bool:
        """False (with a warning) when another line of the list already named this paper."""
        first = self.taken.get(paper_id)
        if first is not None and first != entry.line:
            self.report.warn(
                f"{self.venue_id}: {entry.line!r} is the same paper as {first!r} ({paper_id}); listed once"
            )
            self.bar.advance()
            return False
        self.taken[paper_id] = entry.line
        return True

    def forget_unresolved(self, entry: Entry, paper_id: str) -> None:
        """A title that failed to resolve in an earlier run left a record under its slug: drop it."""
        stale = self.records.get(entry.provisional_id())
        if stale is not None and stale.id != paper_id and not stale.summaries.versions:
            self.store.delete(self.venue_id, stale.id)
            del self.records[stale.id]

    def save(self, record: Record) -> None:
        """Every save of the stage: the record's metadata fitted to the rules import checks first (``core.bounds``)."""
        self.store.save(fit_record(record))

    def fail(self, record: Record, reason: str) -> None:
        if record.abstract:
            record.fetch.abstract_only = True
            reason += "; the abstract will be summarised instead"
        if record.fetch.text_path and not text_readable(self.settings, record.fetch.text_path):
            record.fetch.text_path = None
        record.fail("fetch", reason)
        self.save(record)
        self.report.fail(record.id, reason)
        self.report.count("failed")
        self.bar.advance(record.id)

    def cached(self, record: Record) -> None:
        self.save(record)  # a source's metadata may have changed (a tier, a fixed title): no-op otherwise
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
                text = self.reader.extract(cache.pdf(sha))
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
        self.save(record)
        self.report.count("fetched")
        self.bar.advance(record.id)
        return None
