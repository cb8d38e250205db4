"""HTTP for every source and every PDF host: retries with backoff, per-host pacing, an identifying
User-Agent, and PDFs downloaded with the same care wherever they live.

* 429/5xx answers, timeouts and dropped connections are retried with exponential backoff
  (tenacity), at most ``RETRY_ATTEMPTS`` tries;
* one request per ``http.min_interval_s`` per host (threads wait their turn), so a listing,
  its detail pages and its PDFs never hammer one server;
* ``User-Agent: summarizer/<version> (paper digests; mailto:<http.contact>)``;
* PDFs are streamed with timeouts, stopped past ``arxiv.max_pdf_mb``, refused without a
  ``%PDF-`` header, and stored as ``cache/pdf/<sha256>.pdf``.

The knobs (``RETRY_ATTEMPTS`` …) live on the ``summarizer.sources`` package so tests patch one place.
"""

from __future__ import annotations

import importlib.metadata
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import arxiv
import requests
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from ..cache import CacheLayout
from ..config import Settings
from ..errors import FetchError
from ..fsutil import atomic_write_bytes, sha256_bytes

# `summarizer -v` shows the retries and the waits between requests to one host.
log = logging.getLogger(__name__)

T = TypeVar("T")
CHUNK_BYTES = 64 * 1024
MAX_PAGE_BYTES = 64 * 1024 * 1024  # a listing or JSON answer larger than this is not a venue list


def knob(name: str) -> Any:
    return getattr(sys.modules[__package__ or "summarizer.sources"], name)


class _TransientHTTP(Exception):
    def __init__(self, status: int):
        self.status = status
        super().__init__(f"HTTP {status}")


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, arxiv.HTTPError):
        return exc.status in knob("RETRY_STATUSES")
    if isinstance(exc, _TransientHTTP):
        return True
    return isinstance(exc, (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError))


def with_retries(call: Callable[[], T]) -> T:
    """Run ``call``; 429/5xx and dropped connections are retried with exponential backoff."""
    retrying = Retrying(
        stop=stop_after_attempt(knob("RETRY_ATTEMPTS")),
        wait=wait_exponential(multiplier=knob("RETRY_BASE_S"), max=knob("RETRY_MAX_S")),
        retry=retry_if_exception(_transient),
        reraise=True,
        before_sleep=_log_retry,
    )
    return retrying(call)


def _log_retry(state: RetryCallState) -> None:
    wait = state.next_action.sleep if state.next_action else 0.0
    error = state.outcome.exception() if state.outcome else None
    log.info("retry after %.1f s (attempt %d): %s", wait, state.attempt_number, error)


def user_agent(contact: str) -> str:
    try:
        version = importlib.metadata.version("summarizer")
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    who = f"; mailto:{contact}" if contact else ""
    return f"summarizer/{version} (paper digests{who})"


class Pacer:
    """At most one request per ``interval`` seconds to each host, across threads."""

    def __init__(self, interval: float):
        self.interval = interval
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}

    def wait(self, url: str) -> None:
        if self.interval <= 0:
            return
        host = (urlsplit(url).hostname or "").lower()
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next.get(host, now))
            self._next[host] = slot + self.interval
        if slot > now:
            log.info("pacing: %.1f s before the next request to %s", slot - now, host)
            time.sleep(slot - now)


class PoliteHTTP:
    """The run's HTTP client for listings, detail pages and PDFs (one session per thread)."""

    def __init__(self, settings: Settings):
        self.timeout_s = settings.arxiv.timeout_s
        self.max_pdf_mb = settings.arxiv.max_pdf_mb
        self.cache = CacheLayout(settings.cache_dir)
        self.agent = user_agent(settings.http.contact)
        self.pacer = Pacer(settings.http.min_interval_s)
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
                if response.status_code in knob("RETRY_STATUSES"):
                    raise _TransientHTTP(response.status_code)
                if response.status_code != 200:
                    raise FetchError(f"{url} answered HTTP {response.status_code}")
                return _read_capped(response, MAX_PAGE_BYTES, f"{url} is larger than {MAX_PAGE_BYTES >> 20} MB")

        return _plain_errors(once, url, self.timeout_s)

    def get_text(self, url: str) -> str:
        return self.get_bytes(url).decode("utf-8", errors="replace")

    def download_pdf(self, url: str) -> str:
        """Download one PDF into ``cache/pdf/<sha256>.pdf``; its sha256.  ``FetchError`` with a plain reason."""
        data = _plain_errors(lambda: self._get_pdf(url), "PDF download", self.timeout_s)
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
            if response.status_code in knob("RETRY_STATUSES"):
                raise _TransientHTTP(response.status_code)
            if response.status_code != 200:
                raise FetchError(f"PDF download failed: HTTP {response.status_code}")
            content_type = response.headers.get("Content-Type", "").split(";")[0].strip() or "no content type"
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > limit:
                raise FetchError(
                    f"the PDF is larger than arxiv.max_pdf_mb ({int(declared) / 2**20:.1f} MB > {self.max_pdf_mb:g} MB)"
                )
            too_big = f"the PDF is larger than arxiv.max_pdf_mb ({self.max_pdf_mb:g} MB); download stopped"
            data = _read_capped(response, limit, too_big, first=lambda head: _check_pdf_header(head, content_type))
        if not data:
            raise FetchError("not a PDF: the server sent an empty body")
        _check_pdf_header(data, content_type)
        return data


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


def _plain_errors(call: Callable[[], T], what: str, timeout_s: float) -> T:
    tries = knob("RETRY_ATTEMPTS")
    try:
        return with_retries(call)
    except _TransientHTTP as exc:
        raise FetchError(f"{what} failed: HTTP {exc.status} (after {tries} tries)") from None
    except requests.Timeout:
        raise FetchError(f"{what} timed out after {timeout_s:g} s ({tries} tries)") from None
    except requests.RequestException as exc:
        raise FetchError(f"{what} failed: {type(exc).__name__}") from None


def _check_pdf_header(head: bytes, content_type: str) -> None:
    if b"%PDF-" in head[:1024]:
        return
    if not head.strip():
        raise FetchError("not a PDF: the server sent an empty body")
    if content_type == "text/html" or head.lstrip()[:1] == b"<":
        raise FetchError(f"not a PDF: the server sent an HTML page ({content_type}), perhaps a captcha or error page")
    raise FetchError(f"not a PDF: no %PDF- header ({content_type})")
