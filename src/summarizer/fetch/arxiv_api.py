"""The arXiv API: one paced, retried client per run; ids in batches, title search, queries.

* one shared ``arxiv.Client`` pointed at ``arxiv.api_url``, one request per ``arxiv.delay_s``
  (the run's ``HostPacer``, the one every fetch request waits on), with timeouts;
* ids asked in batches of up to 100 with ``max_results`` set; ids missing from the answer are
  asked once more, then reported "not found on arXiv"; error entries are never papers;
* titles resolved with a ``ti:"…"`` search and accepted only when the normalised titles match closely.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Any

import arxiv
import requests

from summarizer.core.config import Settings
from summarizer.core.errors import ArxivUnavailable
from summarizer.core.ids import is_arxiv_id, normalize_title, strip_version
from summarizer.core.pacing import HostPacer

from .net import RETRY_STATUSES, Deadline, DeadlineAdapter, host_pacer, retry_policy, transient

BATCH_SIZE = 100  # ids per API request (arXiv's advice)
TITLE_SEARCH_RESULTS = 10
TITLE_MIN_RATIO = 0.97  # difflib ratio of normalised titles accepted as "the same title"


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


class _PacedSession(requests.Session):
    """The arxiv client's session: every request waits its turn on the pacer and gets a timeout (the package sets
    none) and ``http.download_deadline_s`` (past it: ``ArxivUnavailable``, not retried).

    Pacing here, not around ``results()``, covers every request the client makes, also a further
    page it asks for when arXiv answers a short one.
    """

    def __init__(self, timeout: float, pacer: HostPacer, deadline_s: float):
        super().__init__()
        self.timeout = timeout
        self.pacer = pacer
        self.deadline_s = deadline_s
        for scheme in ("http://", "https://"):
            self.mount(scheme, DeadlineAdapter())

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        self.pacer.wait(url.decode() if isinstance(url, bytes) else url)
        kwargs.setdefault("timeout", self.timeout)
        deadline = Deadline(self.deadline_s, "the arXiv API request")
        try:
            with deadline:
                return super().request(method, url, *args, **kwargs)
        except requests.RequestException as exc:
            if deadline.passed():
                raise ArxivUnavailable(deadline.reason) from exc
            raise
        finally:
            deadline.close()


class ArxivAPI:
    """The one arXiv client of a run: paced, retried, pointed at ``arxiv.api_url``.

    ``pacer``: the run's (shared with ``PoliteHTTP``); by default one of its own.
    """

    def __init__(self, settings: Settings, pacer: HostPacer | None = None):
        # The run's pacer spaces the requests (``arxiv.delay_s`` for this host) and the run's retry
        # policy retries them, so the package's own delay and retries are off.
        self.client = arxiv.Client(page_size=BATCH_SIZE, delay_seconds=0, num_retries=0)
        self.client.query_url_format = settings.arxiv.api_url + "?{}"
        self.client._session = _PacedSession(
            settings.http.timeout_s, pacer or host_pacer(settings), settings.http.download_deadline_s
        )
        self.retry = retry_policy(settings.http)
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
            results = self.retry.call(once, retry_on=_transient)
        except arxiv.HTTPError as exc:
            raise ArxivUnavailable(f"the arXiv API answered HTTP {exc.status}") from exc
        except requests.RequestException as exc:
            raise ArxivUnavailable(f"the arXiv API could not be reached ({type(exc).__name__})") from exc
        except arxiv.ArxivError as exc:
            raise ArxivUnavailable(f"the arXiv API failed: {exc.message}") from exc
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
                except ArxivUnavailable as exc:
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


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, arxiv.HTTPError):
        return exc.status in RETRY_STATUSES
    return transient(exc)


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
