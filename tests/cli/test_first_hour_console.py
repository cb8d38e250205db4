"""A clean console on the demo, in real Chromium: every page of the built site and of the desk loads with no
response of 400 or more, no console error and no script error; the site's name is in a title once; an approved
note offers no approve key.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import MATHJAX_JS, chromium, new_page, serve_directory
from demo_folder import DEMO_KEY, run_demo_in
from summarizer.apps.cli import main

pytestmark = pytest.mark.slow  # real Chromium, mkdocs build and the desk as a subprocess

SLOW = 30_000  # ms: a generous bound on a shared machine, never a timing claim
SITE_PAGES = [
    "",  # home
    "ICML2026/",  # venue
    "ICML2026/llm_reasoning/",  # field
    "ICML2026/llm_reasoning/2612.90005/",  # paper (with its note)
    "search/?q=%E6%8E%A8%E7%90%86",  # search (推理)
]


class Console:
    """What a page reports: failed responses, console errors, uncaught script errors."""

    def __init__(self, page: Any):
        self.problems: list[str] = []
        page.on("response", lambda r: r.status >= 400 and self.problems.append(f"{r.status} {r.url}"))
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        page.on("pageerror", lambda e: self.problems.append(f"script: {e}"))
        page.on("requestfailed", lambda r: self.problems.append(f"failed {r.url}: {r.failure}"))


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    tmp = tmp_path_factory.mktemp("console")
    with pytest.MonkeyPatch.context() as monkeypatch:
        capsys = _NoCapture()
        folder, _ = run_demo_in(tmp, monkeypatch, capsys)  # type: ignore[arg-type]
    site = folder / "outputs" / "site"
    mkdocs = Path(sys.executable).with_name("mkdocs")
    built = subprocess.run(
        [str(mkdocs), "build", "-q", "-f", str(site / "mkdocs.yml")], capture_output=True, text=True, timeout=600
    )
    assert built.returncode == 0, built.stderr[-3000:]
    yield folder


class _NoCapture:
    def readouterr(self) -> Any:
        return type("Captured", (), {"out": "", "err": ""})()


def test_the_demo_site_loads_with_a_clean_console(demo_folder: Path) -> None:
    with (
        serve_directory(demo_folder / "outputs" / "site" / "site") as base,
        chromium() as browser,
        new_page(browser) as page,
    ):
        seen = Console(page)
        tag = None
        for path in SITE_PAGES:
            page.goto(f"{base}/{path}", wait_until="networkidle", timeout=SLOW)
            if path.startswith("search"):
                page.wait_for_selector(".search-result", timeout=SLOW)
            titles = page.title()
            assert titles.count("论文解读 · demo") == 1, (path, titles)
            tag = tag or page.locator("a[href*='tags/']").first.get_attribute("href")
        assert tag is not None
        page.goto(f"{base}/{tag.lstrip('./').lstrip('/')}" if not tag.startswith("http") else tag, timeout=SLOW)
        page.wait_for_load_state("networkidle", timeout=SLOW)
        assert seen.problems == [], seen.problems


def started_desk(folder: Path) -> tuple[subprocess.Popen[str], str, list[str]]:
    env = {k: v for k, v in os.environ.items() if k not in (DEMO_KEY, "OPENAI_API_KEY")}
    env.update(SUMMARIZER_MATHJAX=str(MATHJAX_JS), PYTHONUNBUFFERED="1")
    argv = [sys.executable, "-m", "summarizer", "--config", str(folder / "config.yaml"), "review", "serve"]
    process = subprocess.Popen(
        [*argv, "--no-browser", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    stderr: list[str] = []
    threading.Thread(target=lambda: stderr.extend(process.stderr or []), daemon=True).start()
    assert process.stdout is not None
    first = process.stdout.readline().rstrip("\n")
    assert first.startswith("review desk: http://127.0.0.1:"), (first, stderr)
    return process, first.removeprefix("review desk: "), stderr


def test_the_desk_loads_with_a_clean_console_and_no_approve_key_on_an_approved_note(demo_folder: Path) -> None:
    approved_note = "ICML2026/2612.90002"
    assert main(["--config", str(demo_folder / "config.yaml"), "review", "notes", "show", approved_note]) == 0
    process, url, stderr = started_desk(demo_folder)
    try:
        base = url.split("/?token=")[0]
        with chromium() as browser, new_page(browser) as page:
            seen = Console(page)
            page.goto(url, wait_until="networkidle", timeout=SLOW)  # the queue (the token becomes a cookie)
            for path in ("/paper/ICML2026/2612.90010", "/note/ICML2026/2612.90005", f"/note/{approved_note}"):
                page.goto(f"{base}{path}", wait_until="networkidle", timeout=SLOW)
            assert page.locator("#note-actions [data-action=approve]").count() == 0
            page.keyboard.press("a")
            page.wait_for_load_state("networkidle", timeout=SLOW)
            assert page.url == f"{base}/note/{approved_note}"  # the key did nothing: no next note was opened
            assert seen.problems == [], seen.problems
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert not any("Traceback" in line for line in stderr), stderr
