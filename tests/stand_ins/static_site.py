"""A loopback web host for the sources that are plain files and pages (CVF listings, PMLR
``citeproc.yaml``, virtual-site JSON, PDFs on any host).

    with StaticSite({"/CVPR2026": (html, "text/html")}) as site:
        site.url + "/CVPR2026?day=all"

Paths are matched without the query string; unknown paths answer 404.  ``fail(path, 503, times=1)``
makes the next requests for a path fail; ``trickle(path, every_s=1)`` sends that path's body (with
``headers=True``, its status line and headers too) one byte at a time: a host that never quite stops
sending, so no read ever times out.  Every request is
logged (``requests``: path and query; ``agents``: the User-Agent each one sent).  Binds to 127.0.0.1
only.
"""

from __future__ import annotations

import contextlib
import threading
import time
from urllib.parse import urlsplit

from summarizer.testing.loopback import QuietHandler, StandIn


class StaticSite(StandIn):
    def __init__(self, pages: dict[str, tuple[bytes | str, str]] | None = None):
        self.pages: dict[str, tuple[bytes, str]] = {}
        self.requests: list[str] = []
        self.times: list[float] = []
        self.agents: list[str] = []
        self._faults: dict[str, list[int]] = {}
        self._trickled: dict[str, tuple[float, bool]] = {}
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        for path, (body, content_type) in (pages or {}).items():
            self.put(path, body, content_type)

    def put(self, path: str, body: bytes | str, content_type: str) -> None:
        self.pages[path] = (body.encode("utf-8") if isinstance(body, str) else body, content_type)

    def fail(self, path: str, status: int = 503, *, times: int = 1) -> None:
        self._faults.setdefault(path, []).extend([status] * times)

    def trickle(self, path: str, *, every_s: float = 1.0, headers: bool = False) -> None:
        """Send ``path``'s body (and its headers, with ``headers``) one byte every ``every_s`` seconds."""
        self._trickled[path] = (every_s, headers)

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if urlsplit(r).path == path)

    def handler(self) -> type[QuietHandler]:
        site = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                status, body, content_type = site._answer(self.path, self.headers.get("User-Agent", ""))
                trickled = site._trickled.get(urlsplit(self.path).path)
                if trickled is None or status != 200:
                    self.reply(status, body, content_type)
                    return
                every_s, with_headers = trickled
                self.close_connection = True
                head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
                if not with_headers:
                    self.wfile.write(head.encode("ascii"))
                data = head.encode("ascii") + body if with_headers else body
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    for i in range(len(data)):
                        if site._stopping.wait(every_s):
                            return
                        self.wfile.write(data[i : i + 1])

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
