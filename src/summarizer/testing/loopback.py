"""The HTTP server every stand-in runs: 127.0.0.1 on a free port, served from a daemon thread."""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class LoopbackServer(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 makes a burst of connections wait a SYN retry (1 s)
    daemon_threads = True


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive, no access log on stderr."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: with Nagle on, the body waits for the client's
    # delayed ACK (~40 ms on Linux) on a kept-alive connection. Real servers set TCP_NODELAY.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reply(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        # The client may stop reading (a size cap, a timeout): fine.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(body)


class StandIn:
    """A stand-in's lifecycle: ``with Fake() as fake`` (or ``start``/``stop``) runs its ``handler()``."""

    _server: LoopbackServer | None = None
    server_class: type[LoopbackServer] = LoopbackServer
    poll_s = 0.02

    def handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        self._server = serve(self.handler(), self.server_class, self.poll_s)
        return self

    def stop(self) -> None:
        shut(self._server)
        self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return origin(self._server)


def serve(
    handler: type[BaseHTTPRequestHandler], server_class: type[LoopbackServer] = LoopbackServer, poll_s: float = 0.02
) -> LoopbackServer:
    server = server_class(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_s}, daemon=True).start()
    return server


def shut(server: ThreadingHTTPServer | None) -> None:
    if server is not None:
        server.shutdown()
        server.server_close()


def origin(server: ThreadingHTTPServer | None) -> str:
    assert server is not None, "start the stand-in first"
    return f"http://127.0.0.1:{server.server_address[1]}"
