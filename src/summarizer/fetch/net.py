"""HTTP for every source and every PDF host: retries with backoff, per-host pacing, an identifying
User-Agent, and PDFs downloaded with the same care wherever they live.

* 429/5xx answers, timeouts and dropped connections are retried with exponential backoff
  (``core.retry.RetryPolicy``: ``http.retry_attempts`` tries, ``http.backoff_s`` first wait);
* one request per ``http.min_interval_s`` per host (threads wait their turn), so a listing,
  its detail pages and its PDFs never hammer one server; the arXiv API's host keeps its own
  ``arxiv.delay_s`` on the same pacer (``host_pacer``, one per run);
* ``User-Agent: summarizer/<version> (paper digests; mailto:<http.contact>)``;
* PDFs are streamed with timeouts, stopped past ``http.max_pdf_mb``, refused without a
  ``%PDF-`` header, and stored as ``cache/pdf/<sha256>.pdf``;
* ``http.timeout_s`` bounds each wait for the network (connecting, each read), and
  ``http.download_deadline_s`` each whole download, its retries included: a host that sends one
  byte a second never lets a read time out, so each download's connections are shut at its
  deadline (``DeadlineAdapter``), and the body is read as it arrives.

Every failure leaves as a ``FetchError`` with a plain reason (the HTTP client's exception kept as
its cause).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from summarizer.core.cache_layout import CacheLayout
from summarizer.core.config import HttpSettings, Settings
from summarizer.core.errors import DISTRIBUTION, FetchError
from summarizer.core.fsutil import atomic_write_bytes, sha256_bytes
from summarizer.core.pacing import HostPacer, host_of
from summarizer.core.retry import RetryPolicy

T = TypeVar("T")
CHUNK_BYTES = 64 * 1024
HEAD_BYTES = 1024  # where a PDF's %PDF- header must be
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
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "dev"
    who = f"; mailto:{contact}" if contact else ""
    return f"summarizer/{version} (paper digests{who})"


class Deadline:
    """When a download must be over, its retries included.  Its connections are shut then, so no read, of
    the headers or the body, outlives it; the download then stops with one line."""

    _current = threading.local()  # the download this thread is in, which its connections join

    def __init__(self, seconds: float, what: str):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.reason = f"{what} took longer than http.download_deadline_s ({seconds:g} s); stopped"
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def check(self) -> None:
        if self.passed():
            raise FetchError(self.reason)

    @classmethod
    def current(cls) -> Deadline | None:
        return getattr(cls._current, "deadline", None)

    def __enter__(self) -> Deadline:
        self._current.deadline = self
        return self

    def __exit__(self, *exc: object) -> None:
        self._current.deadline = None

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` at the deadline (unless the download is over by then)."""
        with self._lock:
            self._sockets.append(sock)
            if self._timer is None:
                self._timer = threading.Timer(max(self.at - time.monotonic(), 0), self._expire)
                self._timer.daemon = True
                self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):  # already closed: nothing waits on it
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """The download is over: its connections go back to the pool untouched."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._sockets.clear()


class _WatchedByDeadline:
    """A connection that joins the download's deadline when it asks for a response."""

    sock: socket.socket | None

    def getresponse(self):  # type: ignore[no-untyped-def]
        deadline = Deadline.current()
        if deadline is not None and self.sock is not None:
            deadline.watch(self.sock)
        return super().getresponse()


class _HTTPConnection(_WatchedByDeadline, HTTPConnection):
    pass


class _HTTPSConnection(_WatchedByDeadline, HTTPSConnection):
    pass


class _HTTPPool(HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS: dict[str, type[HTTPConnectionPool]] = {"http": _HTTPPool, "https": _HTTPSPool}


class DeadlineAdapter(HTTPAdapter):
    """requests' adapter, with connections that join the download's deadline (directly or through an HTTP
    proxy; through a SOCKS proxy only the body is bounded, read by read)."""

    def init_poolmanager(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy, **proxy_kwargs):  # type: ignore[no-untyped-def]
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


class PoliteHTTP:
    """The run's HTTP client for listings, detail pages and PDFs (one session per thread).

    ``pacer``: the run's (shared with the arXiv API client); by default one of its own.
    """

    def __init__(self, settings: Settings, pacer: HostPacer | None = None):
        http = settings.http
        self.timeout_s = http.timeout_s
        self.deadline_s = http.download_deadline_s
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
            for scheme in ("http://", "https://"):
                session.mount(scheme, DeadlineAdapter())
            self._local.session = session
        return session

    def _headers(self, url: str) -> dict[str, str]:
        return self.host_headers.get((urlsplit(url).hostname or "").lower(), {})

    def get_bytes(self, url: str) -> bytes:
        """A page or data file (listing, JSON, YAML); ``FetchError`` with a plain reason."""
        deadline = Deadline(self.deadline_s, url)

        def once() -> bytes:
            with self._get(url, self.timeout_s, deadline) as response:
                _raise_if_transient(response)
                if response.status_code != 200:
                    raise FetchError(f"{url} answered HTTP {response.status_code}")
                too_big = f"{url} is larger than {MAX_PAGE_BYTES >> 20} MB"
                return _read_capped(response, MAX_PAGE_BYTES, too_big, deadline)

        try:
            return self._plain_errors(once, url, deadline)
        finally:
            deadline.close()

    def get_text(self, url: str) -> str:
        return self.get_bytes(url).decode("utf-8", errors="replace")

    def download_pdf(self, url: str) -> str:
        """Download one PDF into ``cache/pdf/<sha256>.pdf``; its sha256.  ``FetchError`` with a plain reason."""
        deadline = Deadline(self.deadline_s, "the PDF download")
        try:
            data = self._plain_errors(lambda: self._get_pdf(url, deadline), "PDF download", deadline)
        finally:
            deadline.close()
        sha = sha256_bytes(data)
        path = self.cache.pdf(sha)
        if not path.is_file():
            atomic_write_bytes(path, data)
        return sha

    def _get(self, url: str, timeout: float | tuple[float, float], deadline: Deadline) -> requests.Response:
        """A streamed GET, paced; its connection joins the download's deadline."""
        deadline.check()  # a retry does not start past the deadline
        self.pacer.wait(url)
        with deadline:
            return self.session().get(url, stream=True, timeout=timeout, headers=self._headers(url))

    def _get_pdf(self, url: str, deadline: Deadline) -> bytes:
        limit = int(self.max_pdf_mb * 1024 * 1024)
        with self._get(url, (self.timeout_s, self.timeout_s), deadline) as response:
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
            data = _read_capped(
                response, limit, too_big, deadline, first=lambda head: _check_pdf_header(head, content_type)
            )
        if not data:
            raise FetchError("not a PDF: the server sent an empty body")
        _check_pdf_header(data, content_type)
        return data

    def _plain_errors(self, call: Callable[[], T], what: str, deadline: Deadline) -> T:
        tries = self.retry.attempts
        try:
            return self.retry.call(call, retry_on=lambda exc: transient(exc) and not deadline.passed())
        except requests.RequestException as exc:
            if deadline.passed():  # the connection was shut at the deadline, or a read ended past it
                raise FetchError(deadline.reason) from exc
            if isinstance(exc, requests.HTTPError):
                status = exc.response.status_code if exc.response is not None else "?"
                raise FetchError(f"{what} failed: HTTP {status} (after {tries} tries)") from exc
            if isinstance(exc, requests.Timeout):
                raise FetchError(f"{what} timed out after {self.timeout_s:g} s ({tries} tries)") from exc
            raise FetchError(f"{what} failed: {type(exc).__name__}") from exc


def _read_capped(
    response: requests.Response,
    limit: int,
    too_big: str,
    deadline: Deadline,
    first: Callable[[bytes], None] | None = None,
) -> bytes:
    """The body, stopped past ``limit`` bytes or the deadline; ``first`` sees its first KB once it is here."""
    chunks: list[bytes] = []
    size = 0
    for chunk in _as_it_arrives(response):
        chunks.append(chunk)
        size += len(chunk)
        if first is not None and size >= HEAD_BYTES:  # pieces can be a byte long: wait for a whole head
            first(b"".join(chunks)[:HEAD_BYTES])
            first = None
        if size > limit:
            raise FetchError(too_big)
        deadline.check()
    deadline.check()  # a connection shut at the deadline ends like a body without a length: not a whole body
    return b"".join(chunks)


def _as_it_arrives(response: requests.Response) -> Iterator[bytes]:
    """The body, decoded, each piece as soon as the network has it (``iter_content`` waits for a whole
    chunk, which a host sending a byte a second never completes), with requests' exceptions."""
    try:
        while chunk := response.raw.read1(CHUNK_BYTES, decode_content=True):
            yield chunk
    except urllib3.exceptions.ReadTimeoutError as exc:
        raise requests.exceptions.ReadTimeout(exc) from exc
    except urllib3.exceptions.ProtocolError as exc:
        raise requests.exceptions.ChunkedEncodingError(exc) from exc
    except urllib3.exceptions.DecodeError as exc:
        raise requests.exceptions.ContentDecodingError(exc) from exc
    except urllib3.exceptions.SSLError as exc:
        raise requests.exceptions.SSLError(exc) from exc


def _check_pdf_header(head: bytes, content_type: str) -> None:
    if b"%PDF-" in head[:HEAD_BYTES]:
        return
    if not head.strip():
        raise FetchError("not a PDF: the server sent an empty body")
    if content_type == "text/html" or head.lstrip()[:1] == b"<":
        raise FetchError(f"not a PDF: the server sent an HTML page ({content_type}), perhaps a captcha or error page")
    raise FetchError(f"not a PDF: no %PDF- header ({content_type})")
