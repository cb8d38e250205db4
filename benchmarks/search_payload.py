"""What a reader's browser downloads (gzipped) and waits for the first search result: the scale section's search rows.

The built site is served on 127.0.0.1 and its search page opened in Debian's Chromium (as the browser
tests do) with ``?q=QUERY``; every request the page makes until its first result shows is counted at
its gzipped size (Pagefind's index files are gzipped already and count as they are), the page itself
included; the time runs from asking for the page to the first result shown.  None when Chromium or
Playwright is missing (the row then says so).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
COMPRESSED = (".pf_meta", ".pf_index", ".pf_fragment", ".woff", ".woff2", ".png")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _gzipped_size(path: Path) -> int:
    data = path.read_bytes()
    return len(data) if path.name.endswith(COMPRESSED) else len(gzip.compress(data, 6))


FIRST_RESULT_JS = """new MutationObserver((_, observer) => {
  if (!document.querySelector(".search-result")) return
  observer.disconnect()
  window.firstResult().then(() => { window.firstResultSeen = true })
}).observe(document, {childList: true, subtree: true})"""


def first_results(site: Path, query: str) -> tuple[int, int, int, float] | None:
    """(bytes gzipped, requests, results shown, seconds) for ``query`` on the site's search page, cold."""
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
            # The requests made until the first result is in the page: counted when it is added, not when
            # Playwright next looks (by then the rest of the first page of results is on its way).
            first: list[float] = []
            page.expose_function("firstResult", lambda: first or first.extend([len(paths), time.perf_counter()]))
            page.add_init_script(FIRST_RESULT_JS)
            start = time.perf_counter()
            page.goto(f"{base}/search/?q={quote(query)}")
            page.wait_for_selector(".search-result", timeout=300_000)
            page.wait_for_function("window.firstResultSeen === true", timeout=60_000)
            seconds = first[1] - start
            del paths[int(first[0]) :]
            shown = page.locator(".search-result").count()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    total = 0
    for path in paths:
        local = site / unquote(path).lstrip("/")
        local = local / "index.html" if local.is_dir() else local
        total += _gzipped_size(local) if local.is_file() else 0
    return total, len(paths), shown, seconds


# Words the synthetic papers hold (benchmarks/scale.py's summaries and tags): a tag word, a phrase inside
# every summary (its pairs' order checked), a three-character word, Latin words, and Latin with Chinese.
WORDS = ("量化", "推理延迟", "注意力", "强化学习", "KV cache", "LLaMA 量化")
TARGET_REQUESTS = 15
TARGET_MB = 1.0  # gzipped, before the first result
TARGET_INDEX_S = 60.0  # the whole index of 20,000 papers, on 2 cores
PAPER_PAGES = "*/*/*/index.html"  # hooks/search_index.py's


def index_argv(site: Path, output: Path) -> list[str]:
    """The hook's own Pagefind command (hooks/search_index.py), into another folder: the index's build time."""
    return [
        sys.executable, "-m", "pagefind", "--site", str(site), "--glob", PAPER_PAGES, "--output-path", str(output),
        "--force-language", "zh", "--quiet", "--exclude-selectors", ".headerlink, .arithmatex",
    ]  # fmt: skip


def measure(site: Path) -> dict[str, Any]:
    """Each word's first result (None without Chromium), and the index's size on disk (its files are gzipped)."""
    index = site / "search-index"
    return {
        "words": {word: first_results(site, word) for word in WORDS},
        "index_mb": sum(p.stat().st_size for p in index.rglob("*") if p.is_file()) / 1e6,
        "index_files": sum(1 for p in index.rglob("*") if p.is_file()),
    }


def rows(results: dict[int, dict[str, Any]], index_runs: dict[int, Any]) -> list[str]:
    """The search table: one row per word, then the index's build time and size."""
    sizes = sorted(results)
    lines = ["| search | " + " | ".join(f"{n:,} papers" for n in sizes) + " |", "|---" * (len(sizes) + 1) + "|"]
    for word in WORDS:
        cells = []
        for n in sizes:
            got = results[n]["words"][word]
            cells.append("not measured (no Chromium)" if got is None else
                         f"{got[1]} requests, {got[0] / 1e6:.2f} MB, {got[3]:.1f} s ({got[2]} shown)")  # fmt: skip
        lines.append(f"| `{word}`: before the first result | " + " | ".join(cells) + " |")
    run_cells = [f"{index_runs[n].wall_s:.1f} s ({index_runs[n].cpu_s:.1f} s CPU), {index_runs[n].max_rss_mb:.0f} MB"
                 for n in sizes]  # fmt: skip
    lines.append("| the whole index: Pagefind's build | " + " | ".join(run_cells) + " |")
    lines.append("| the whole index on disk (files) | " + " | ".join(
        f"{results[n]['index_mb']:.0f} MB ({results[n]['index_files']:,})" for n in sizes) + " |")  # fmt: skip
    return lines


def verdicts(results: dict[int, dict[str, Any]], index_runs: dict[int, Any]) -> list[str]:
    n = max(results)
    measured = [got for got in results[n]["words"].values() if got is not None]
    out = []
    if measured:
        requests, mb = max(got[1] for got in measured), max(got[0] for got in measured) / 1e6
        ok = requests <= TARGET_REQUESTS and mb <= TARGET_MB
        out.append(
            f"- {n:,} papers, a cold query before its first result, the most over {len(measured)} words: "
            f"{requests} requests (target ≤ {TARGET_REQUESTS}), {mb:.2f} MB gzipped (target ≤ {TARGET_MB:.0f} MB): "
            + ("PASS" if ok else "FAIL")
        )
    wall = index_runs[n].wall_s
    out.append(
        f"- {n:,} papers, the whole search index made again (any venue changed): {wall:.1f} s, "
        f"target < {TARGET_INDEX_S:.0f} s: " + ("PASS" if wall < TARGET_INDEX_S else "FAIL")
    )
    return out
