"""The site's search in real Chromium: a page is a result exactly when its text holds the query.

Sites are built (``summarizer build`` and ``mkdocs build --strict``, Pagefind in the site's hook) and
served on 127.0.0.1; each query goes through the search page's own code (``window.siteSearch``, what
its list shows, every result) and the URLs it returns are compared with the paper pages whose indexed
text holds the query, read from the same built pages in the same browser (``innerText`` of the
indexed body, TeX and heading anchors taken off).  Chinese is a substring match; Latin words match
by prefix, case folded; several terms must all match.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_mkdocs import mkdocs_build
from test_note_browser import note_files, papers_for

from browser import chromium, serve_directory
from conftest import Project, RunCli
from summarizer.core.records import Record

pytestmark = pytest.mark.slow  # real Chromium and MkDocs builds

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RUN = re.compile(f"[{HAN}]+")
# A query's terms and a page's words as search.js splits them: Han runs, and runs of other letters and digits.
TERMS = re.compile(f"[{HAN}]+|(?:(?![{HAN}])[^\\W_])+")
# The text search indexes on a paper page: its indexed body as a reader sees it, without TeX source or ¶.
PAGE_TEXT = """() => {
  const body = document.querySelector('[data-pagefind-body]').cloneNode(true)
  body.querySelectorAll('.arithmatex, .headerlink, .search-terms').forEach(e => e.remove())
  document.body.appendChild(body)
  const text = body.innerText
  body.remove()
  return text
}"""

# Generated papers: words glued into longer ones, at the start and end of a clause, split by
# punctuation, a phrase whose pairs a page holds apart, Latin words in several cases.
PAPERS = {
    "glued": ("Human Alignment at Scale", "我们研究人类对齐问题，并提出结构化剪枝方法来压缩模型，实验基于 LoRA 微调。"),
    "start": ("Pruning First", "对齐是本文的核心，剪枝只是手段；我们在 KV cache 量化上验证。"),
    "end": ("Clause Ends", "本文讨论模型压缩中的剪枝，最后给出与偏好的对齐。显存占用下降一半。"),
    "apart": ("Pairs Apart", "人类很多，种类对比，对齐数据少：三个字对都在，那个词不在。"),
    "split": ("Split By Punctuation", "我们反对，齐心协力地做对比学习与对象检测，分页管理显存之外的缓存。"),
    "none": ("Nothing Shared", "一种用于图像生成的扩散模型，通过蒸馏减少采样步数，不涉及别的内容。"),
    "latin": ("LoRAX Adapters", "本文提出 LoRAX 适配器，在 kv 缓存上做量化，并与 lora 基线对比。"),
}
WORDS = [
    "对齐", "剪枝", "人类对齐", "结构化剪枝", "类对", "对", "齐", "剪", "显存", "分页", "量化", "对比",
    "的剪枝", "本文", "种类对比", "LoRA", "lora", "LoRAX", "kv", "KV cache", "LoRA 微调", "对齐 剪枝",
    "量化 kv", "蒸馏", "模型", "不在", "Scale",
]  # fmt: skip


def holds(text: str, query: str) -> bool:
    """The search's meaning: every term held; a Chinese run as a substring, a Latin word as a word's prefix."""
    words = [w.casefold() for w in TERMS.findall(text)]
    for term in TERMS.findall(query):
        if HAN_RUN.fullmatch(term):
            if term not in text:
                return False
        elif not any(w.startswith(term.casefold()) for w in words):
            return False
    return True


@pytest.fixture
def browser_page() -> Iterator[Any]:
    with chromium() as browser:
        context = browser.new_context()
        page = context.new_page()
        page.route("**/mathjax/**", lambda route: route.abort())  # math is not searched: no need to typeset it
        yield page
        context.close()


def paper_pages(site: Path) -> list[str]:
    return sorted(
        "/" + p.parent.relative_to(site).as_posix() + "/"
        for p in site.glob("*/*/*/index.html")
        if "data-pagefind-body" in p.read_text("utf-8")
    )


def page_texts(page: Any, base: str, site: Path) -> dict[str, str]:
    texts = {}
    for url in paper_pages(site):
        page.goto(base + url)
        texts[url] = page.evaluate(PAGE_TEXT)
    return texts


def wrong_answers(page: Any, base: str, texts: dict[str, str], words: list[str]) -> list[str]:
    """Each word whose results differ from the pages holding it: what was missed and what was extra."""
    page.goto(base + "/search/")
    page.wait_for_function("window.siteSearch !== undefined", timeout=30_000)
    wrong = []
    for word in words:
        found = page.evaluate("q => window.siteSearch(q)", word)
        assert len(found) == len(set(found)), word
        expected = {url for url, text in texts.items() if holds(text, word)}
        if set(found) != expected:
            wrong.append(f"{word}: missed {sorted(expected - set(found))}, extra {sorted(set(found) - expected)}")
    return wrong


def generated_site(project: Project) -> Path:
    project.write_config(venues=[{"id": "ICML2026"}, {"id": "ICLR2026"}])
    store = project.store()
    for i, (key, (title, summary)) in enumerate(PAPERS.items()):
        record = Record(venue=("ICML2026", "ICLR2026")[i % 2], id=f"2601.0000{i}", title=title, authors=["A. Author"])
        record.summaries.add_version(summary, ["剪枝"] if key == "start" else ["LLM"], "llm_reasoning", "import")
        record.summaries.approve()
        store.save(record)
    root = project.root / "outputs" / "site"
    return root


def test_generated_pages_are_found_exactly(project: Project, cli: RunCli, browser_page: Any) -> None:
    root = generated_site(project)
    assert cli("build").code == 0
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    site = root / "site"
    with serve_directory(site) as base:
        texts = page_texts(browser_page, base, site)
        assert len(texts) == len(PAPERS)
        # The oracle itself: each kind of word is where the papers above put it.
        assert sum(holds(t, "对齐") for t in texts.values()) == 4
        assert sum(holds(t, "人类对齐") for t in texts.values()) == 1
        assert not holds(texts[next(u for u, t in texts.items() if "Split" in t)], "对齐")
        wrong = wrong_answers(browser_page, base, texts, WORDS)
        assert not wrong, "\n".join(wrong)
        # The search page as a reader uses it: the count, and a title match above a body match.
        browser_page.goto(f"{base}/search/?q={quote('LoRAX')}")
        browser_page.wait_for_selector(".search-result")
        assert browser_page.locator(".search-count").inner_text() == "找到 1 篇"
        snippet = browser_page.locator(".search-result__snippet mark").first.inner_text()
        assert snippet == "LoRAX"
        browser_page.goto(f"{base}/search/?q={quote('剪枝')}")
        browser_page.wait_for_selector(".search-result")
        assert browser_page.locator(".search-result__title").first.inner_text() == "Pruning First"


def drawn_words(texts: dict[str, str], count: int, seed: int = 0) -> list[str]:
    """``count`` two- to four-character Chinese words from the pages' text, by a fixed seed."""
    rng = random.Random(seed)
    runs = sorted({run for text in texts.values() for run in HAN_RUN.findall(text) if len(run) >= 2})
    words: list[str] = []
    while len(words) < count:
        run = rng.choice(runs)
        size = rng.randint(2, min(4, len(run)))
        start = rng.randint(0, len(run) - size)
        if run[start : start + size] not in words:
            words.append(run[start : start + size])
    return words


def test_the_real_notes_are_found_exactly(
    project: Project, cli: RunCli, real_fixtures: Path, browser_page: Any
) -> None:
    folder = real_fixtures / "notes"
    store = papers_for(project, folder)
    assert cli("import", str(folder)).code == 0
    keywords = []
    for path in note_files(folder):
        found = re.search(r"^\*\*关键词\*\*[:：]\s*(.+)$", path.read_text("utf-8"), re.MULTILINE)
        keywords += [k.strip() for k in re.split(r"[,，、]", found.group(1)) if k.strip()] if found else []
    for venue in store.venues():
        for record in store.records(venue):
            record.notes.approve(1)
            store.save(record)
    root = project.root / "outputs" / "site"
    assert cli("build").code == 0
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    with serve_directory(root / "site") as base:
        texts = page_texts(browser_page, base, root / "site")
        words = drawn_words(texts, 120) + sorted(set(keywords))
        assert len(keywords) >= 30 and len(texts) >= 30
        wrong = wrong_answers(browser_page, base, texts, words)
        assert not wrong, f"{len(wrong)} of {len(words)} words:\n" + "\n".join(wrong)
