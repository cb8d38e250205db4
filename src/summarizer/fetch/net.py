"""HTTP for every source and every PDF host: retries with backoff, per-host pacing, an identifying
User-Agent, and PDFs downloaded with the same care wherever they live.

* 429/5xx answers, timeouts and dropped connections are retried with exponential backoff
  (``core.retry.RetryPolicy``: ``http.retry_attempts`` tries, ``http.backoff_s`` first wait);
* one request per ``http.min_interval_s`` per host (threads wait their turn), so a listing,
  its detail pages and its PDFs never hammer one server; the arXiv API's host keeps its own
  ``arxiv.delay_s`` on the same pacer (``host_pacer``, one per run);
* ``User-Agent: summarizer/<version> (paper digests; mailto:<http.contact>)``;
* PDFs are streamed with timeouts, stopped past ``http.max_pdf_mb``, refused without a
  ``%PDF-`` header, and stored as ``cache/pdf/<sha256>.pdf``.

Every failure leaves as a ``FetchError`` with a plain reason (the HTTP client's exception kept as
its cause).
"""

from __future__ import annotations

import importlib.metadata
import threading
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urlsplit

import requests

from summarizer.core.cache_layout import CacheLayout
from summarizer.core.config import HttpSettings, Settings
from summarizer.core.errors import FetchError
from summarizer.core.fsutil import atomic_write_bytes, sha256_bytes
from summarizer.core.pacing import HostPacer, host_of
from summarizer.core.retry import RetryPolicy

T = TypeVar("T")
CHUNK_BYTES = 64 * 1024
MAX_PAGE_BYTES = 64 * 1024 * 1024  # a listing or JSON answer larger than this is not a venue list
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def retry_policy(http: HttpSettings) -> RetryPolicy:
    return RetryPolicy(attempts=http.retry_attempts, base_s=http.backoff_s)


def host_pacer(settings: Settings) -> HostPacer:
    """The run's one pacer: ``http.min_interval_s`` for every host, ``arxiv.delay_s`` for the arXiv API's."""
    return HostPacer(settings.http.min_interval_s, {host_of(settings.arxiv.api_url): settings.arxiv.delay_s})


def transient(exc: BaseException) -> bool:
    """Worth another try: a 429 or 5xx answer, a timeout, a dropped connection."""
    if isinstance(exc, requests.HTTPError):
        return exc.response is not None and exc.response.status_code in RETRY_STATUSES
    return isinstance(exc, (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError))


def _raise_if_transient(response: requests.Response) -> None:
    if response.status_code in RETRY_STATUSES:
        raise requests.HTTPError(f"HTTP {response.status_code}", response=response)


def user_agent(contact: str) -> str:
    try:
        version = importlib.metadata.version("summarizer")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    who = f"; mailto:{contact}" if contact else ""
    return f"summarizer/{version} (paper digests{who})"


class PoliteHTTP:
    """The run's HTTP client for listings, detail pages and PDFs (one session per thread).

    ``pacer``: the run's (shared with the arXiv API client); by default one of its own.
    """

    def __init__(self, settings: Settings, pacer: HostPacer | None = None):
        http = settings.http
        self.timeout_s = http.timeout_s
        self.max_pdf_mb = http.max_pdf_mb
        self.retry = retry_policy(http)
        self.cache = CacheLayout(settings.cache_dir)
        self.agent = user_agent(http.contact)
        self.pacer = pacer or host_pacer(settings)
        self._local = threading.local()
        self.host_headers: dict[str, dict[str, str]] = {}  # e.g. a login token for the OpenReview host only

    def session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers["User-Agent"] = self.agent
            self._local.session = session
        return session

    def _headers(self, url: str) -> dict[str, str]:
        return self.host_headers.get((urlsplit(url).hostname or "").lower(), {})

    def get_bytes(self, url: str) -> bytes:
        """A page or data file (listing, JSON, YAML); ``FetchError`` with a plain reason."""

        def once() -> bytes:
            self.pacer.wait(url)
            with self.session().get(url, stream=True, timeout=self.timeout_s, headers=self._headers(url)) as response:
                _raise_if_transient(response)
                if response.status_code != 200:
                    raise FetchError(f"{url} answered HTTP {response.status_code}")
                return _read_capped(response, MAX_PAGE_BYTES, f"{url} is larger than {MAX_PAGE_BYTES >> 20} MB")

        return self._plain_errors(once, url)

    def get_text(self, url: str) -> str:
        return self.get_bytes(url).decode("utf-8", errors="replace")

    def download_pdf(self, url: str) -> str:
        """Download one PDF into ``cache/pdf/<sha256>.pdf``; its sha256.  ``FetchError`` with a plain reason."""
        data = self._plain_errors(lambda: self._get_pdf(url), "PDF download")
        sha = sha256_bytes(data)
        path = self.cache.pdf(sha)
        if not path.is_file():
            atomic_write_bytes(path, data)
        return sha

    def _get_pdf(self, url: str) -> bytes:
        limit = int(self.max_pdf_mb * 1024 * 1024)
        self.pacer.wait(url)
        timeout = (self.timeout_s, self.timeout_s)
        with self.session().get(url, stream=True, timeout=timeout, headers=self._headers(url)) as response:
            _raise_if_transient(response)
            if response.status_code != 200:
                raise FetchError(f"PDF download failed: HTTP {response.status_code}")
            content_type = response.headers.get("Content-Type", "").split(";")[0].strip() or "no content type"
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > limit:
                raise FetchError(
                    f"the PDF is larger than http.max_pdf_mb ({int(declared) / 2**20:.1f} MB > {self.max_pdf_mb:g} MB)"
                )
            too_big = f"the PDF is larger than http.max_pdf_mb ({self.max_pdf_mb:g} MB); download stopped"
            data = _read_capped(response, limit, too_big, first=lambda head: _check_pdf_header(head, content_type))
        if not data:
            raise FetchError("not a PDF: the server sent an empty body")
        _check_pdf_header(data, content_type)
        return data

    def _plain_errors(self, call: Callable[[], T], what: str) -> T:
        tries = self.retry.attempts
        try:
            return self.retry.call(call, retry_on=transient)
        except requests.HTTPError as exc:
            status = exc.response.status_code if exc.response is not None else "?"
            raise FetchError(f"{what} failed: HTTP {status} (after {tries} tries)") from exc
        except requests.Timeout as exc:
            raise FetchError(f"{what} timed out after {self.timeout_s:g} s ({tries} tries)") from exc
        except requests.RequestException as exc:
            raise FetchError(f"{what} failed: {type(exc).__name__}") from exc


def _read_capped(
    response: requests.Response, limit: int, too_big: str, first: Callable[[bytes], None] | None = None
) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_content(CHUNK_BYTES):
        if not chunks and first is not None:
            first(chunk)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise FetchError(too_big)
    return b"".join(chunks)


def _check_pdf_header(head: bytes, content_type: str) -> None:
    if b"%PDF-" in head[:1024]:
        return
    if not head.strip():
        raise FetchError("not a PDF: the server sent an empty body")
    if content_type == "text/html" or head.lstrip()[:1] == b"<":
        raise FetchError(f"not a PDF: the server sent an HTML page ({content_type}), perhaps a captcha or error page")
    raise FetchError(f"not a PDF: no %PDF- header ({content_type})")
