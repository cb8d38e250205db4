"""What a reader's browser downloads to see the first search results, gzipped: the scale section's search row.

The built site is served on 127.0.0.1 and its search page opened in Debian's Chromium (as the browser
tests do) with ``?q=QUERY``; every request the page makes until its first result shows is counted at
its gzipped size (Pagefind's index files are gzipped already and count as they are), the page itself
included.  None when Chromium or Playwright is missing (the row then says so).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
COMPRESSED = (".pf_meta", ".pf_index", ".pf_fragment", ".woff", ".woff2", ".png")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _gzipped_size(path: Path) -> int:
    data = path.read_bytes()
    return len(data) if path.name.endswith(COMPRESSED) else len(gzip.compress(data, 6))


def first_results(site: Path, query: str) -> tuple[int, int, int] | None:
    """(bytes gzipped, requests, results shown) for ``query`` on the site's search page."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    paths: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.on("request", lambda request: paths.append(urlsplit(request.url).path))
            page.goto(f"{base}/search/?q={query}")
            page.wait_for_selector(".pagefind-ui__result", timeout=60_000)
            shown = page.locator(".pagefind-ui__result").count()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    total = 0
    for path in paths:
        local = site / unquote(path).lstrip("/")
        local = local / "index.html" if local.is_dir() else local
        total += _gzipped_size(local) if local.is_file() else 0
    return total, len(paths), shown
