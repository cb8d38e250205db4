"""The reader's site in Markdown: a page per paper, tag pages, feeds, related papers, the publisher's settings."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path

import markdown
import pytest
import yaml
from pydantic import ValidationError
from test_build import VENUES3, sample_store

from conftest import REAL_FIXTURES, Project
from summarizer.core.config import Settings
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.site.build import build_site
from summarizer.site.markdown_text import escape_block_start, escape_summary
from summarizer.site.related import Doc, rank
from summarizer.site.tags import slugs

ATOM = "{http://www.w3.org/2005/Atom}"


def built(project: Project, **site: object) -> tuple[Settings, Store, Path]:
    settings, store = sample_store(project)
    if site:
        project.write_config(venues=VENUES3, site={**project.config["site"], **site})
        settings = project.settings()
    rich = Record(
        venue="ICML2026",
        id="2601.00020",
        title="Quantized Attention",
        arxiv_id="2601.00020v3",
        url="https://openreview.net/forum?id=abc",
        authors=["Ada Lovelace", "Alan <Turing>"],
        tier="oral",
        comment="Code: https://github.com/example/qattn.",
    )
    rich.summaries.add_version(
        "本文提出一种低比特量化注意力，把显存降低一半。", ["量化", "LLM"], "llm_pretraining", "import"
    )
    rich.summaries.approve()
    store.save(rich)
    return settings, store, Path(build_site(settings, store, None, drafts=False).subject) / "docs"


def test_every_digest_title_opens_its_paper_page_which_links_back(project: Project) -> None:
    _, _, docs = built(project)
    for field_page in docs.glob("*/*/index.md"):
        targets = re.findall(r"^\*\*\[.*\]\(([^)]+\.md)\)\*\*$", field_page.read_text("utf-8"), re.M)
        assert targets, field_page
        for target in targets:
            paper = (field_page.parent / target).read_text("utf-8")
            assert "](index.md)" in paper  # the field, in the venue line and at the end


def test_a_paper_page_shows_what_the_record_knows(project: Project) -> None:
    _, _, docs = built(project)
    page = (docs / "ICML2026/llm_pretraining/2601.00020.md").read_text("utf-8")
    assert "# Quantized Attention\n" in page
    assert "**[🧪 ICML2026](../index.md)** · Oral · [📚 预训练](index.md)" in page
    assert "**作者：** Ada Lovelace, Alan &lt;Turing>" in page  # outside text is escaped
    links = "[arXiv](https://arxiv.org/abs/2601.00020) · [PDF](https://arxiv.org/pdf/2601.00020) · "
    assert links + "[来源](https://openreview.net/forum?id=abc) · [代码](https://github.com/example/qattn)" in page
    assert "**标签：** 量化 · [LLM](../../tags/llm.md#v-ICML2026)" in page  # 量化: one paper, no page
    assert "## 一句话总结\n\n本文提出一种低比特量化注意力" in page
    related = page.split("## 相关论文\n\n", 1)[1].split("\n", 1)[0]
    assert related.startswith('<ul data-part="related"><li><a href="../../../') and related.endswith("</li></ul>")
    assert 1 <= related.count("<li>") <= 5
    assert 'class="paper-note"' not in page  # no note: the page is the summary and the metadata
    assert page.endswith("[← 返回 📚 预训练](index.md) · [🧪 ICML2026](../index.md)\n")  # its field, its venue


def test_tags_have_one_page_each_listing_papers_venue_by_venue(project: Project) -> None:
    _, _, docs = built(project)
    llm = (docs / "tags/llm.md").read_text("utf-8")
    assert '<h2 id="v-ICML2026">🧪 ICML2026 (4)</h2>' in llm and '<h2 id="v-ICLR2026">🔬 ICLR2026 (2)</h2>' in llm
    assert llm.index("v-ICML2026") < llm.index("v-ICLR2026")  # venues in config order
    assert '<li><a href="../../ICML2026/llm_pretraining/2601.00020/">Quantized Attention</a> · 📚 预训练</li>' in llm
    field = (docs / "ICML2026/llm_pretraining/index.md").read_text("utf-8")
    assert "🔥 **高频主题：** [LLM ×3](../../tags/llm.md#v-ICML2026)" in field


def test_a_tag_of_fewer_papers_than_tag_min_papers_has_no_page_and_shows_as_text(project: Project) -> None:
    _, store, docs = built(project)
    held = _papers_per_tag(store)
    assert held["量化"] == 1 and held["llm"] >= 2
    assert not (docs / "tags/量化.md").exists() and (docs / "tags/llm.md").exists()
    page = (docs / "ICML2026/llm_pretraining/2601.00020.md").read_text("utf-8")
    assert "**标签：** 量化 · [LLM](../../tags/llm.md#v-ICML2026)" in page  # no link to a page that is not there
    for built_page in docs.rglob("*.md"):
        for target in re.findall(r"\]\(((?:\.\./)*tags/[^)#]+)", built_page.read_text("utf-8")):
            assert (built_page.parent / target).exists(), (built_page, target)
    pages = {p.name for p in (docs / "tags").glob("*.md")}
    assert len(pages) == sum(1 for n in held.values() if n >= 2)

    _, _, docs = built(project, tag_min_papers=1)  # every tag a page, as before
    assert (docs / "tags/量化.md").exists()
    assert len(list((docs / "tags").glob("*.md"))) == len(held)


def _papers_per_tag(store: Store) -> dict[str, int]:
    counts: dict[str, int] = {}
    for venue in store.venues():
        for record in store.records(venue):
            if record.summaries.approved is not None:
                for tag in {t.casefold() for t in record.summaries.approved.tags}:
                    counts[tag] = counts.get(tag, 0) + 1
    return counts


def test_tag_file_names_are_unique_and_readable() -> None:
    names = slugs(["kv cache", "kv-cache", "扩散模型", "c++", "c", "index", "../x"])
    assert names["扩散模型"] == "扩散模型" and names["c"].startswith("c-") and names["c++"].startswith("c-")
    assert names["kv cache"].startswith("kv-cache-") and names["kv-cache"].startswith("kv-cache-")
    assert len(set(names.values())) == len(names)
    assert names["index"] != "index" and names["../x"] == "x"


def test_a_tag_named_like_another_tags_hashed_name_gets_a_page_of_its_own() -> None:
    first = slugs(["a b", "a-b"])["a b"]
    names = slugs(["a b", "a-b", first])
    assert len(set(names.values())) == 3
    assert names["a b"] == first and names[first] != first  # the page a paper already links keeps its address


def test_feeds_are_atom_with_the_newest_papers_and_absolute_links_under_site_url(project: Project) -> None:
    _, _, docs = built(project, site_url="https://digest.example.org/papers")
    root = ET.fromstring((docs / "ICML2026/feed.xml").read_text("utf-8"))
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 6
    links = [e.find(f"{ATOM}link").get("href") for e in entries]  # type: ignore[union-attr]
    assert "https://digest.example.org/papers/ICML2026/llm_pretraining/2601.00020/" in links
    field = ET.fromstring((docs / "ICML2026/llm_reasoning/feed.xml").read_text("utf-8"))
    assert [e.findtext(f"{ATOM}title") for e in field.findall(f"{ATOM}entry")] == ["Chain of Thought at Scale"]
    page = (docs / "ICML2026/llm_reasoning/index.md").read_text("utf-8")
    assert "feed: ICML2026/llm_reasoning/feed.xml\n" in page and "](feed.xml)" in page


def test_site_settings_reach_mkdocs_yml_escaped(project: Project) -> None:
    _, _, docs = built(
        project,
        site_url="https://digest.example.org/",
        repo_url="https://github.com/example/digest",
        repo_name="example/<digest>",
        copyright="© 2026 <b>Us</b>",
        palette={"scheme": "slate", "primary": "teal", "accent": "amber"},
        extra={"analytics": {"provider": "google", "property": "G-XXXX"}},
        extra_css=["stylesheets/extra.css"],
        mathjax="cdn",
    )
    config = yaml.safe_load((docs.parent / "mkdocs.yml").read_text("utf-8").replace("!!python", "#"))
    assert config["site_url"] == "https://digest.example.org/" and config["repo_url"].endswith("/digest")
    assert config["repo_name"] == "example/&lt;digest&gt;" and config["copyright"] == "© 2026 &lt;b&gt;Us&lt;/b&gt;"
    assert config["theme"]["palette"] == {"scheme": "slate", "primary": "teal", "accent": "amber"}
    assert config["theme"]["font"] is False  # nothing from Google unless asked
    assert config["extra"] == {"analytics": {"provider": "google", "property": "G-XXXX"}}
    assert config["extra_css"] == ["stylesheets/site.css", "stylesheets/extra.css"]
    assert "https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js" in config["extra_javascript"]
    assert not (docs / "javascripts/mathjax").exists()


@pytest.mark.parametrize(
    ("site", "words"),
    [
        ({"site_url": "javascript:alert(1)"}, "site.site_url"),
        ({"palette": {"primary": "red; x"}}, "site.palette.primary"),
        ({"order": "random"}, "site.order"),
    ],
)
def test_site_settings_are_checked(project: Project, site: dict[str, object], words: str) -> None:
    project.write_config(site=site)
    with pytest.raises(Exception, match=re.escape(words)):
        project.settings()


def test_a_venue_cannot_take_the_name_of_a_site_folder() -> None:
    with pytest.raises(ValidationError, match="names a folder of the site"):
        Settings.model_validate({"venues": [{"id": "tags"}], "fields": [{"id": "f"}]})


def test_the_site_serves_mathjax_itself(project: Project) -> None:
    _, _, docs = built(project)
    config = yaml.safe_load((docs.parent / "mkdocs.yml").read_text("utf-8"))
    assert "javascripts/mathjax/tex-mml-chtml.js" in config["extra_javascript"]
    assert (docs / "javascripts/mathjax/tex-mml-chtml.js").stat().st_size > 500_000
    assert (docs / "javascripts/mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff").is_file()
    assert not any("://" in script for script in config["extra_javascript"])


@pytest.mark.parametrize("order", ["tier", "import"])
def test_the_page_order_is_a_setting(project: Project, order: str) -> None:
    project.write_config(site={"order": order})
    settings = project.settings()
    store = Store(settings.outputs_dir)
    for pid, tier, when in (("a", "poster", "2026-01-01"), ("b", "oral", "2026-01-03"), ("c", None, "2026-01-02")):
        record = Record(venue="ICML2026", id=pid, title=f"Title {pid}", tier=tier)
        summary = "本文提出一种新方法，并在多个基准上取得提升。"
        record.summaries.add_version(summary, ["LLM"], "llm_pretraining", "import", created_at=f"{when}T00:00:00Z")
        record.summaries.approve()
        store.save(record)
    page = Path(build_site(settings, store, None, drafts=False).subject) / "docs/ICML2026/llm_pretraining/index.md"
    titles = re.findall(r"^\*\*\[Title (\w)\]", page.read_text("utf-8"), re.M)
    assert titles == (["b", "a", "c"] if order == "tier" else ["a", "c", "b"])


@pytest.mark.parametrize(
    "summary", ["# 不是标题", "> 不是引用", "- 不是列表", "1986. 年的工作", ": 不是定义", "~~~ 不是代码"]
)
def test_a_summary_that_starts_like_a_block_renders_as_written(summary: str) -> None:
    source = f"**[T](t.md)**\n\n:   {escape_block_start(escape_summary(summary))}\n"
    html = markdown.markdown(source, extensions=["def_list", "md_in_html", "tables"])
    assert unescape(re.search(r"<dd>\s*<p>(.*)</p>\s*</dd>", html).group(1)) == summary  # type: ignore[union-attr]
    assert not re.search(r"<(h1|blockquote|ul|ol|pre|code)", html)


def test_related_papers_share_field_or_tags_far_more_often_than_chance(project: Project) -> None:
    notes = REAL_FIXTURES / "notes"
    if not notes.is_dir():
        pytest.skip("../shared/fixtures/real/notes is not beside the checkout")
    docs = []
    for path in sorted(notes.glob("*/*/*.md")):
        text = path.read_text("utf-8")
        title = re.search(r"^# (.+)$", text, re.M)
        keywords = re.search(r"(?:Keywords|关键词)\**[:：]\**\s*(.+)$", text, re.M)
        tags = tuple(t.strip(" *`") for t in re.split(r"[,，、]", keywords.group(1))) if keywords else ()
        body = re.sub(r"[#*`$\\]", " ", text)[:3000]
        key = f"{path.parent.parent.name}/{path.stem}"
        docs.append(Doc(key, key, title.group(1) if title else path.stem, body, tags, path.parent.name))
    by_key = {d.key: d for d in docs}

    def shares(a: Doc, b: Doc) -> bool:
        return a.field == b.field or bool({t.casefold() for t in a.tags} & {t.casefold() for t in b.tags})

    ranked = rank(docs, 3)
    pairs = [(by_key[k], by_key[r]) for k, related in ranked.items() for r in related]
    hit = sum(shares(a, b) for a, b in pairs) / len(pairs)
    rng = random.Random(0)
    chance = sum(shares(*rng.sample(docs, 2)) for _ in range(3000)) / 3000
    assert len(pairs) >= 2 * len(docs)
    assert hit >= 2 * chance, (hit, chance)


def test_related_papers_never_list_the_paper_itself_or_its_twin() -> None:
    docs = [
        Doc("A/1", "arxiv:1", "Sparse attention for long context", "稀疏注意力 长上下文", ("稀疏",), "f"),
        Doc("B/1", "arxiv:1", "Sparse attention for long context", "稀疏注意力 长上下文", ("稀疏",), "f"),
        Doc("A/2", "A/2", "Sparse attention kernels", "稀疏注意力", ("稀疏",), "f"),
        Doc("A/3", "A/3", "Diffusion for images", "扩散模型", ("扩散",), "g"),
    ]
    ranked = rank(docs, 5)
    assert ranked["A/1"][0] == "A/2" and "B/1" not in ranked["A/1"] and "A/1" not in ranked["A/1"]
    assert ranked == rank(list(docs), 5)  # the same input, the same lists


def test_a_paper_whose_rarest_words_no_one_shares_still_finds_its_relatives() -> None:
    own_words = " ".join(f"word{i}x" for i in range(40))  # more than a query's 32 terms, each only its own
    docs = [
        Doc("A/1", "A/1", f"Quantized caches {own_words}", "", (), "efficiency"),
        Doc("B/1", "B/1", "Quantized caches for serving", "", (), "efficiency"),
        Doc("B/2", "B/2", "Diffusion for images", "", (), "images"),
    ]
    assert rank(docs, 5)["A/1"] == ["B/1"]


def test_a_related_paper_is_listed_as_inert_html_with_its_math_marked() -> None:
    from summarizer.site.markdown_text import html_inline

    assert html_inline('The <b>"Fast"</b> & $O(n)$ way') == (
        'The &lt;b&gt;&quot;Fast&quot;&lt;/b&gt; &amp; <span class="arithmatex">\\(O(n)\\)</span> way'
    )
    assert html_inline("\\(a<b\\) then") == '<span class="arithmatex">\\(a&lt;b\\)</span> then'
    # TeX that could make a link never reaches MathJax: it stays text (split_math), escaped.
    assert "arithmatex" not in html_inline("\\(\\href{https://x.example}{x}\\)")
    assert html_inline("a {++b++}") == "a &#123;++b++}"  # critic would read the raw HTML too
