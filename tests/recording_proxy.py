"""A loopback proxy that passes chat completions to a real server and notes each exchange.

The real-server test puts it between summarizer and llama-cpp-python's server, to see what was asked
(the ``response_format`` of each request) and what the server answered (status, ``usage``), without
trusting summarizer's own account of either.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from summarizer.testing.loopback import QuietHandler, StandIn


@dataclass
class Exchange:
    request: dict[str, Any]
    status: int
    answer: dict[str, Any]

    @property
    def response_format(self) -> tuple[str | None, bool]:
        """The type asked for, and whether a schema went beside json_object."""
        fmt = self.request.get("response_format") or {}
        return fmt.get("type"), "schema" in fmt

    @property
    def usage(self) -> dict[str, int]:
        return self.answer.get("usage") or {}


class RecordingProxy(StandIn):
    def __init__(self, upstream: str, timeout_s: float = 900.0):
        self.upstream = upstream.rstrip("/")  # the real server's base URL, …/v1
        self.timeout_s = timeout_s
        self.exchanges: list[Exchange] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                target = proxy.upstream + self.path.removeprefix("/v1")
                request = urllib.request.Request(target, raw, {"content-type": "application/json"}, method="POST")
                try:
                    with urllib.request.urlopen(request, timeout=proxy.timeout_s) as answer:
                        status, body = answer.status, answer.read()
                except urllib.error.HTTPError as error:
                    status, body = error.code, error.read()
                try:
                    parsed = json.loads(body)
                except ValueError:
                    parsed = {}
                with proxy._lock:
                    proxy.exchanges.append(Exchange(json.loads(raw or b"{}"), status, parsed))
                self.reply(status, body, "application/json")

        return Handler
