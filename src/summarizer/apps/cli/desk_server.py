"""``review serve``: the review desk's app (``review.desk``) served on 127.0.0.1 until Ctrl-C.

The first stdout line is the address with the desk's token; the token lives in memory and in that
line, and, when the desk opens the browser, in a file only its user can read: a command line is
seen by every local user (``ps``), so the browser is handed that file, which sends it on to the
address (as Jupyter does), and the file goes when the desk stops.
"""

from __future__ import annotations

import contextlib
import html
import ipaddress
import os
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

import summarizer.apps.cli.console as console
from summarizer.core.config import Settings
from summarizer.core.errors import MissingExtra, UsageError

MATHJAX_ENV = "SUMMARIZER_MATHJAX"
MATHJAX_FILE = "tex-mml-chtml.js"
REDIRECT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>review desk</title>
<meta http-equiv="refresh" content="0;url={url}"></head>
<body><p><a href="{url}">Open the review desk</a></p></body></html>
"""


def find_mathjax(settings: Settings) -> Path | None:
    """A local MathJax 3 `es5` folder: $SUMMARIZER_MATHJAX, else the copy the site serves (django-static-mathjax)."""
    from summarizer.site.site_files import mathjax_es5  # the site's own copy: the same files as the pages

    explicit = os.environ.get(MATHJAX_ENV)
    candidates = [Path(explicit)] if explicit else []
    shipped = mathjax_es5()
    candidates += [shipped] if shipped else []
    base = settings.config_file.resolve().parent
    candidates.append(base / "node_modules" / "mathjax" / "es5")
    for folder in candidates:
        if (folder / MATHJAX_FILE).is_file():
            return folder
    if explicit:
        raise UsageError(f"{MATHJAX_ENV}={explicit}: no {MATHJAX_FILE} there (point it at mathjax/es5)")
    return None


def check_host(host: str) -> None:
    """Refuse a wildcard address: the desk answers only at the one address it prints (the Host check)."""
    try:
        wildcard = host == "" or ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return  # a name: its address is whatever it resolves to
    if wildcard:
        raise UsageError(
            f"--host {host} listens on every address, but the desk answers only at the one it prints: "
            "give that one address (127.0.0.1, or this machine's address on its network)"
        )


@contextlib.contextmanager
def browser_file(url: str) -> Iterator[Path]:
    """A page that sends the browser on to ``url``: in a new private folder, readable by this user only."""
    folder = Path(tempfile.mkdtemp(prefix="summarizer-desk-"))  # mode 0700
    try:
        page = folder / "open.html"
        fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(REDIRECT.format(url=html.escape(url)))
        yield page
    finally:
        shutil.rmtree(folder, ignore_errors=True)


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

        from summarizer.apps.desk.app import MATHJAX_CDN, create_app
        from summarizer.apps.desk.security import Gate
    except ImportError as exc:  # starlette and uvicorn are the [desk] extra
        raise MissingExtra("the review desk", "desk") from exc

    check_host(host)
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
        console.warn(f"math typesets from {MATHJAX_CDN}: to work offline, `pip install django-static-mathjax`")
    if host not in ("127.0.0.1", "::1", "localhost"):
        console.warn(f"listening on {host}: anyone who can reach it and has the token can approve papers")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
    _run(uvicorn.Server(config), sock, url if open_browser else None)
    console.info("review desk stopped")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(server: Any, sock: socket.socket, open_url: str | None) -> None:
    """Serve until Ctrl-C or SIGTERM; with ``open_url``, open the browser on it through a private file.

    uvicorn re-raises the signal that stopped it once it has shut down: SIGTERM is made a Ctrl-C, so
    the browser's file is removed on either, not left behind by a process killed outright.
    """
    with contextlib.ExitStack() as stack:
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGTERM, _interrupt)
            stack.callback(signal.signal, signal.SIGTERM, previous)
        if open_url is not None:
            page = stack.enter_context(browser_file(open_url))
            threading.Timer(0.3, webbrowser.open, args=(page.as_uri(),)).start()
        try:
            server.run(sockets=[sock])
        except KeyboardInterrupt:
            pass  # uvicorn shut down cleanly, then re-raised the Ctrl-C: nothing was in flight
        finally:
            sock.close()
