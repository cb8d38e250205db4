"""A note as the desk shows it: each warning beside the section it names, its numbers marked where they stand
(never inside code, a link, a tag or a character reference), the rest of the page as the site renders it."""

from __future__ import annotations

from conftest import Project
from summarizer.apps.desk.highlight import FLAG, mark_markdown
from summarizer.apps.desk.note_page import note_page
from summarizer.core.records import Record

NOTE = (
    "## 方法详解\n复杂度为 \\(5.5 n\\)，见 `5.5` 与 [表 5.5](https://example.org/5.5) 和 &#91;5.5&#93;。\n\n"
    "## 实验关键数据\n| 设置 | 结果 |\n| --- | --- |\n| 本文 | 93.7 |\n\n```\n93.7\n```\n"
)
WARNINGS = [
    "numbers not in the paper text: 93.7 (实验关键数据), 5.5 (方法详解), 7.7 (相关工作)",
    "length of 方法详解 40 outside 317-1,828",
    "length of the note 900 outside 1,760-5,676",
    "no results table, though the paper reports results",
]


def test_flagged_numbers_are_marked_outside_code_links_tags_and_references() -> None:
    marked = mark_markdown(NOTE, ["93.7", "5.5"])
    assert marked.count(FLAG.format("93.7")) == 1  # the table cell, not the fenced block
    assert FLAG.format("\\(5.5 n\\)") in marked  # math marked whole, so MathJax still sees it
    assert "`5.5`" in marked and "(https://example.org/5.5)" in marked
    assert f"[表 {FLAG.format('5.5')}]" in marked and f"&#91;{FLAG.format('5.5')}&#93;" in marked
    assert mark_markdown("见 &#91;x&#93; 与 91 分", ["91"]) == f"见 &#91;x&#93; 与 {FLAG.format('91')} 分"
    assert mark_markdown("<https://example.org/91> 91", ["91"]) == f"<https://example.org/91> {FLAG.format('91')}"
    assert mark_markdown(NOTE, []) == NOTE


def test_each_warning_goes_with_the_section_it_names(project: Project) -> None:
    record = Record(venue="ICML2026", id="2601.00001", title="Sparse <b>attention</b>")
    version = record.notes.add_version(NOTE, "llm")

    page = note_page(project.settings(), record, version, WARNINGS)

    method, experiments = page.sections
    assert (method.heading, experiments.heading) == ("方法详解", "实验关键数据")
    assert method.warnings == ["numbers not in the paper text: 5.5", "length of 方法详解 40 outside 317-1,828"]
    assert experiments.warnings == ["numbers not in the paper text: 93.7"]
    assert '<mark class="flagged" title="not in the paper text">93.7</mark>' in experiments.html
    assert "<table>" in experiments.html and "93.7\n</code></pre>" in experiments.html  # code: not marked
    assert experiments.html.count("93.7</mark>") == 1
    whole = [w.text for w in page.warnings if w.section is None]
    assert whole == [
        "numbers not in the paper text: 7.7 (相关工作)",  # no such section: kept whole, as written
        "length of the note 900 outside 1,760-5,676",
        "no results table, though the paper reports results",
    ]
    assert [(w.section.anchor, w.text) for w in page.warnings if w.section] == [
        ("note-section-1", "numbers not in the paper text: 5.5"),
        ("note-section-1", "length of 方法详解 40 outside 317-1,828"),
        ("note-section-2", "numbers not in the paper text: 93.7"),
    ]
    assert "Sparse &lt;b&gt;attention&lt;/b&gt;" in page.top and "<b>" not in page.top  # the title, as text
