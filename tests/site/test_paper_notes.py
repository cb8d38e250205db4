"""A paper's note on its page: the approved one published (the newest in the preview), laid out as the
reference's note page with the paper page's own lines, its comparisons linked by arXiv id, inert whatever it holds."""

from __future__ import annotations

import html.parser
from pathlib import Path

import markdown
import pytest
from test_build import sample_store
from test_mkdocs import broken_links, mkdocs_build

from conftest import Project, RunCli
from fetched_venue import VENUE, paper_id, title
from notes_venue import write_approved_venue
from summarizer.core.markdown_dialect import markdown_extensions
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.site.build import build_site
from summarizer.site.paper_note import NOTE_DRAFT_MARK, NOTE_REVISION_MARK
from summarizer.site.paper_page import indexed_digest
from summarizer.summarize.note_answer import check_note
from summarizer.testing.fake_openai import FakeOpenAI
from summarizer.testing.fake_requests import default_note

# ICML2026/2601.00015 "Chain of Thought at Scale" (llm_reasoning); ICLR2026/2602.00021 "Scaling Laws Revisited".
PAPER = ("ICML2026", "2601.00015")
PAGE = "ICML2026/llm_reasoning/2601.00015.md"
NOTE = """\
## 研究背景与动机
1. **领域现状**：思维链在大模型上有效，但在小模型上收益有限。
2. **切入角度**：把推理步骤的规模与模型规模一起放大。

## 方法详解

### 整体框架
先生成多条思维链，再用 \\(\\arg\\max\\) 选出最一致的一条。

## 实验关键数据

### 主实验

| 方法 | 准确率 |
|---|---|
| 本文 | 71.2 |

## 亮点与洞察
- **简单**：不改模型结构。

## 局限性 / 可改进方向
- 只在数学题上验证。

## 与相关工作的对比
- **vs Scaling Laws Revisited** (ICLR 2026, arXiv:2602.00021): 它研究预训练的规模，本文研究推理的规模。
- **vs Elsewhere** (NeurIPS 2025, arXiv:2501.99999): 不在本站的论文不加链接。
- **vs DreamOn** (ICML 2026): 只有名字，不加链接。
- 本文自己 (arXiv:2601.00015v2) 不链接到自己；另见 arXiv:2602.00021v1 的讨论。
"""


def with_note(store: Store, venue: str, paper: str, markdown_text: str, *, approve: bool = True) -> Record:
    record = store.load(venue, paper)
    record.notes.add_version(markdown_text, "llm")
    if approve:
        record.notes.approve()
    store.save(record)
    return record


def built_page(project: Project, *, drafts: bool = False, note: str = NOTE, approve: bool = True) -> str:
    settings, store = sample_store(project)
    record = with_note(store, *PAPER, note, approve=approve)
    record.authors = ["Ada Lovelace", "Alan <Turing>"]
    store.save(record)
    root = Path(build_site(settings, store, None, drafts=drafts).subject)
    return (root / "docs" / PAGE).read_text("utf-8")


def test_an_approved_note_reads_as_the_reference_note_page_with_the_paper_pages_lines(project: Project) -> None:
    page = built_page(project)
    indexed, rest = page.split("<!-- not indexed -->", 1)
    order = [
        '<div class="paper-note" markdown="1">\n\n# Chain of Thought at Scale\n',
        "**会议**: ICML2026  \n**arXiv**: [2601.00015](https://arxiv.org/abs/2601.00015)  \n",
        "**领域**: LLM 推理  \n**关键词**: 推理, LLM\n\n</div>",
        # The page's own lines, in the style of the note's: its links (the PDF too) and its tags, linked.
        '<div class="paper-about" markdown="1">\n\n**作者**: Ada Lovelace, Alan &lt;Turing>  \n'
        "**链接**: [arXiv](https://arxiv.org/abs/2601.00015) · [PDF](https://arxiv.org/pdf/2601.00015)  \n"
        "**标签**: [推理](../../tags/推理.md#v-ICML2026) · [LLM](../../tags/llm.md#v-ICML2026)\n\n</div>",
        '<div class="paper-note" markdown="1">\n\n## 一句话总结\n本文提出一种面向推理的新方法',
        "## 研究背景与动机\n1. **领域现状**",
        "| 本文 | 71.2 |",
        "## 与相关工作的对比",
    ]
    positions = [indexed.index(part) for part in order]
    assert positions == sorted(positions)  # the note's header, the page's lines, the note's body: all indexed
    assert page.count("\n# ") == 1 and page.count("## 一句话总结") == 1  # no second title, no second summary
    assert "## 相关论文" in rest
    assert rest.rstrip().endswith("[← 返回 💡 LLM 推理](index.md) · [🧪 ICML2026](../index.md)")


def test_a_comparison_naming_a_papers_arxiv_id_links_to_its_page_and_nothing_else_is_linked(project: Project) -> None:
    page = built_page(project)
    related = page.split("## 与相关工作的对比\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert related == [
        "- **vs [Scaling Laws Revisited](../../ICLR2026/llm_pretraining/2602.00021.md)** "
        "(ICLR 2026, arXiv:2602.00021): 它研究预训练的规模，本文研究推理的规模。",
        "- **vs Elsewhere** (NeurIPS 2025, arXiv:2501.99999): 不在本站的论文不加链接。",  # not on the site
        "- **vs DreamOn** (ICML 2026): 只有名字，不加链接。",  # a paper on the site, named only: never linked
        # Not a **vs Name** item: the id itself is the link (and the paper's own id is none).
        "- 本文自己 (arXiv:2601.00015v2) 不链接到自己；"
        "另见 [arXiv:2602.00021v1](../../ICLR2026/llm_pretraining/2602.00021.md) 的讨论。",
    ]


def test_an_id_outside_the_comparison_section_is_not_linked(project: Project) -> None:
    page = built_page(project, note=NOTE.replace("## 与相关工作的对比", "## 亮点（续）"))
    assert "](../../ICLR2026/llm_pretraining/2602.00021.md)" not in page.split("<!-- not indexed -->")[0]


def test_only_an_approved_note_is_published_and_the_preview_shows_the_newest_marked(project: Project) -> None:
    settings, store = sample_store(project)
    with_note(store, *PAPER, NOTE, approve=False)  # a draft
    record = with_note(store, "ICLR2026", "2602.00021", NOTE.replace("71.2", "70.1"))  # approved …
    record.notes.add_version(NOTE.replace("71.2", "72.9"), "llm")  # … with a newer draft waiting
    store.save(record)
    rejected = with_note(store, "ICLR2026", "2602.00022", NOTE, approve=False)
    rejected.notes.status = "rejected"
    store.save(rejected)

    site = Path(build_site(settings, store, None, drafts=False).subject) / "docs"
    preview = Path(build_site(settings, store, None, drafts=True).subject) / "docs"

    assert 'class="paper-note"' not in (site / PAGE).read_text("utf-8")  # a draft note is not published
    assert NOTE_DRAFT_MARK in (preview / PAGE).read_text("utf-8") and "| 本文 | 71.2 |" in (preview / PAGE).read_text()
    revised = "ICLR2026/llm_pretraining/2602.00021.md"
    assert "| 本文 | 70.1 |" in (site / revised).read_text("utf-8")  # the approved version stays published
    assert "72.9" not in (site / revised).read_text("utf-8") and NOTE_REVISION_MARK not in (site / revised).read_text()
    assert "| 本文 | 72.9 |" in (preview / revised).read_text("utf-8")
    assert NOTE_REVISION_MARK in (preview / revised).read_text("utf-8")
    for docs in (site, preview):
        assert 'class="paper-note"' not in (docs / "ICLR2026/image_generation/2602.00022.md").read_text("utf-8")


IMPORTED_HEADER = """\
---
title: "Chain of Thought at Scale"
arxiv: "2601.00015"
---

# Chain of Thought at Scale (as the reference titled it)

**会议**: ICML 2026  
**arXiv**: [2601.00015](https://arxiv.org/abs/2601.00015)  
**代码**: 待确认

"""  # noqa: W291 -- a bold line ends in two spaces (a line break), as the reference writes it
IMPORTED = """\
## 一句话总结
参考站自己写的总结，$O(n)$ 的数学照原样。

## 研究背景与动机
导入的笔记。
"""


def test_an_imported_note_keeps_its_own_header_and_summary_and_loses_only_its_front_matter(project: Project) -> None:
    settings, store = sample_store(project)
    record = store.load(*PAPER)
    record.notes.add_version(IMPORTED, "import", header=IMPORTED_HEADER, math="dollar")
    record.notes.approve()
    store.save(record)
    page = (Path(build_site(settings, store, None, drafts=False).subject) / "docs" / PAGE).read_text("utf-8")
    note = page.split('<div class="paper-note" markdown="1">\n\n', 1)[1]
    assert note.startswith("# Chain of Thought at Scale (as the reference titled it)\n\n**会议**: ICML 2026  \n")
    assert 'arxiv: "2601.00015"' not in page  # MkDocs reads a note's front matter as metadata: never shown
    assert page.count("\n# ") == 1 and page.count("## 一句话总结") == 1
    assert "## 一句话总结\n参考站自己写的总结，$O(n)$ 的数学照原样。" in page
    body = page.split("\n---\n", 1)[1].split("<!-- not indexed -->")[0]
    assert "本文提出一种面向推理的新方法" not in body  # its own summary, not the page's

    record.notes.add_version(IMPORTED, "import", header='---\ntitle: "x"\n---\n', math="dollar")
    record.notes.approve()
    store.save(record)
    page = (Path(build_site(settings, store, None, drafts=False).subject) / "docs" / PAGE).read_text("utf-8")
    assert page.count("\n# Chain of Thought at Scale\n") == 1  # a header without a title: the page writes one


HOSTILE = """\
## 研究背景与动机
<script>alert(1)</script> 与 <b onclick="x()">粗</b>、[点](javascript:alert(1))、![图](https://t.example/p.png)。
一段带属性的文字 {: onclick="alert(1)" }
公式 $\\href{javascript:x}{y}$ 与 {++插入++}、==标记==。
内网的 [路由器](http://192.168.1.1/admin)、<http://localhost:8080/>、[元数据](http://169.254.169.254/latest)。

!!! warning "提醒"
    警示块里的 <img src=x onerror=alert(1)>。

## 与相关工作的对比
- **vs <i>X</i>** (arXiv:2602.00021): 对比。
"""


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def test_a_hostile_note_is_inert_under_the_sites_extensions(project: Project) -> None:
    page = built_page(project, note=HOSTILE)
    names, options = markdown_extensions()
    tags = _Tags()
    tags.feed(markdown.markdown(page.split("\n---\n", 1)[1], extensions=names, extension_configs=options))
    assert "script" not in {tag for tag, _ in tags.found} and "img" not in {tag for tag, _ in tags.found}
    for tag, attrs in tags.found:
        assert not any(name.startswith("on") or name == "style" for name in attrs), (tag, attrs)
        assert not (attrs.get("href") or "").lower().startswith(("javascript:", "data:")), (tag, attrs)
        assert not any(host in (attrs.get("href") or "") for host in ("192.168", "localhost", "169.254")), attrs


@pytest.mark.slow
def test_a_site_with_notes_builds_strict_and_every_link_resolves(project: Project) -> None:
    settings, store = sample_store(project)
    with_note(store, *PAPER, NOTE)
    with_note(store, "ICLR2026", "2602.00021", NOTE.replace("arXiv:2602.00021", "arXiv:2601.00015"))
    root = Path(build_site(settings, store, None, drafts=False).subject)
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr
    assert broken_links(root / "site") == []
    built = (root / "site" / "ICLR2026" / "llm_pretraining" / "2602.00021" / "index.html").read_text("utf-8")
    assert 'href="../../../ICML2026/llm_reasoning/2601.00015/"' in built  # across venues and fields


def test_a_models_key_designs_render_as_a_list_of_designs_each_with_its_points() -> None:
    prompt = "标题：Sparse Things\n<paper>\n标题：Sparse Things\n71.2</paper>"
    body = {"messages": [{"role": "user", "content": prompt}]}
    checked = check_note(default_note(body), ratings=False)
    names, options = markdown_extensions()
    page = markdown.markdown(checked.markdown, extensions=names, extension_configs=options)
    designs = page.split("关键设计", 1)[1].split("</ol>", 1)[0]
    assert designs.count("<ol>") == 1 and designs.count("<ul>") == 3  # (the reference's notes indent three: flat)
    assert designs.count("做什么：") == 3


@pytest.mark.slow
@pytest.mark.fake_openai(latency=0.0)
def test_notes_the_loopback_provider_writes_once_approved_are_on_the_pages_the_field_page_links(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    project.write_config(llm={"base_url": server.base_url, "max_attempts": 3, "backoff_s": 0.005})
    write_approved_venue(project, 4)  # papers 0 and 2 have text (a note each), 1 and 3 only their abstracts
    assert cli("notes", VENUE).code == 0
    assert cli("review", "notes", "approve", VENUE, "--all").code == 0
    assert cli("build").code == 0

    root = project.settings().outputs_dir / "site"
    field = (root / "docs" / VENUE / "llm_pretraining" / "index.md").read_text("utf-8")
    for i in range(4):
        assert f"**[{title(i)}]({paper_id(i)}.md)**" in field  # every title links to its paper's page
        page = (root / "docs" / VENUE / "llm_pretraining" / f"{paper_id(i)}.md").read_text("utf-8")
        assert ('class="paper-note"' in page) == (i % 2 == 0)  # with a note, or the summary and metadata
        if i % 2 == 0:
            assert page.index("## 研究背景与动机") < page.index("## 实验关键数据") < page.index("| 设置 | 结果 |")
    result = mkdocs_build(root)
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr[-3000:]
    assert broken_links(root / "site") == []


def test_a_note_holding_the_pages_own_marker_is_still_wholly_in_the_indexed_digest() -> None:
    page = "笔记 A\n<!-- not indexed -->\n笔记 B\n<!-- not indexed -->\n相关论文"
    changed = page.replace("笔记 B", "笔记 C")
    assert indexed_digest(page) != indexed_digest(changed)
    assert indexed_digest(page) == indexed_digest(page.replace("相关论文", "别的"))
