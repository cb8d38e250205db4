"""The generated site builds with ``mkdocs build --strict`` (offline) and its HTML reads as the format describes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from test_build import sample_store

from conftest import REAL_FIXTURES, Project
from summarizer.site.build import build_site


class _Article(HTMLParser):
    """The visible text of each <h1>, <p> and <dt> inside the page's article."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._depth = 0
        self._in_article = False
        self._current: list[str] | None = None
        self.scripts_in_content = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "article" and "md-content__inner" in classes:
            self._in_article = True
        if self._in_article and tag in ("h1", "p", "dt"):
            self._current = []
        if self._in_article and tag in ("script", "b"):
            self.scripts_in_content += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._in_article = False
        if self._current is not None and tag in ("h1", "p", "dt"):
            self.blocks.append(" ".join("".join(self._current).split()))
            self._current = None

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._current.append(data)


def mkdocs_build(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_PROXY": "*"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)


def broken_links(html_root: Path) -> list[str]:
    """Relative links in the built HTML whose target is not there (the cross-venue line is raw HTML,
    which ``mkdocs build --strict`` does not check)."""
    broken = []
    for page in html_root.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text("utf-8"))
        for href in parser.hrefs:
            path = unquote(href.split("#", 1)[0].split("?", 1)[0])
            if not path or "://" in path or path.startswith(("/", "mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / path).resolve()
            if not (target.is_file() or (target / "index.html").is_file()):
                broken.append(f"{page.relative_to(html_root)}: {href}")
    return broken


def article(path: Path) -> _Article:
    parser = _Article()
    parser.feed(path.read_text("utf-8"))
    return parser


@pytest.mark.slow
@pytest.mark.parametrize("drafts", [False, True], ids=["site", "preview"])
def test_mkdocs_build_strict_and_pages_read_as_written(project: Project, drafts: bool) -> None:
    settings, store = sample_store(project)
    root = Path(build_site(settings, store, None, drafts=drafts).subject)
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr

    page = article(root / "site" / "ICML2026" / "llm_pretraining" / "index.html")
    n = 5 if drafts else 4
    assert page.blocks[0] == "📚 预训练¶"
    assert page.blocks[1] == f"🧪 ICML2026 · {n} 篇论文解读"
    cross = "📌 同领域跨会议浏览： 🔬 ICLR2026 (2)" + (" · 💬 ACL 2026 (1)" if drafts else "")
    assert page.blocks[2] == cross
    assert page.blocks[3].startswith("🔥 高频主题： LLM ×")
    assert page.blocks[-1] == "📡 订阅本方向的新论文（Atom）"
    # Each paper: its title (the definition list's term) and its summary, read as "title: summary".
    entries = page.blocks[4:-1]
    papers = [f"{title}: {summary}" for title, summary in zip(entries[::2], entries[1::2], strict=True)]
    assert len(papers) == n
    if drafts:
        assert papers[0].startswith("A Draft That Is Not Published: ") and papers[0].endswith("（📝 草稿）")
        papers = papers[1:]
    assert papers[0] == (
        "Annotations <b>Mitigate</b> Mode Collapse: 本文发现 <script>alert(1)</script> 式的注入不会执行；"
        "作者把 SFT 的 *低熵* 先验与 __init__ 风格的 tag 对齐，d_model 保持不变，语义多样性差距缩小 85%×2。"
    )
    html = (root / "site" / "ICML2026" / "llm_pretraining" / "index.html").read_text("utf-8")
    assert "风格的 <code>tag</code> 对齐" in html and "<strong>语义多样性</strong>差距" in html  # the Markdown subset
    assert papers[1] == (
        "d²Cache: Caching for Diffusion LMs: 作者提出 d²Cache，在 [expand] 阶段只更新 <3% 的 token，"
        "把吞吐提高 \\(4.2\\times\\)，并与 μP 兼容，适用于 \\(O(n^2)\\) 注意力的扩散语言模型。"
    )
    assert papers[2].startswith("DreamOn: Diffusion Language Models: ")
    assert page.scripts_in_content == 0  # HTML in titles and summaries stayed text

    assert broken_links(root / "site") == []
    cross = '<a href="../../ICLR2026/llm_pretraining/">🔬 ICLR2026 (2)</a>'
    assert cross in (root / "site" / "ICML2026" / "llm_pretraining" / "index.html").read_text("utf-8")

    home = article(root / "site" / "index.html")
    assert any(block.startswith("论文解读") for block in home.blocks)
    assert (root / "site" / "ICLR2026" / "index.html").is_file()


def test_a_build_of_one_venue_after_a_full_build_still_passes_strict(project: Project) -> None:
    from test_build import add

    from conftest import summary_text

    settings, store = sample_store(project)
    root = Path(build_site(settings, store, None, drafts=False).subject)
    # A new approved paper in a field ICLR2026 had no page for, then a build of ICML2026 only.
    add(store, "ICLR2026", "2602.00031", "A New Field Paper", summary_text("图像"), ["扩散模型"], "llm_reasoning",
        arxiv_id="2602.00031", status="approved")  # fmt: skip
    build_site(settings, store, ["ICML2026"], drafts=False)
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-2000:]
    assert broken_links(root / "site") == []


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<a href="../b/">b</a> <a href="../a/">a</a> <a href="https://x/">x</a>')
    assert broken_links(tmp_path) == ["a/index.html: ../b/"]


class _NavEvents(HTMLParser):
    """The primary sidebar's tags, attributes and text, white space folded: what a reader's browser gets."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[object, ...]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if not self._depth and not (tag == "nav" and "md-nav--primary" in classes):
            return
        self._depth += tag == "nav"
        self.events.append(("start", tag, sorted((k, " ".join((v or "").split())) for k, v in attrs)))

    def handle_endtag(self, tag: str) -> None:
        if self._depth:
            self.events.append(("end", tag))
            self._depth -= tag == "nav"

    def handle_data(self, data: str) -> None:
        if self._depth and data.split():
            self.events.append(("text", " ".join(data.split())))


def _nav_events(html: str) -> list[tuple[object, ...]]:
    parser = _NavEvents()
    parser.feed(html)
    assert parser.events, "no primary navigation found"
    return parser.events


def test_the_lean_nav_override_renders_materials_own_navigation(project: Project, tmp_path: Path) -> None:
    """overrides/partials/nav-item.html is only faster: every page's sidebar is Material's, element for element."""
    settings, store = sample_store(project)
    root = Path(build_site(settings, store, None, drafts=False).subject)
    assert "custom_dir: overrides" in (root / "mkdocs.yml").read_text("utf-8")
    # The same site with Material's own nav-item.html (the other overrides kept).
    shutil.copytree(root / "overrides", root / "overrides-material")
    (root / "overrides-material" / "partials" / "nav-item.html").unlink()
    plain = root / "mkdocs.material.yml"
    text = (root / "mkdocs.yml").read_text("utf-8")
    plain.write_text(text.replace("custom_dir: overrides ", "custom_dir: overrides-material "), "utf-8")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    for config, out in ((root / "mkdocs.yml", tmp_path / "lean"), (plain, tmp_path / "material")):
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(out)],
            cwd=root, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    pages = sorted((tmp_path / "lean").rglob("index.html"))
    assert len(pages) >= 5
    for page in pages:
        twin = tmp_path / "material" / page.relative_to(tmp_path / "lean")
        assert _nav_events(page.read_text("utf-8")) == _nav_events(twin.read_text("utf-8")), page


def _reference_line(path: Path) -> dict[str, object]:
    """One real reference note as an import line (the real notes' bold header, not the example's)."""
    text = path.read_text("utf-8")
    title = re.search(r"^# (.+)$", text, re.M)
    arxiv = re.search(r"arxiv\.org/abs/(\d{4}\.\d{4,5})", text)
    keywords = re.search(r"\*\*关键词\*\*[:：]\s*(.+)$", text, re.M)
    summary = re.search(r"^## 一句话总结\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    tags = [t.strip() for t in re.split(r"[,，、]", keywords.group(1)) if t.strip()][:5] if keywords else []
    line: dict[str, object] = {
        "venue": path.parent.parent.name,
        "title": title.group(1).strip() if title else path.stem,
        "summary": summary.group(1).strip() if summary else "",
        "tags": [t[:40] for t in tags],
        "field": path.parent.name,
        "status": "approved",
    }
    if arxiv:
        line["arxiv_id"] = arxiv.group(1)
    return line


@pytest.mark.slow
def test_the_imported_reference_corpus_builds_strict(project: Project) -> None:
    """The reference site's real notes (../shared), imported and built: every link resolves, strict passes."""
    notes = REAL_FIXTURES / "notes"
    if not notes.is_dir():
        pytest.skip("../shared/fixtures/real/notes is not beside the checkout")
    paths = sorted(notes.glob("*/*/*.md"))
    venues = sorted({p.parent.parent.name for p in paths})
    fields = sorted({p.parent.name for p in paths})
    project.write_config(venues=[{"id": v} for v in venues], fields=[{"id": f, "name": f} for f in fields])
    rows = [json.dumps(_reference_line(p), ensure_ascii=False) for p in paths]
    (project.root / "notes.jsonl").write_text("\n".join(rows) + "\n", "utf-8")
    env = {**os.environ, "SUMMARIZER_CONFIG": str(project.root / "config.yaml")}
    for args in (["import", "notes.jsonl", "--skip-invalid"], ["build"]):
        done = subprocess.run([sys.executable, "-m", "summarizer", *args], cwd=project.root, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode in (0, 1), done.stderr[-2000:]
    root = project.root / "outputs" / "site"
    assert len(list((root / "docs").glob("*/*/*.md"))) >= 30  # the paper pages (and field pages)
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr
    assert broken_links(root / "site") == []
