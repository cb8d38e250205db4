"""The digest site: golden pages, tallies and ordering, escaping that renders as written, rebuilds.

Regenerate the golden files with ``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/site/test_build.py``
and read the diff before committing it.
"""

from __future__ import annotations

import contextlib
import os
import random
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import Project, RunCli, summary_text
from summarizer.core.config import Settings
from summarizer.core.markdown_dialect import markdown_extensions
from summarizer.core.progress import Bar, Progress
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.site.build import build_site
from summarizer.site.markdown_text import (
    escape_inline,
    escape_link_text,
    escape_summary,
    split_math,
    summary_pieces,
    yaml_scalar,
)
from summarizer.site.pages import PageEntry, sort_entries
from summarizer.site.site_files import SHIPPED, THEME_FILES, mathjax_es5, mathjax_files
from summarizer.site.tags import tally, top_tags

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
VENUES3 = [
    {"id": "ICML2026", "emoji": "🧪"},
    {"id": "ICLR2026", "emoji": "🔬"},
    {"id": "ACL2026", "emoji": "💬", "name": "ACL 2026"},
]


def add(
    store: Store,
    venue: str,
    pid: str,
    title: str,
    summary: str,
    tags: list[str],
    field: str,
    *,
    status: str = "approved",
    arxiv_id: str | None = None,
    url: str | None = None,
    pending: tuple[str, list[str], str] | None = None,
) -> Record:
    record = Record(venue=venue, id=pid, title=title, arxiv_id=arxiv_id, url=url)
    record.summaries.add_version(summary, tags, field, "import", created_at="2026-01-01T00:00:00Z")
    if status == "approved":
        record.summaries.approve()
    else:
        record.summaries.status = status  # type: ignore[assignment]
    if pending is not None:
        record.summaries.add_version(*pending, origin="llm", created_at="2026-01-02T00:00:00Z")
    store.save(record)
    return record


def sample_store(project: Project) -> tuple[Settings, Store]:
    """Three venues, three fields, papers in every state the builder must tell apart."""
    project.write_config(venues=VENUES3, site={"title": "论文解读", "hot_topics": {"top_k": 3, "min_count": 2}})
    settings = project.settings()
    store = Store(settings.outputs_dir)
    s = summary_text
    # ICML2026 / pretraining: ties, Unicode ordering, math, brackets, HTML, a pending draft.
    add(
        store,
        "ICML2026",
        "2601.00011",
        "DreamOn: Diffusion Language Models",
        s("扩散语言模型"),
        ["扩散模型", "LLM"],
        "llm_pretraining",
        arxiv_id="2601.00011v2",
    )
    add(
        store,
        "ICML2026",
        "2601.00012",
        "d²Cache: Caching for Diffusion LMs",
        "作者提出 d²Cache，在 [expand] 阶段只更新 <3% 的 token，把吞吐提高 \\(4.2\\times\\)，并与 μP 兼容，"
        "适用于 $O(n^2)$ 注意力的扩散语言模型。",
        ["扩散模型", "推理加速"],
        "llm_pretraining",
        arxiv_id="2601.00012",
    )
    add(
        store,
        "ICML2026",
        "2601.00013",
        "Annotations <b>Mitigate</b> Mode Collapse",
        "本文发现 <script>alert(1)</script> 式的注入不会执行；作者把 SFT 的 *低熵* 先验与 __init__ 风格的 `tag` "
        "对齐，d_model 保持不变，**语义多样性**差距缩小 85%×2。",
        ["LLM", "对齐"],
        "llm_pretraining",
        url="https://example.org/paper?id=13&v=1",
    )
    add(
        store,
        "ICML2026",
        "2601.00014",
        "Ångström-Scale Tokenizers",
        s("分词器"),
        ["分词", "对齐"],
        "llm_pretraining",
        pending=(s("分词器（修订）"), ["分词"], "llm_pretraining"),
    )
    add(
        store,
        "ICML2026",
        "draft-only-paper",
        "A Draft That Is Not Published",
        s("草稿"),
        ["LLM"],
        "llm_pretraining",
        status="draft",
    )
    add(
        store,
        "ICML2026",
        "rejected-paper",
        "A Rejected Paper",
        s("被拒"),
        ["LLM"],
        "llm_pretraining",
        status="rejected",
    )
    add(
        store,
        "ICML2026",
        "2601.00015",
        "Chain of Thought at Scale",
        s("推理"),
        ["推理", "LLM"],
        "llm_reasoning",
        arxiv_id="2601.00015",
    )
    # ICLR2026: pretraining and image generation; a paper with no link at all.
    add(
        store,
        "ICLR2026",
        "2602.00021",
        "Scaling Laws Revisited",
        s("缩放定律"),
        ["Scaling Law", "LLM"],
        "llm_pretraining",
        arxiv_id="2602.00021",
    )
    add(store, "ICLR2026", "no-link-paper", "Untitled Workshop Paper [v2]", s("无链接"), ["LLM"], "llm_pretraining")
    add(
        store,
        "ICLR2026",
        "2602.00022",
        "Latent Diffusion Without Latents",
        s("图像生成"),
        ["扩散模型"],
        "image_generation",
        arxiv_id="2602.00022",
    )
    add(
        store,
        "ICLR2026",
        "2602.00023",
        "A Reasoning Draft",
        s("推理草稿"),
        ["推理"],
        "llm_reasoning",
        status="draft",
        arxiv_id="2602.00023",
    )
    # ACL2026: only a draft in pretraining, so the published site has no ACL pretraining page.
    add(
        store,
        "ACL2026",
        "2603.00031",
        "Multilingual Pretraining Draft",
        s("多语言"),
        ["LLM", "多语言"],
        "llm_pretraining",
        status="draft",
        arxiv_id="2603.00031",
    )
    add(
        store,
        "ACL2026",
        "2603.00032",
        "Reasoning in 中文",
        s("中文推理"),
        ["推理"],
        "llm_reasoning",
        arxiv_id="2603.00032",
    )
    return settings, store


# MathJax's own files (the same bytes as the package's: test_site_serves_mathjax_itself) and the related
# papers' cache and the pages' fingerprints are not golden.
NOT_GOLDEN = ("docs/javascripts/mathjax/", ".summarizer-related", ".summarizer-rendered")


def site_files(root: Path) -> dict[str, bytes]:
    files = (p for p in sorted(root.rglob("*")) if p.is_file())
    return {rel: p.read_bytes() for p in files if not (rel := str(p.relative_to(root))).startswith(NOT_GOLDEN)}


@pytest.mark.parametrize("drafts", [False, True], ids=["site", "preview"])
def test_golden_site(project: Project, drafts: bool) -> None:
    settings, store = sample_store(project)
    report = build_site(settings, store, None, drafts=drafts)
    root = Path(report.subject)
    assert root == settings.outputs_dir / ("preview" if drafts else "site")
    got = site_files(root)
    golden = GOLDEN / ("preview" if drafts else "published")
    if os.environ.get("UPDATE_GOLDEN") == "1":
        for rel, data in got.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_bytes(data)
        for stale in set(site_files(golden)) - set(got):
            (golden / stale).unlink()
    want = site_files(golden)
    assert sorted(got) == sorted(want)
    for rel in want:
        assert got[rel].decode() == want[rel].decode(), rel


def test_site_is_approved_only_and_preview_marks_drafts(project: Project) -> None:
    settings, store = sample_store(project)
    site = Path(build_site(settings, store, None, drafts=False).subject)
    page = (site / "docs/ICML2026/llm_pretraining/index.md").read_text("utf-8")
    assert "**🧪 ICML2026** · **4** 篇论文解读" in page
    assert "Draft That Is Not Published" not in page and "Rejected" not in page
    assert "分词器（修订）" not in page and "分词器的新方法" in page  # the approved version, not the pending one
    assert not (site / "docs/ACL2026/llm_pretraining").exists()
    assert "ACL" not in page.split("🔥")[0].split("📌")[1]  # no ACL in the cross-venue line of the site

    preview = Path(build_site(settings, store, None, drafts=True).subject)
    page = (preview / "docs/ICML2026/llm_pretraining/index.md").read_text("utf-8")
    assert "**🧪 ICML2026** · **5** 篇论文解读" in page
    assert "Rejected" not in page
    assert "A Draft That Is Not Published" in page and "*（📝 草稿）*" in page
    assert "分词器（修订）" in page and "*（📝 修订待审）*" in page
    assert '<a href="../../ACL2026/llm_pretraining/">💬 ACL 2026 (1)</a>' in page


def test_cross_venue_line_in_config_order_with_counts(project: Project) -> None:
    settings, store = sample_store(project)
    # A venue name is text too: HTML-escaped in the line (it is raw HTML, for build speed).
    project.write_config(venues=[*VENUES3, {"id": "NIPS2026", "name": 'A <b>"&" Venue', "emoji": "🅰"}])
    add(store, "NIPS2026", "n1", "N", summary_text(), ["LLM"], "llm_pretraining")
    root = Path(build_site(project.settings(), store, None, drafts=True).subject)
    page = (root / "docs/ICLR2026/llm_pretraining/index.md").read_text("utf-8")
    assert '<a href="../../NIPS2026/llm_pretraining/">🅰 A &lt;b&gt;&quot;&amp;&quot; Venue (1)</a></p>' in page
    project.write_config(venues=VENUES3)
    root = Path(build_site(settings, store, None, drafts=True).subject)
    page = (root / "docs/ICLR2026/llm_pretraining/index.md").read_text("utf-8")
    assert (
        '<p data-part="cross">📌 <strong>同领域跨会议浏览：</strong> <a href="../../ICML2026/llm_pretraining/">'
        "🧪 ICML2026 (5)</a>"
        ' · <a href="../../ACL2026/llm_pretraining/">💬 ACL 2026 (1)</a></p>\n'
    ) in page
    # image_generation exists only at ICLR2026: no cross-venue line at all.
    only = (root / "docs/ICLR2026/image_generation/index.md").read_text("utf-8")
    assert "📌" not in only


def entry(title: str, tags: list[str]) -> PageEntry:
    record = Record(venue="V", id=title.replace(" ", "-") or "x", title=title)
    version = record.summaries.add_version(summary_text(), tags, "f", "import")
    return PageEntry(record, version, tuple(tags))


def hot_topics(entries: list[PageEntry], top_k: int, min_count: int) -> list[tuple[str, int]]:
    return top_tags(tally(e.tags for e in entries), top_k, min_count)


def test_hot_topics_count_a_tag_once_whatever_its_case_in_its_most_common_spelling() -> None:
    spellings = [["benchmark"], ["Benchmark"], ["benchmark"], ["BENCHMARK", "benchmark"], ["LLM"]]
    entries = [entry(f"p{i}", tags) for i, tags in enumerate(spellings)]
    assert hot_topics(entries, 3, 1) == [("benchmark", 4), ("LLM", 1)]
    # A tie between spellings: the one that sorts first, whatever order the papers come in.
    assert hot_topics([entry("a", ["Benchmark"]), entry("b", ["benchmark"])], 3, 1) == [("Benchmark", 2)]
    assert hot_topics([entry("b", ["benchmark"]), entry("a", ["Benchmark"])], 3, 1) == [("Benchmark", 2)]


def test_hot_topics_ties_min_count_and_top_k() -> None:
    entries = [entry("a", ["b", "LLM"]), entry("b", ["a", "LLM"]), entry("c", ["a", "b"]), entry("d", ["z"])]
    assert hot_topics(entries, 3, 2) == [("a", 2), ("b", 2), ("LLM", 2)]  # ties by (casefolded) name
    assert hot_topics(entries, 2, 2) == [("a", 2), ("b", 2)]
    assert hot_topics(entries, 3, 3) == []
    assert hot_topics(entries, 0, 1) == []
    assert hot_topics(entries, 9, 1)[-1] == ("z", 1)
    # A tag repeated in one paper counts once.
    assert hot_topics([entry("x", ["LLM", "LLM"])], 3, 1) == [("LLM", 1)]


def test_titles_sort_nfkc_casefolded() -> None:
    titles = ["DreamOn", "d²Cache", "Ångström", "apple", "Zeta", "ｆｕｌｌｗｉｄｔｈ", "中文标题", "beta"]
    got = [e.record.title for e in sort_entries([entry(t, ["x"]) for t in titles])]
    assert got == ["apple", "beta", "d²Cache", "DreamOn", "ｆｕｌｌｗｉｄｔｈ", "Zeta", "Ångström", "中文标题"]


def test_hot_topic_line_absent_when_none_qualifies(project: Project) -> None:
    project.write_config(site={"hot_topics": {"top_k": 3, "min_count": 5}})
    settings = project.settings()
    store = Store(settings.outputs_dir)
    add(store, "ICML2026", "p1", "One", summary_text(), ["LLM"], "llm_pretraining")
    root = Path(build_site(settings, store, None, drafts=False).subject)
    page = (root / "docs/ICML2026/llm_pretraining/index.md").read_text("utf-8")
    assert "🔥" not in page and "📌" not in page
    assert "description: ICML2026 预训练方向 1 篇论文的中文解读。\n" in page


# -- rendering: the page says what was written ----------------------------------------


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend((tag, name, value) for name, value in attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def render(source: str) -> _Visible:
    names, options = markdown_extensions()  # the site's own, the reference's: attr_list, critic, mark …
    md = markdown.Markdown(extensions=names, extension_configs=options)
    parser = _Visible()
    parser.feed(md.convert(source))
    return parser


def visible(parser: _Visible) -> str:
    return " ".join("".join(parser.text).split())


def shown_math(segment: str) -> str:
    """Math as arithmatex writes it on the page: ``$x$`` becomes ``\\(x\\)``."""
    return "\\(" + segment[1:-1] + "\\)" if segment.startswith("$") else segment


def shown(text: str) -> str:
    """What a reader sees for a title: itself, with its math as arithmatex writes it."""
    return "".join(shown_math(seg) if is_math else seg for is_math, seg in split_math(" ".join(text.split())))


def shown_summary(text: str) -> tuple[str, int, int]:
    """What a reader sees for a summary (bold marks and code backticks gone), and its bold and code counts."""
    out, bold, code = [], 0, 0
    for kind, segment in summary_pieces(text):
        if kind == "math":
            out.append(shown_math(segment))
        elif kind == "code":
            out.append(segment[1:-1])
            code += 1
        elif kind == "bold":
            bold += 1
        else:
            out.append(segment)
    return "".join(out), bold // 2, code


def assert_renders_as_written(title: str, summary: str) -> None:
    source = f"**[{escape_link_text(title)}](https://arxiv.org/abs/2601.00001)**: {escape_summary(summary)}"
    page = render(source)
    seen, bold, code = shown_summary(summary)
    assert visible(page) == " ".join(f"{shown(title)}: {seen}".split()), source
    assert page.tags.count("a") == 1 and page.tags.count("strong") == 1 + bold, source
    assert page.tags.count("code") == code, source
    assert set(page.tags) <= {"p", "strong", "a", "span", "code"}, source
    # No attribute from the text: only the title's link and arithmatex's own class.
    assert set(page.attrs) <= {("a", "href", "https://arxiv.org/abs/2601.00001"), ("span", "class", "arithmatex")}


CASES = [
    ("d²Cache", "吞吐提高 \\(4.2\\times\\)，只更新 <3% 的 token，与 μP 兼容。"),
    ("Brackets [expand] stay", "在 [expand] 阶段与 [MASK] token 上，复杂度 $O(n^2)$。"),
    ("<script>alert(1)</script>", "<b>粗体</b> 与 <script>x()</script> 都按文字显示，<!-- 注释 --> 亦然。"),
    ("A [link](https://evil.example) inside", "摘要里的 [点我](javascript:alert(1)) 与 ![img](x.png) 不是链接。"),
    ("Q*: stars *and* _under_ `code`", "**粗** *斜* __init__ 与 d_model、snake_case_name 与 `code` 照原样。"),
    ("Unbalanced ] bracket [", "反斜杠 \\* 与 \\_ 与 C:\\path\\ 以及 \\[x\\] 原样显示。"),
    ("Entities &amp; &lt;", "写下的 &lt;tag&gt; 与 &#91; 与 AT&T 照原样，<me@example.com> 不是邮件链接。"),
    ("Math {after}", "\\(x\\){: .cls} 后的花括号保留，$5 与 $10 是钱，\\(a_{i}^{*}\\) 是公式。"),
    ("Display \\[E=mc^2\\] inline", "段内 \\[ \\sum_i x_i \\] 与 $$y$$ 显示为所写。"),
    ("A* Search", "A* 搜索与 Pr-A* 照原样，** 不成对 与 **未闭合，** 两侧有空格 ** 也不加粗。"),
    ("Attributes", "**粗**{: onclick=alert(1)} 与 `x`{: .cls} 与 **\\(x\\)**{: #id} 都不是属性。"),
    ("Code keeps", "`<script>alert(1)</script>` 与 `**不加粗**` 与 `$x$` 与 `&lt;` 在代码里照原样。"),
    ("Bold holds", "**含 \\(O(n\\log n)\\) 与 `code` 的粗体** 与 ***三星*** 与 ``双反引号``。"),
]


@pytest.mark.parametrize(("title", "summary"), CASES)
def test_escaping_renders_as_written(title: str, summary: str) -> None:
    assert_renders_as_written(title, summary)


def test_bold_and_code_render_as_strong_and_code() -> None:
    page = markdown.markdown(escape_summary("本文用 **关键机制** 替换 `softmax`，A* 搜索与 Pr-A* 不变。"))
    assert page == "<p>本文用 <strong>关键机制</strong> 替换 <code>softmax</code>，A* 搜索与 Pr-A* 不变。</p>"


def test_escaping_leaves_math_and_plain_text_untouched() -> None:
    text = "把延迟降低 \\(2.1\\times\\)，在 [expand] 阶段 <3% 的 ×、μP、d²Cache 与 $L=\\alpha N^{-\\beta}$ 不变。"
    assert escape_inline(text) == text
    assert escape_summary(text) == text
    assert "\\[" not in escape_inline("[expand] [MASK]")
    assert escape_inline("<script>") == "&lt;script>"
    assert escape_inline("[a](b)") == "[a&#93;(b)"


# Text made of the pieces Markdown, HTML, arithmatex and attr_list react to, and any printable character.
_SYNTAX = [
    *"ab 中_*`$\\[](){}<>&!#:@/.-+=",
    *["\\(", "\\)", "\\[", "\\]", "<b>", "&lt;", "<3", "$$", "**", "{:", "\\href"],
    *["\\(x\\)", "$x$", "`x`", "**x**", "{: .c}", "{#i}", "](", "A*"],
    *["{++", "++}", "{--", "--}", "{==", "==}", "{>>", "<<}", "{~~", "~>", "~~}", "==", "!!! ", "??? ", "[ ] "],
]
_PIECE = st.one_of(
    st.sampled_from(_SYNTAX),
    st.characters(categories=("L", "N", "P", "S"), exclude_characters="\x7f"),
)
_TEXT = st.lists(_PIECE, min_size=1, max_size=24).map("".join)


@settings(max_examples=1500, deadline=None, derandomize=True, database=None)
@given(title=_TEXT, summary=_TEXT)
def test_any_text_renders_as_written(title: str, summary: str) -> None:
    assert_renders_as_written(title, summary)


def test_yaml_scalar_round_trips() -> None:
    import yaml

    for text in ["ICML2026 预训练 · 17 篇论文解读", "a: b", "#tag", "- x", "yes", "'q'", '"q"', "x #y", "123", ""]:
        assert yaml.safe_load(f"k: {yaml_scalar(text)}") == {"k": text}


# -- rebuilds ---------------------------------------------------------------------------


def test_second_build_writes_nothing_and_same_bytes(project: Project) -> None:
    settings, store = sample_store(project)
    first = build_site(settings, store, None, drafts=False)
    before = site_files(Path(first.subject))
    second = build_site(settings, store, None, drafts=False)
    assert second.written == [] and len(second.unchanged) == len(first.written)
    assert site_files(Path(second.subject)) == before


def test_stale_pages_are_removed_but_foreign_files_kept(project: Project) -> None:
    settings, store = sample_store(project)
    root = Path(build_site(settings, store, None, drafts=False).subject)
    foreign = root / "docs" / "about" / "index.md"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("# mine\n", "utf-8")
    record = store.load("ICLR2026", "2602.00022")
    record.summaries.status = "rejected"
    store.save(record)
    report = build_site(settings, store, None, drafts=False)
    assert "docs/ICLR2026/image_generation/index.md" in report.removed
    assert not (root / "docs/ICLR2026/image_generation").exists()
    assert foreign.exists()
    assert "image_generation" not in (root / "mkdocs.yml").read_text("utf-8")


def test_build_of_some_venues_is_a_consistent_site_of_just_those(project: Project) -> None:
    settings, store = sample_store(project)
    root = Path(build_site(settings, store, None, drafts=True).subject)
    add(
        store,
        "ICLR2026",
        "2602.00029",
        "Another Pretraining Paper",
        summary_text("预训练"),
        ["LLM"],
        "llm_pretraining",
        arxiv_id="2602.00029",
    )
    report = build_site(settings, store, ["ICLR2026"], drafts=True)
    assert "docs/ICLR2026/llm_pretraining/index.md" in report.written
    assert "this site now holds only ICLR2026; removed ACL2026, ICML2026" in "\n".join(report.warnings)
    assert not (root / "docs/ICML2026").exists() and not (root / "docs/ACL2026").exists()
    assert any(p.startswith("docs/ICML2026/") for p in report.removed)
    home = (root / "docs/index.md").read_text("utf-8")
    assert "**[🔬 ICLR2026](ICLR2026/index.md)**\n\n    **5** 篇论文解读" in home and "ICML2026" not in home
    iclr = (root / "docs/ICLR2026/llm_pretraining/index.md").read_text("utf-8")
    assert "同领域跨会议浏览" not in iclr  # no other venue in this site: no cross-venue line
    assert "ICML2026" not in (root / "mkdocs.yml").read_text("utf-8")

    # The full build brings every venue back, cross-venue lines included.
    build_site(settings, store, None, drafts=True)
    iclr = (root / "docs/ICLR2026/llm_pretraining/index.md").read_text("utf-8")
    assert '<a href="../../ICML2026/llm_pretraining/">🧪 ICML2026 (5)</a>' in iclr


def test_unknown_field_is_left_off_and_reported(project: Project) -> None:
    settings, store = sample_store(project)
    record = store.load("ICML2026", "2601.00015")
    record.summaries.versions[-1].field = "gone_field"
    store.save(record)
    report = build_site(settings, store, None, drafts=False)
    assert any("ICML2026/2601.00015" in line and "gone_field" in line for line in report.warnings)


def test_build_command_after_import(project: Project, cli: RunCli) -> None:
    rows: list[dict[str, Any]] = [
        {"venue": "ICML2026", "title": "Imported Approved", "summary": summary_text("导入"), "tags": ["LLM"],
         "field": "llm_pretraining", "status": "approved", "arxiv_id": "2601.00099"},
        {"venue": "ICML2026", "title": "Imported Draft", "summary": summary_text("草稿"), "tags": ["LLM"],
         "field": "llm_pretraining"},
    ]  # fmt: skip
    assert cli("import", str(project.write_jsonl("in.jsonl", rows))).code == 0
    result = cli("build")
    assert result.code == 0, result.err
    assert "pages written" in result.err
    page = (project.root / "outputs/site/docs/ICML2026/llm_pretraining/index.md").read_text("utf-8")
    assert "**[Imported Approved](2601.00099.md)**\n\n:   " in page
    paper = (project.root / "outputs/site/docs/ICML2026/llm_pretraining/2601.00099.md").read_text("utf-8")
    assert "[arXiv](https://arxiv.org/abs/2601.00099) · [PDF](https://arxiv.org/pdf/2601.00099)" in paper
    assert "Imported Draft" not in page
    again = cli("build")
    assert "0 pages written" in again.err
    preview = cli("build", "--drafts")
    assert preview.code == 0
    assert "Imported Draft" in (project.root / "outputs/preview/docs/ICML2026/llm_pretraining/index.md").read_text()
    assert cli("build", "NOPE2026").code == 2


@pytest.mark.slow
def test_five_thousand_records_rebuild_writes_nothing(project: Project) -> None:
    venues = [{"id": f"V{i}2026", "emoji": "🧪"} for i in range(8)]
    fields = [{"id": f"field_{i:02d}", "emoji": "📚", "name": f"方向{i}"} for i in range(39)]
    project.write_config(venues=venues, fields=fields)
    settings = project.settings()
    store = Store(settings.outputs_dir)
    rnd = random.Random(5)
    tags = ["LLM", "扩散模型", "推理", "对齐", "多模态", "RL", "Agent", "检索"]
    for n in range(5000):
        venue = venues[n % 8]["id"]
        record = Record(venue=venue, id=f"p{n:05d}", title=f"Paper {rnd.random():.6f} on d²Cache [{n}]",
                        arxiv_id=f"2601.{n:05d}")  # fmt: skip
        record.summaries.add_version(summary_text(), rnd.sample(tags, 3), fields[rnd.randrange(39)]["id"], "import")
        record.summaries.approve()
        store.save(record)
    report = build_site(settings, store, None, drafts=False)
    es5 = mathjax_es5()
    assert es5 is not None
    site = 1 + len(THEME_FILES) + len(SHIPPED) + len(list(mathjax_files(es5)))  # mkdocs.yml, theme, scripts, MathJax
    pages = 3 + len(tags) + 8 * 2 + 8 * 39 * 2 + 5000  # home, search (+ its index); tags; venues, fields (+ feeds)
    assert len(report.written) == site + pages
    again = build_site(settings, store, None, drafts=False)
    assert again.written == []  # timings live in `make bench`


def test_a_latin_field_name_is_spaced_from_chinese() -> None:
    from summarizer.site.pages import _cjk_join

    assert _cjk_join("LLM Agent", "方向") == "LLM Agent 方向"
    assert _cjk_join("预训练", "方向") == "预训练方向"
    assert _cjk_join("对齐 / RLHF", "方向") == "对齐 / RLHF 方向"


class _Counted(Progress):
    """A progress that keeps what a build reported: each bar's name and total, what moved it."""

    def __init__(self) -> None:
        self.bars: list[tuple[str, int]] = []
        self.advanced = 0
        self.shown: list[str] = []

    def bar(self, description: str, total: int) -> contextlib.AbstractContextManager[Bar]:
        self.bars.append((description, total))
        counted = self

        class _Bar(Bar):
            def advance(self, text: str | None = None) -> None:
                counted.advanced += 1

            def show(self, text: str) -> None:
                counted.shown.append(text)

        return contextlib.nullcontext(_Bar())


def test_a_build_reports_each_paper_page_to_its_progress_bar(project: Project) -> None:
    settings, store = sample_store(project)
    published, preview = _Counted(), _Counted()
    build_site(settings, store, None, drafts=False, progress=published)
    build_site(settings, store, None, drafts=True, progress=preview)
    pages = Path(settings.outputs_dir / "site" / "docs")
    papers = [p for p in pages.glob("*/*/*.md") if p.name != "index.md"]
    assert published.bars == [("build", len(papers))] and published.advanced == len(papers)
    assert published.shown == [v["id"] for v in VENUES3 if (pages / v["id"]).is_dir()]
    assert preview.bars[0][0] == "build --drafts" and preview.advanced == preview.bars[0][1] > len(papers)
