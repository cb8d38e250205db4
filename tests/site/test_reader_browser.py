"""The demo's published site as a reader uses it, in real Chromium: search, paper pages, tags, feeds.

The demo runs (``summarizer demo``'s code), ``mkdocs build --strict`` renders it (Pagefind makes the
search in the site's hook), and the built folder is served on 127.0.0.1.  Every request the pages make
is recorded: none may leave that address (MathJax, the search, the fonts are the site's own).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_mkdocs import broken_links, mkdocs_build
from test_search_browser import drawn_words, page_texts, wrong_answers

from browser import chromium, serve_directory
from conftest import REPO
from summarizer.apps.demo import run as demo

pytestmark = pytest.mark.slow  # real Chromium and a whole demo: `make test` leaves it to `make test-all`

# A word inside a demo summary ("…在多步算术中的失败…"), not at the start of a clause.
WORD = "算术"


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("reader") / "demo"
    shutil.copytree(REPO / "examples" / "demo", folder, ignore=shutil.ignore_patterns("outputs", "cache"))
    latency, demo.REPLAY_LATENCY_S = demo.REPLAY_LATENCY_S, 0.0
    try:
        demo.run_demo(folder)
    finally:
        demo.REPLAY_LATENCY_S = latency
    root = folder / "outputs" / "site"
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    assert broken_links(root / "site") == []
    return root / "site"


@pytest.fixture(scope="module")
def reader(demo_site: Path) -> Iterator[tuple[str, Any, list[str]]]:
    with serve_directory(demo_site) as base, chromium() as browser:
        context = browser.new_context()
        page = context.new_page()
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        yield base, page, requests
        context.close()


def test_searching_a_chinese_word_inside_a_summary_finds_its_page(reader: tuple[str, Any, list[str]]) -> None:
    base, page, _ = reader
    page.goto(f"{base}/search/?q={quote(WORD)}")
    page.wait_for_selector(".search-result", timeout=30_000)
    titles = page.locator(".search-result__title").all_inner_texts()
    assert any("Self-Verifying" in title for title in titles), titles
    assert page.locator(".search-result__snippet mark").first.inner_text() == WORD
    assert "ICML2026" in page.locator(".search-result__where").first.inner_text()
    page.locator(".search-result__title").first.click()
    page.wait_for_load_state()
    assert WORD in page.locator("article").inner_text()


def test_the_demo_search_finds_exactly_the_pages_that_hold_a_word(
    reader: tuple[str, Any, list[str]], demo_site: Path
) -> None:
    base, page, _ = reader
    texts = page_texts(page, base, demo_site)
    assert sum("显存" in t for t in texts.values()) >= 1 and sum("分页" in t for t in texts.values()) >= 1
    words = ["显存", "分页", "显然", "对齐", WORD, *drawn_words(texts, 60, seed=1)]
    wrong = wrong_answers(page, base, texts, words)
    assert not wrong, "\n".join(wrong)


def test_the_search_filters_by_venue(reader: tuple[str, Any, list[str]], demo_site: Path) -> None:
    base, page, _ = reader
    page.goto(f"{base}/search/")
    page.wait_for_function("window.siteSearch !== undefined", timeout=30_000)
    everywhere = page.evaluate("q => window.siteSearch(q)", "模型")
    icml = page.evaluate("q => window.siteSearch(q, {venue: 'ICML2026'})", "模型")
    assert icml and set(icml) < set(everywhere)
    assert all(url.startswith("/ICML2026/") for url in icml)
    page.locator(".search-filters summary").click()
    page.wait_for_selector(".search-filters select[name=venue]")
    assert "ICML2026" in page.locator(".search-filters select[name=venue]").inner_text()


def test_every_digest_title_opens_the_paper_page_which_links_back(
    reader: tuple[str, Any, list[str]], demo_site: Path
) -> None:
    base, page, _ = reader
    fields = sorted(p.parent.relative_to(demo_site).as_posix() for p in demo_site.glob("*/*/index.html"))
    fields = [f for f in fields if not f.startswith(("search", "tags"))]
    assert len(fields) >= 3
    for field in fields:
        page.goto(f"{base}/{field}/")
        count = page.locator("article dl dt a").count()
        assert count >= 1, field
        for i in range(count):
            page.goto(f"{base}/{field}/")
            title = page.locator("article dl dt a").nth(i).inner_text()
            page.locator("article dl dt a").nth(i).click()
            page.wait_for_load_state()
            assert page.locator("article h1").first.inner_text().rstrip("¶") == title
            assert page.get_by_role("link", name="arXiv").count() == 1
            page.locator("article a", has_text="返回").click()
            page.wait_for_load_state()
            assert page.url.rstrip("/").endswith(field), (field, page.url)


def test_a_hot_topic_opens_its_tag_page(reader: tuple[str, Any, list[str]]) -> None:
    base, page, _ = reader
    page.goto(f"{base}/ICML2026/")
    hot = page.locator("article p", has_text="高频主题").locator("a").first
    tag = hot.inner_text().split(" ×")[0]
    hot.click()
    page.wait_for_load_state()
    assert page.locator("article h1").first.inner_text().rstrip("¶") == f"🏷️ {tag}"
    assert "/tags/" in page.url and "#v-ICML2026" in page.url
    assert page.locator("#v-ICML2026").count() == 1


def test_related_papers_and_the_feed_are_there(reader: tuple[str, Any, list[str]], demo_site: Path) -> None:
    base, page, _ = reader
    paper = next(p for p in sorted(demo_site.glob("ICML2026/*/*/index.html")))
    page.goto(f"{base}/{paper.parent.relative_to(demo_site).as_posix()}/")
    related = page.locator("article h2", has_text="相关论文")
    assert related.count() == 1
    assert page.locator("article ul li a").count() >= 1
    page.goto(f"{base}/ICML2026/")
    feed = page.locator("article a", has_text="订阅").first.get_attribute("href")
    assert feed is not None and (feed == "feed.xml" or feed.endswith("/ICML2026/feed.xml"))
    assert page.locator('head link[rel~="alternate"][type="application/atom+xml"]').count() == 1
    answer = page.request.get(f"{base}/ICML2026/feed.xml")
    assert answer.ok and answer.text().startswith('<?xml version="1.0" encoding="utf-8"?>\n<feed')


def test_math_typesets_and_no_request_leaves_the_site(reader: tuple[str, Any, list[str]], demo_site: Path) -> None:
    base, page, requests = reader
    page.goto(f"{base}/ICLR2026/")
    for field in sorted(demo_site.glob("*/*/index.html")):
        page.goto(f"{base}/{field.parent.relative_to(demo_site).as_posix()}/")
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000)
    page.evaluate("() => MathJax.startup.promise")
    assert page.locator("mjx-container").count() >= 1 or "\\(" not in page.locator("article").inner_text()
    outside = sorted({url for url in requests if not url.startswith((base, "data:", "about:"))})
    assert outside == []
    assert any("/javascripts/mathjax/tex-mml-chtml.js" in url for url in requests)
