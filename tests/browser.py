"""Real headless Chromium for the tests that check what a person sees in a browser.

Debian's ``chromium`` (``/usr/bin/chromium``) driven by Playwright for Python:
Playwright's own browser download cannot work offline.  The site serves MathJax
itself (``site.mathjax: local``, from the ``django-static-mathjax`` package); a
page that names unpkg's copy (``site.mathjax: cdn``) gets the same files.

``make browser-deps`` (run by ``.ci/run``) installs Chromium when missing.
Outside CI a missing piece skips the browser tests with the command to run;
under CI (``CI=true``) it fails them, so a green CI always ran them.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from summarizer.site.site_files import mathjax_es5

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
MATHJAX_JS = mathjax_es5() or REPO / "no-mathjax"
# What the site's mkdocs.yml names; the browser never reaches it: page.route serves the local copy.
MATHJAX_CDN_GLOB = "**/mathjax@3/es5/**"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def missing_pieces() -> list[str]:
    missing = []
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        missing.append("chromium (apt-get install -y chromium)")
    if not (MATHJAX_JS / "tex-mml-chtml.js").is_file():
        missing.append("mathjax (pip install django-static-mathjax)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    return missing


def require_browser() -> None:
    missing = missing_pieces()
    if not missing:
        return
    message = "browser test needs " + ", ".join(missing) + "; `make browser-deps` installs them"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def route_mathjax(page: Any) -> None:
    """Serve MathJax from the package instead of the CDN: same files, no network."""

    def fulfil(route: Any) -> None:
        name = route.request.url.split("/es5/", 1)[1].split("?", 1)[0]
        local = (MATHJAX_JS / name).resolve()
        if MATHJAX_JS.resolve() not in local.parents or not local.is_file():
            route.fulfill(status=404, body="not found")
            return
        route.fulfill(status=200, body=local.read_bytes(), content_type="application/javascript")

    page.route(MATHJAX_CDN_GLOB, fulfil)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    """Serve a built site folder on 127.0.0.1; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def save_screenshot(page: Any, folder: Path, name: str) -> Path:
    """The page as seen, into ``folder``, and into $DESK_SCREENSHOTS when set (how examples/desk/*.png are made)."""
    path = folder / name
    page.screenshot(path=str(path), full_page=False)
    target = os.environ.get("DESK_SCREENSHOTS")
    if target:
        shutil.copy(path, Path(target) / name)
    return path


@contextmanager
def chromium() -> Iterator[Any]:
    """A Playwright browser on Debian's Chromium; every page it opens gets MathJax locally."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def new_page(browser: Any) -> Iterator[Any]:
    """A page with MathJax routed locally and every dialog recorded in ``page.dialogs``."""
    context = browser.new_context()
    page = context.new_page()
    page.dialogs = []

    def on_dialog(dialog: Any) -> None:
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    route_mathjax(page)
    try:
        yield page
    finally:
        context.close()
