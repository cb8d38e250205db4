"""``review serve``: the review desk's app (``review.desk``) served on 127.0.0.1 until Ctrl-C.

The first stdout line is the address with the desk's token; the token lives in memory and in that
line, nowhere else.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import threading
import webbrowser
from pathlib import Path

import click

import summarizer.cli.console as console
from summarizer.core.config import Settings
from summarizer.core.errors import MissingExtra, UsageError

MATHJAX_ENV = "SUMMARIZER_MATHJAX"
MATHJAX_FILE = "tex-mml-chtml.js"


def find_mathjax(settings: Settings) -> Path | None:
    """A local MathJax 3 `es5` folder: $SUMMARIZER_MATHJAX, else node_modules beside the config file."""
    explicit = os.environ.get(MATHJAX_ENV)
    candidates = [Path(explicit)] if explicit else []
    base = settings.config_file.resolve().parent
    candidates += [
        base / "node_modules" / "mathjax" / "es5",
        base / "tests" / "js" / "node_modules" / "mathjax" / "es5",
    ]
    for folder in candidates:
        if (folder / MATHJAX_FILE).is_file():
            return folder
    if explicit:
        raise UsageError(f"{MATHJAX_ENV}={explicit}: no {MATHJAX_FILE} there (point it at mathjax/es5)")
    return None


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror}): choose another --port") from None
    sock.listen(128)
    return sock


def serve(settings: Settings, venue_ids: list[str], *, host: str, port: int, open_browser: bool) -> None:
    """Serve until Ctrl-C; the first stdout line is the address with the token."""
    try:
        import uvicorn

        from summarizer.review.desk.app import MATHJAX_CDN, create_app
        from summarizer.review.desk.security import Gate
    except ImportError as exc:  # starlette and uvicorn are the [desk] extra
        raise MissingExtra("the review desk", "desk") from exc

    mathjax_dir = find_mathjax(settings)
    sock = _listen(host, port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    extra = "" if mathjax_dir else MATHJAX_CDN.split("/mathjax")[0]
    app = Gate(
        create_app(settings, venue_ids, mathjax_dir=mathjax_dir),
        host=host,
        port=port,
        token=token,
        extra_script_src=extra,
    )
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/?token={token}"
    click.echo(f"review desk: {url}")
    sys.stdout.flush()
    console.info(f"reviewing {', '.join(venue_ids)}; Ctrl-C stops the desk")
    if mathjax_dir is None:
        console.warn(
            f"math typesets from {MATHJAX_CDN}: to work offline, `npm install mathjax@3` and set {MATHJAX_ENV}"
        )
    if host not in ("127.0.0.1", "::1", "localhost"):
        console.warn(f"listening on {host}: anyone who can reach it and has the token can approve papers")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
    server = uvicorn.Server(config)
    if open_browser:
        threading.Timer(0.3, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn shut down cleanly, then re-raised the Ctrl-C: nothing was in flight
    finally:
        sock.close()
    console.info("review desk stopped")
