"""An imported note's page as the reference showed it: links that resolve or are text, its metadata lines
taken as metadata, code blocks with a copy button, outside links marked."""

from __future__ import annotations

from pathlib import Path

import yaml

from conftest import Project
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.site.build import build_site
from summarizer.site.site_files import TEMPLATES


def approved(store: Store, paper_id: str, field: str, header: str, body: str) -> None:
    record = Record(venue="ICML2026", id=paper_id, title=f"Paper {paper_id}", arxiv_id=paper_id)
    record.summaries.add_version(
        "本文提出一种新方法，在多个基准上显著优于已有方法，并给出理论分析。", ["推理"], field, "import"
    )
    record.summaries.approve()
    record.notes.add_version(body, "import", header=header, math="dollar")
    record.notes.approve()
    store.save(record)


def build(project: Project) -> Path:
    settings = project.settings()
    return Path(build_site(settings, project.store(), None, drafts=False).subject) / "docs"


def test_a_notes_links_to_pages_this_build_does_not_write_become_text_or_find_the_paper(project: Project) -> None:
    store = project.store()
    body = (
        "## 一句话总结\n总结。\n\n## 研究背景与动机\n"
        "见 [移走的](../../ICML2026/llm_pretraining/2601.00002.md)、"
        "[不在的](../../ICML2026/llm_reasoning/2601.09999.md)、"
        "[会议](../index.md)、[旧站](../ideas/x.md) 与 [网页](https://example.org/)。\n"
    )
    approved(store, "2601.00001", "llm_reasoning", "# Paper 2601.00001\n\n", body)
    approved(store, "2601.00002", "image_generation", "# Paper 2601.00002\n\n", "## 一句话总结\n总结。\n")

    page = (build(project) / "ICML2026/llm_reasoning/2601.00001.md").read_text("utf-8")

    assert "[移走的](../image_generation/2601.00002.md)" in page  # filed under another field since
    assert "、不在的、[会议](../index.md)、旧站 与 [网页](https://example.org/)" in page


def test_a_notes_opening_metadata_lines_are_metadata_not_a_paragraph(project: Project) -> None:
    header = "Title: Paper 2601.00001\nAuthors: Ada Lovelace\nVenue: ICML 2026\narXiv: 2601.00001\n\n"
    header += "# Paper 2601.00001\n\n"
    approved(project.store(), "2601.00001", "llm_reasoning", header, "## 一句话总结\n总结。\n")

    page = (build(project) / "ICML2026/llm_reasoning/2601.00001.md").read_text("utf-8")

    assert "Authors: Ada Lovelace" not in page and "Title:" not in page
    assert '<div class="paper-note" markdown="1">\n\n# Paper 2601.00001\n\n</div>' in page


def test_code_blocks_get_a_copy_button_and_outside_links_a_mark(project: Project) -> None:
    approved(project.store(), "2601.00001", "llm_reasoning", "# T\n\n", "## 一句话总结\n总结。\n")
    docs = build(project)
    config = yaml.load((docs.parent / "mkdocs.yml").read_text("utf-8"), Loader=yaml.BaseLoader)
    assert "content.code.copy" in config["theme"]["features"]
    css = (TEMPLATES / "stylesheets" / "site.css").read_text("utf-8")
    assert '.md-typeset a[href^="https://"]::after' in css and 'content: "\\2197"' in css


def test_a_hot_topic_has_the_sites_most_common_spelling_on_every_page(project: Project) -> None:
    store = project.store()
    spellings = [("ICML2026", "Chain-of-Thought")] * 3 + [("ICLR2026", "chain-of-thought")] * 4
    for i, (venue, tag) in enumerate(spellings):
        record = Record(venue=venue, id=f"2601.0{i:04d}", title=f"Paper {i}")
        record.summaries.add_version(
            "本文提出一种新方法，在多个基准上显著优于已有方法。", [tag], "llm_reasoning", "import"
        )
        record.summaries.approve()
        store.save(record)

    docs = build(project)

    pages = [docs / "index.md", *docs.glob("*/index.md"), *docs.glob("*/*/index.md"), *docs.glob("tags/*.md")]
    shown = {p.relative_to(docs).as_posix(): p.read_text("utf-8") for p in pages}
    hot = {rel: text for rel, text in shown.items() if "of-thought" in text.casefold()}
    assert {"index.md", "ICML2026/index.md", "ICML2026/llm_reasoning/index.md", "tags/chain-of-thought.md"} <= set(hot)
    for rel, text in hot.items():
        assert "Chain-of-Thought" not in text, rel  # 3 papers spell it so, 4 the other way: one spelling everywhere
    assert "[chain-of-thought ×3](../tags/chain-of-thought.md#v-ICML2026)" in shown["ICML2026/index.md"]
