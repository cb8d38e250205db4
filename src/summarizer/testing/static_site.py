"""A loopback web host for the sources that are plain files and pages (CVF listings, PMLR
``citeproc.yaml``, virtual-site JSON, PDFs on any host).

    with StaticSite({"/CVPR2026": (html, "text/html")}) as site:
        site.url + "/CVPR2026?day=all"

Paths are matched without the query string; unknown paths answer 404.  ``fail(path, 503, times=1)``
makes the next requests for a path fail.  Every request is logged (``requests``: path and query;
``agents``: the User-Agent each one sent).  Binds to 127.0.0.1 only.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import urlsplit

from .loopback import QuietHandler, StandIn


class StaticSite(StandIn):
    def __init__(self, pages: dict[str, tuple[bytes | str, str]] | None = None):
        self.pages: dict[str, tuple[bytes, str]] = {}
        self.requests: list[str] = []
        self.times: list[float] = []
        self.agents: list[str] = []
        self._faults: dict[str, list[int]] = {}
        self._lock = threading.Lock()
        for path, (body, content_type) in (pages or {}).items():
            self.put(path, body, content_type)

    def put(self, path: str, body: bytes | str, content_type: str) -> None:
        self.pages[path] = (body.encode("utf-8") if isinstance(body, str) else body, content_type)

    def fail(self, path: str, status: int = 503, *, times: int = 1) -> None:
        self._faults.setdefault(path, []).extend([status] * times)

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if urlsplit(r).path == path)

    def handler(self) -> type[QuietHandler]:
        site = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.reply(*site._answer(self.path, self.headers.get("User-Agent", "")))

        return Handler

    def _answer(self, raw: str, agent: str) -> tuple[int, bytes, str]:
        path = urlsplit(raw).path
        with self._lock:
            self.requests.append(raw)
            self.times.append(time.monotonic())
            self.agents.append(agent)
            faults = self._faults.get(path)
            if faults:
                return faults.pop(0), b"Service Unavailable", "text/plain"
        if path not in self.pages:
            return 404, b"Not Found", "text/plain"
        body, content_type = self.pages[path]
        return 200, body, content_type
