"""Fetch stage: a venue's paper list → arXiv metadata → cached PDFs → the text of each paper.

Sources (``venues[].source``): a list file (``.txt``: one arXiv id, arXiv
abs/pdf URL or title a line, ``#`` comments; ``.csv``/``.jsonl`` with the
columns ``title, arxiv_id, url, pdf_url``) or an ``arxiv_query`` search.

Politeness and dependability:

* one shared ``arxiv.Client`` pointed at ``arxiv.api_url``, one request per
  ``arxiv.delay_s`` (the client paces itself), with timeouts;
* ids checked by pattern before any request, then asked in batches of up to
  100 with ``max_results`` set; ids missing from the answer are asked once
  more, then reported "not found on arXiv"; error entries are never papers;
* 429 and 5xx answers and dropped connections retried with exponential
  backoff (tenacity; the arxiv client's own retries are off);
* titles resolved with a ``ti:"…"`` search and accepted only when the
  normalised titles match closely ("no arXiv match for title" otherwise);
* PDFs streamed with timeouts, at most ``arxiv.pdf_concurrency`` at a time,
  stopped past ``arxiv.max_pdf_mb``, refused without a ``%PDF-`` header, and
  stored as ``cache/pdf/<sha256>.pdf``; text cached as ``cache/text/<sha256>.json``.

Every paper gets a record, saved as soon as the paper is done; a failure is a
reason in the record and in the report, never a crash.  A paper that already
has its metadata and text is skipped without any request.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import re
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import arxiv
import requests
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from . import console
from .config import ArxivSettings, Settings, Venue
from .console import StageReport
from .errors import ConfigError, FetchError, FileSystemError, UsageError
from .extract import PaperText, extract_pdf, text_cache_path
from .fsutil import atomic_write_bytes, atomic_write_text, sha256_bytes
from .ids import is_arxiv_id, normalize_title, paper_id, parse_arxiv_id, strip_version
from .store import Record, Store, now_iso

# Patchable knobs (tests set RETRY_BASE_S to ~0 so backoff does not slow the suite).
BATCH_SIZE = 100  # ids per API request (arXiv's advice)
RETRY_ATTEMPTS = 4  # tries per request, the first included
RETRY_BASE_S = 2.0  # backoff: base, 2×base, 4×base … capped at RETRY_MAX_S
RETRY_MAX_S = 60.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
TITLE_SEARCH_RESULTS = 10
TITLE_MIN_RATIO = 0.97  # difflib ratio of normalised titles accepted as "the same title"
CHUNK_BYTES = 64 * 1024
PDF_DIR = "pdf"
USER_AGENT = "summarizer (paper digests; polite fetching)"

T = TypeVar("T")


# -- venue lists --------------------------------------------------------------------


@dataclass
class Entry:
    """One paper as the venue's list names it."""

    line: str  # the list line (kept in record.source_entry)
    arxiv_id: str | None = None  # as written, maybe with a version
    title: str | None = None
    url: str | None = None
    pdf_url: str | None = None
    problem: str | None = None  # why this line cannot be fetched at all
    meta: arxiv.Result | None = None  # already known (an arxiv_query result)

    def provisional_id(self) -> str:
        if self.arxiv_id:
            return paper_id(arxiv_id=self.arxiv_id)
        return paper_id(title=self.title or self.line)


_COMMENT = re.compile(r"(?:^|\s)#.*$")
# Looks like someone meant an arXiv id ("2501.129", "hep-th/99", "arXiv:2501.12948v") but it is not one.
_ID_LIKE = re.compile(r"^(?:arxiv:\s*)?(?:[a-z-]+(?:\.[a-z]{2})?/)?\d[\d.]*(?:v\d*)?$|^\d{4}\.\w{1,6}$", re.I)


def parse_line(text: str) -> Entry:
    """An entry from one line of a ``.txt`` list (comment already removed)."""
    found = parse_arxiv_id(text)
    if found:
        is_url = text.startswith(("http://", "https://"))
        return Entry(line=text, arxiv_id=found, url=text if is_url else None)
    if _ID_LIKE.match(text):
        return Entry(line=text, problem=f"malformed arXiv id {text!r}")
    if re.match(r"^https?://", text, re.I):
        if "arxiv.org" in text.lower():
            return Entry(line=text, problem=f"not an arXiv abs or pdf URL: {text}")
        return Entry(line=text, problem="a URL that is not an arXiv link: give the paper's arXiv id or title")
    return Entry(line=text, title=text)


def entry_from_fields(line: str, fields: dict[str, Any]) -> Entry:
    """An entry from a CSV row or JSONL object with ``title, arxiv_id, url, pdf_url``."""

    def get(key: str) -> str | None:
        value = fields.get(key)
        if value is None:
            return None
        value = str(value).strip()
        return value or None

    title, raw_id, url, pdf_url = get("title"), get("arxiv_id"), get("url"), get("pdf_url")
    found = None
    if raw_id:
        found = parse_arxiv_id(raw_id)
        if not found:
            return Entry(line=line, title=title, problem=f"malformed arXiv id {raw_id!r}")
    for candidate in (url, pdf_url):
        if not found and candidate:
            found = parse_arxiv_id(candidate)
    if not found and not title:
        return Entry(line=line, problem="the row has neither an arXiv id nor a title")
    return Entry(line=line, arxiv_id=found, title=title, url=url, pdf_url=pdf_url)


def read_list(path: Path) -> list[Entry]:
    """The entries of a ``.txt``, ``.csv`` or ``.jsonl`` venue list, in file order."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the venue list {path}: {exc}") from None
    suffix = path.suffix.lower()
    entries: list[Entry] = []
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        columns = {(c or "").strip().lower() for c in reader.fieldnames or []}
        if not columns & {"title", "arxiv_id", "url", "pdf_url"}:
            raise UsageError(f"{path}: a CSV list needs a header with title, arxiv_id, url or pdf_url")
        for row in reader:
            fields = {(k or "").strip().lower(): v for k, v in row.items()}
            if not any((v or "").strip() for v in fields.values() if isinstance(v, str)):
                continue
            buffer = io.StringIO()
            csv.writer(buffer).writerow([row.get(k) or "" for k in reader.fieldnames or []])
            entries.append(entry_from_fields(buffer.getvalue().strip(), fields))
        return entries
    for raw in text.splitlines():
        if suffix == ".jsonl":
            line = raw.strip()
            if not line:
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                entries.append(Entry(line=line, problem="not valid JSON"))
                continue
            if not isinstance(data, dict):
                entries.append(Entry(line=line, problem="a JSONL line must be an object with title, arxiv_id, …"))
                continue
            entries.append(entry_from_fields(line, data))
        else:
            line = _COMMENT.sub("", raw).strip()
            if line:
                entries.append(parse_line(line))
    return entries


# -- titles ------------------------------------------------------------------------


def titles_match(wanted: str, found: str) -> bool:
    a, b = normalize_title(wanted), normalize_title(found)
    if not a or not b:
        return False
    if a == b or a.replace(" ", "") == b.replace(" ", ""):
        return True
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= TITLE_MIN_RATIO


def title_query(title: str) -> str:
    """A ``ti:"…"`` search; quotes, colons and other query syntax removed."""
    words = re.sub(r"[^\w\s]|_", " ", unicodedata.normalize("NFKC", title)).split()
    return 'ti:"' + " ".join(words) + '"'


# -- the arXiv API -------------------------------------------------------------------


class APIFailure(Exception):
    """A request to the arXiv API failed for good (after retries)."""


class _TransientHTTP(Exception):
    def __init__(self, status: int):
        self.status = status
        super().__init__(f"HTTP {status}")


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, arxiv.HTTPError):
        return exc.status in RETRY_STATUSES
    if isinstance(exc, _TransientHTTP):
        return True
    return isinstance(exc, (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError))


def with_retries(call: Callable[[], T]) -> T:
    """Run ``call``; 429/5xx and dropped connections are retried with exponential backoff."""
    retrying = Retrying(
        stop=stop_after_attempt(RETRY_ATTEMPTS),
        wait=wait_exponential(multiplier=RETRY_BASE_S, max=RETRY_MAX_S),
        retry=retry_if_exception(_transient),
        reraise=True,
    )
    return retrying(call)


class _TimeoutSession(requests.Session):
    """The arxiv client's session: every request gets a timeout (the package sets none)."""

    def __init__(self, timeout: float):
        super().__init__()
        self.timeout = timeout

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout)
        return super().request(method, url, *args, **kwargs)


class ArxivAPI:
    """The one arXiv client of a run: paced, retried, pointed at ``arxiv.api_url``."""

    def __init__(self, settings: ArxivSettings):
        self.client = arxiv.Client(page_size=BATCH_SIZE, delay_seconds=settings.delay_s, num_retries=0)
        self.client.query_url_format = settings.api_url + "?{}"
        self.client._session = _TimeoutSession(settings.timeout_s)
        self.requests = 0

    def page(
        self, *, query: str = "", id_list: Sequence[str] = (), start: int = 0, size: int = BATCH_SIZE
    ) -> list[arxiv.Result]:
        """One request: up to ``size`` results from ``start`` (``max_results`` = ``size``)."""
        search = arxiv.Search(query=query, id_list=list(id_list), max_results=start + size)

        def once() -> list[arxiv.Result]:
            self.requests += 1
            self.client.page_size = size
            return list(self.client.results(search, offset=start))

        try:
            results = with_retries(once)
        except arxiv.HTTPError as exc:
            raise APIFailure(f"the arXiv API answered HTTP {exc.status}") from None
        except requests.RequestException as exc:
            raise APIFailure(f"the arXiv API could not be reached ({type(exc).__name__})") from None
        except arxiv.ArxivError as exc:
            raise APIFailure(f"the arXiv API failed: {exc.message}") from None
        return [r for r in results if _real_paper(r)]

    def by_ids(self, ids: Sequence[str]) -> tuple[dict[str, arxiv.Result], dict[str, str]]:
        """Metadata for each id (batched); ids missing from an answer are asked once more.

        Returns (found by requested id, reason by id that failed).
        """
        found: dict[str, arxiv.Result] = {}
        failed: dict[str, str] = {}
        pending = list(dict.fromkeys(ids))
        for round_ in range(2):
            missing: list[str] = []
            for batch in _chunks(pending, BATCH_SIZE):
                try:
                    results = self.page(id_list=batch, size=len(batch))
                except APIFailure as exc:
                    failed.update({i: str(exc) for i in batch})
                    continue
                for wanted in batch:
                    match = _pick(wanted, results)
                    if match is None:
                        missing.append(wanted)
                    else:
                        found[wanted] = match
            if not missing:
                break
            if round_ == 1:
                failed.update({i: "not found on arXiv" for i in missing})
            pending = missing
        return found, failed

    def by_title(self, title: str) -> arxiv.Result | None:
        """The arXiv paper with this title, or None when no result's title matches closely."""
        results = self.page(query=title_query(title), size=TITLE_SEARCH_RESULTS)
        close = [r for r in results if titles_match(title, r.title)]
        if not close:
            return None
        wanted = normalize_title(title)
        return max(close, key=lambda r: difflib.SequenceMatcher(None, wanted, normalize_title(r.title)).ratio())

    def query(self, query: str, max_results: int) -> Iterator[arxiv.Result]:
        start = 0
        while start < max_results:
            size = min(BATCH_SIZE, max_results - start)
            results = self.page(query=query, start=start, size=size)
            yield from results
            if len(results) < size:
                return
            start += size


def _real_paper(result: arxiv.Result) -> bool:
    """arXiv's error answers come as entries (``…/api/errors#…``, title "Error"): never papers."""
    short = result.get_short_id()
    return "/api/errors" not in result.entry_id and is_arxiv_id(short) and result.title.strip() != "Error"


def _pick(wanted: str, results: list[arxiv.Result]) -> arxiv.Result | None:
    base = strip_version(wanted)
    for result in results:
        short = result.get_short_id()
        if short == wanted or (wanted == base and strip_version(short) == base):
            return result
    return None


def _chunks(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


# -- PDFs --------------------------------------------------------------------------------

_thread_local = threading.local()


def _session() -> requests.Session:
    session = getattr(_thread_local, "session", None)
    if session is None:
        session = requests.Session()
        session.headers["User-Agent"] = USER_AGENT
        _thread_local.session = session
    return session


def download_pdf(url: str, *, cache_dir: Path, timeout_s: float, max_mb: float) -> str:
    """Download one PDF into ``cache/pdf/<sha256>.pdf``; its sha256.  ``FetchError`` with a plain reason."""
    try:
        data = with_retries(lambda: _get_pdf(url, timeout_s=timeout_s, max_mb=max_mb))
    except _TransientHTTP as exc:
        raise FetchError(f"PDF download failed: HTTP {exc.status} (after {RETRY_ATTEMPTS} tries)") from None
    except requests.Timeout:
        raise FetchError(f"PDF download timed out after {timeout_s:g} s ({RETRY_ATTEMPTS} tries)") from None
    except requests.RequestException as exc:
        raise FetchError(f"PDF download failed: {type(exc).__name__}") from None
    sha = sha256_bytes(data)
    path = cache_dir / PDF_DIR / f"{sha}.pdf"
    if not path.is_file():
        atomic_write_bytes(path, data)
    return sha


def _get_pdf(url: str, *, timeout_s: float, max_mb: float) -> bytes:
    limit = int(max_mb * 1024 * 1024)
    with _session().get(url, stream=True, timeout=(timeout_s, timeout_s)) as response:
        if response.status_code in RETRY_STATUSES:
            raise _TransientHTTP(response.status_code)
        if response.status_code != 200:
            raise FetchError(f"PDF download failed: HTTP {response.status_code}")
        content_type = response.headers.get("Content-Type", "").split(";")[0].strip() or "no content type"
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > limit:
            raise FetchError(
                f"the PDF is larger than arxiv.max_pdf_mb ({int(declared) / 2**20:.1f} MB > {max_mb:g} MB)"
            )
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_content(CHUNK_BYTES):
            if not chunks:
                _check_pdf_header(chunk, content_type)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise FetchError(f"the PDF is larger than arxiv.max_pdf_mb ({max_mb:g} MB); download stopped")
    data = b"".join(chunks)
    if not data:
        raise FetchError("not a PDF: the server sent an empty body")
    _check_pdf_header(data, content_type)
    return data


def _check_pdf_header(head: bytes, content_type: str) -> None:
    if b"%PDF-" in head[:1024]:
        return
    if not head.strip():
        raise FetchError("not a PDF: the server sent an empty body")
    if content_type == "text/html" or head.lstrip()[:1] == b"<":
        raise FetchError(f"not a PDF: the server sent an HTML page ({content_type}), perhaps a captcha or error page")
    raise FetchError(f"not a PDF: no %PDF- header ({content_type})")


# -- the stage --------------------------------------------------------------------------


def _has_text(settings: Settings, record: Record) -> bool:
    path = record.fetch.text_path
    return bool(path) and not record.fetch.abstract_only and (settings.cache_dir / str(path)).is_file()


def _done(settings: Settings, record: Record) -> bool:
    """Metadata and text already here: nothing to request."""
    has_meta = bool(record.title) and (bool(record.abstract) or not record.arxiv_id)
    return has_meta and "fetch" not in record.failures and _has_text(settings, record)


def _apply_metadata(record: Record, result: arxiv.Result, entry: Entry) -> None:
    record.title = re.sub(r"\s+", " ", result.title).strip() or record.title
    record.authors = [a.name for a in result.authors]
    record.abstract = re.sub(r"\s+", " ", result.summary).strip() or None
    record.categories = list(result.categories)
    record.comment = result.comment or None
    record.arxiv_id = result.get_short_id()
    if entry.url and not record.url:
        record.url = entry.url
    record.fetch.pdf_url = entry.pdf_url or result.pdf_url or f"https://arxiv.org/pdf/{record.arxiv_id}"


class _Run:
    def __init__(self, settings: Settings, store: Store, venue: str, bar: console.ProgressBar):
        self.settings = settings
        self.store = store
        self.venue = venue
        self.bar = bar
        self.report = StageReport("fetch", venue, counts={"fetched": 0, "cached": 0, "failed": 0})
        self.records = {r.id: r for r in store.records(venue)}
        self.by_entry = {r.source_entry: r for r in self.records.values() if r.source_entry}
        self.taken: dict[str, str] = {}  # paper id → the entry line that claimed it in this run

    def record(self, pid: str, entry: Entry, title: str | None = None) -> Record:
        record = self.records.get(pid)
        if record is None:
            record = Record(venue=self.venue, id=pid, title=title or entry.title or entry.line)
            self.records[pid] = record
        record.source_entry = entry.line
        return record

    def claim(self, pid: str, entry: Entry) -> bool:
        """False (with a warning) when another line of the list already named this paper."""
        first = self.taken.get(pid)
        if first is not None and first != entry.line:
            console.warn(f"{self.venue}: {entry.line!r} is the same paper as {first!r} ({pid}); listed once")
            self.bar.advance()
            return False
        self.taken[pid] = entry.line
        return True

    def forget_unresolved(self, entry: Entry, pid: str) -> None:
        """A title that failed to resolve in an earlier run left a record under its slug: drop it."""
        stale = self.records.get(entry.provisional_id())
        if stale is not None and stale.id != pid and not stale.versions:
            self.store.delete(self.venue, stale.id)
            del self.records[stale.id]

    def fail(self, record: Record, reason: str) -> None:
        if record.abstract:
            record.fetch.abstract_only = True
            reason += "; the arXiv abstract will be summarised instead"
        if record.fetch.text_path and not (self.settings.cache_dir / record.fetch.text_path).is_file():
            record.fetch.text_path = None
        record.fail("fetch", reason)
        self.store.save(record)
        self.report.fail(record.id, reason)
        self.report.count("failed")
        self.bar.advance(record.id)

    def cached(self, record: Record) -> None:
        self.report.count("cached")
        self.bar.advance(record.id)

    def extracted(self, record: Record, sha: str) -> None:
        """Text for the PDF ``sha`` (extracted now, or already in the text cache) → the record."""
        cache = self.settings.cache_dir
        text_path = text_cache_path(cache, sha)
        if not text_path.is_file():
            try:
                text = extract_pdf(cache / PDF_DIR / f"{sha}.pdf")
            except FetchError as exc:
                # Unreadable: drop it, so the next run downloads it again (the host may have fixed it).
                (cache / PDF_DIR / f"{sha}.pdf").unlink(missing_ok=True)
                record.fetch.pdf_sha256 = None
                self.fail(record, exc.reason)
                return
            if not text.title:
                text.title = record.title
            atomic_write_text(text_path, text.to_json())
        record.fetch.pdf_sha256 = sha
        record.fetch.text_path = text_path.relative_to(cache).as_posix()
        record.fetch.abstract_only = False
        record.fetch.fetched_at = now_iso()
        record.clear_failure("fetch")
        self.store.save(record)
        self.report.count("fetched")
        self.bar.advance(record.id)


def _entries(settings: Settings, venue: Venue, api: ArxivAPI, limit: int | None) -> list[Entry]:
    source = venue.source
    if source is None:
        raise UsageError(
            f"venue {venue.id} has no source in {settings.config_file.name}: "
            "add source: {type: list, path: FILE} or {type: arxiv_query, query: …}"
        )
    if source.type == "list":
        assert source.path is not None
        if not source.path.is_file():
            raise ConfigError(
                f"venue list not found: {source.path}",
                file=str(settings.config_file),
                key=f"venues[{settings.venues.index(venue)}].source.path",
            )
        entries = read_list(source.path)
        return entries[:limit] if limit else entries
    assert source.query is not None
    wanted = min(source.max_results, limit) if limit else source.max_results
    try:
        results = list(api.query(source.query, wanted))
    except APIFailure as exc:
        raise FetchError(f"the arXiv query {source.query!r} failed: {exc}") from None
    return [Entry(line=r.get_short_id(), arxiv_id=r.get_short_id(), title=r.title, meta=r) for r in results]


def fetch_venue(settings: Settings, store: Store, venue_id: str, *, limit: int | None = None) -> StageReport:
    """Fetch every paper of the venue's list: metadata, PDF, sections; one record each."""
    venue = settings.venue(venue_id)
    api = ArxivAPI(settings.arxiv)
    entries = _entries(settings, venue, api, limit)
    with console.progress(f"fetch {venue_id}", total=len(entries)) as bar:
        run = _Run(settings, store, venue_id, bar)
        need_ids: dict[str, list[Entry]] = {}
        need_titles: list[Entry] = []
        need_pdf: list[Record] = []

        for entry in entries:
            if entry.problem:
                pid = entry.provisional_id()
                if run.claim(pid, entry):
                    run.fail(run.record(pid, entry, title=entry.title or entry.line[:200]), entry.problem)
                continue
            known = run.by_entry.get(entry.line)
            pid = entry.provisional_id() if entry.arxiv_id or known is None else known.id
            record = run.records.get(pid)
            if record is not None and _done(settings, record):
                if run.claim(pid, entry):
                    run.cached(record)
                continue
            if entry.meta is not None:
                if run.claim(pid, entry):
                    record = run.record(pid, entry)
                    _apply_metadata(record, entry.meta, entry)
                    need_pdf.append(record)
            elif record is not None and record.arxiv_id and record.abstract and record.fetch.pdf_url:
                if run.claim(pid, entry):  # metadata from an earlier run: only the PDF is missing
                    need_pdf.append(run.record(pid, entry))
            elif entry.arxiv_id:
                need_ids.setdefault(entry.arxiv_id, []).append(entry)
            elif entry.pdf_url:
                if run.claim(pid, entry):  # not on arXiv: the list gives the PDF
                    record = run.record(pid, entry)
                    record.title = entry.title or record.title
                    record.url = entry.url or record.url
                    record.fetch.pdf_url = entry.pdf_url
                    need_pdf.append(record)
            else:
                need_titles.append(entry)

        if need_ids:
            bar.note("arXiv metadata")
            found, failed = api.by_ids(list(need_ids))
            for wanted, group in need_ids.items():
                for entry in group:
                    pid = entry.provisional_id()
                    if not run.claim(pid, entry):
                        continue
                    record = run.record(pid, entry)
                    if wanted in found:
                        _apply_metadata(record, found[wanted], entry)
                        need_pdf.append(record)
                    else:
                        run.fail(record, failed.get(wanted, "not found on arXiv"))

        for entry in need_titles:
            assert entry.title is not None
            bar.note("arXiv title search")
            try:
                result = api.by_title(entry.title)
            except APIFailure as exc:
                pid = entry.provisional_id()
                if run.claim(pid, entry):
                    run.fail(run.record(pid, entry), f"title search failed: {exc}")
                continue
            if result is None:
                pid = entry.provisional_id()
                if run.claim(pid, entry):
                    run.fail(run.record(pid, entry), "no arXiv match for title")
                continue
            pid = paper_id(arxiv_id=result.get_short_id())
            if not run.claim(pid, entry):
                continue
            run.forget_unresolved(entry, pid)
            record = run.record(pid, entry)
            if _done(settings, record):
                run.cached(record)
                continue
            _apply_metadata(record, result, entry)
            need_pdf.append(record)

        _fetch_pdfs(settings, run, need_pdf)
    return run.report


def _fetch_pdfs(settings: Settings, run: _Run, records: list[Record]) -> None:
    """Download what is missing (threads, at most pdf_concurrency), extract text here, one paper at a time."""
    cache = settings.cache_dir
    to_download: list[Record] = []
    for record in records:
        sha = record.fetch.pdf_sha256
        if sha and (cache / PDF_DIR / f"{sha}.pdf").is_file():
            run.extracted(record, sha)
        elif not record.fetch.pdf_url:
            run.fail(record, "no PDF link known for this paper")
        else:
            to_download.append(record)
    if not to_download:
        return
    arx = settings.arxiv
    pool = ThreadPoolExecutor(max_workers=arx.pdf_concurrency, thread_name_prefix="pdf")
    try:
        futures: dict[Future[str], Record] = {}
        for record in to_download:
            url = record.fetch.pdf_url
            assert url is not None
            future = pool.submit(download_pdf, url, cache_dir=cache, timeout_s=arx.timeout_s, max_mb=arx.max_pdf_mb)
            futures[future] = record
        run.bar.note("PDFs")
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
            run.extracted(record, sha)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


__all__ = [
    "ArxivAPI",
    "Entry",
    "PaperText",
    "download_pdf",
    "fetch_venue",
    "normalize_title",
    "parse_line",
    "read_list",
    "title_query",
    "titles_match",
]
