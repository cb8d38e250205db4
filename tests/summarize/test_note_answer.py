"""A model's note, checked: the schema, the counts, the rules per field, the Markdown it becomes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from summarizer.core.errors import TextRejected
from summarizer.core.note_rules import split_sections
from summarizer.summarize.note_answer import parse_note
from summarizer.summarize.note_schema import response_schema
from summarizer.testing.fake_requests import default_note

BODY = {
    "messages": [
        {"role": "system", "content": "精读笔记"},
        {
            "role": "user",
            "content": "<paper>\n标题：A Paper\n[摘要]\nIt reaches 81.5 on MMLU and 40% less compute.\n</paper>",
        },
    ]
}


def good() -> dict[str, Any]:
    return copy.deepcopy(default_note(BODY))


def problems_of(note: dict[str, Any], ratings: bool = False) -> list[str]:
    with pytest.raises(TextRejected) as caught:
        parse_note(json.dumps(note, ensure_ascii=False), ratings)
    return caught.value.problems


def test_a_good_answer_becomes_the_references_sections_in_order() -> None:
    checked = parse_note(json.dumps(good(), ensure_ascii=False), False)
    headings = [s.heading for s in split_sections(checked.markdown)]
    assert headings == [
        "研究背景与动机",
        "核心问题",
        "方法详解",
        "实验关键数据",
        "亮点与洞察",
        "局限性 / 可改进方向",
        "与相关工作的对比",
    ]
    assert "### 整体框架" in checked.markdown and "### 关键设计" in checked.markdown
    assert "### 损失函数 / 训练策略" in checked.markdown
    assert "| 设置 | 结果 |\n|---|---|\n| 设置 1 | 81.5 |" in checked.markdown
    assert "- **vs Longformer**: Longformer" in checked.markdown
    assert "一句话总结" not in checked.markdown and "评分" not in checked.markdown  # the record's, and off


def test_optional_parts_are_left_out_and_ratings_only_when_asked() -> None:
    note = good()
    note["problem"] = note["method"]["training"] = ""
    note["experiments"]["main_results"] = {"caption": "", "columns": [], "rows": []}
    note["experiments"]["ablations"] = note["related_work"] = []
    markdown = parse_note(json.dumps(note, ensure_ascii=False), False).markdown
    for absent in ("核心问题", "损失函数", "主实验", "消融实验", "与相关工作的对比"):
        assert absent not in markdown
    assert "ratings" not in response_schema(False)["properties"] and "ratings" in response_schema(True)["properties"]
    rated = good()
    rated["ratings"] = {k: {"score": 3, "reason": "中规中矩。"} for k in ("novelty", "experiments", "writing", "value")}
    assert "- 新颖性: ⭐⭐⭐ 中规中矩。" in parse_note(json.dumps(rated, ensure_ascii=False), True).markdown
    assert any("ratings" in p for p in problems_of(rated, ratings=False))  # an unasked key is refused


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda n: n.update(background="This paper studies attention."), "background: no Chinese"),
        (lambda n: n.update(background=n["background"] + "<script>x</script>"), "background: no HTML"),
        (lambda n: n.update(problem="见 ![图](x.png) 所示的问题"), "problem: no images"),
        (lambda n: n.update(problem="代码见 https://github.com/a/b 的问题"), "problem: no links"),
        (lambda n: n.update(problem="复杂度为 $O(n)$ 的问题"), "problem: write math as"),
        (lambda n: n.update(problem="问题\n```\ncode\n```"), "problem: no code fences"),
        (lambda n: n.update(problem="问题 \\(\\href{javascript:x}{y}\\)"), "\\href is not allowed"),
        (lambda n: n["method"].update(key_designs=n["method"]["key_designs"][:1]), "method.key_designs: 1 items"),
        (lambda n: n.update(highlights=[]), "highlights: 0 items"),
        (lambda n: n["experiments"]["main_results"]["rows"].append(["a", "b", "c"]), "3 cells for 2 columns"),
        (lambda n: n.update(background="很长的背景。" * 2000), "at most 9,500"),
    ],
    ids=["english", "html", "image", "url", "dollar", "fence", "tex", "designs", "highlights", "table", "cap"],
)
def test_broken_answers_are_refused_with_what_to_fix(change: Any, expected: str) -> None:
    note = good()
    change(note)
    assert any(expected in problem for problem in problems_of(note)), problems_of(note)


def test_too_many_items_keep_the_first_with_a_warning_and_bad_arxiv_ids_are_dropped() -> None:
    note = good()
    note["limitations"] = [f"局限 {i}。" for i in range(7)]
    note["related_work"][0]["arxiv_id"] = "not-an-id"
    checked = parse_note(json.dumps(note, ensure_ascii=False), False)
    assert "limitations: 7 items, kept the first 5" in checked.warnings
    assert checked.markdown.count("- 局限") == 5
    assert any("no arXiv id" in w for w in checked.warnings) and "arXiv:" not in checked.markdown


def test_control_characters_are_removed_and_pipes_in_cells_escaped() -> None:
    note = good()
    note["background"] += "\x1b[2J\u202e"
    note["experiments"]["main_results"]["rows"][0][0] = "a | b"
    checked = parse_note(json.dumps(note, ensure_ascii=False), False)
    assert "\x1b" not in checked.markdown and "\u202e" not in checked.markdown
    assert "| a \\| b | 81.5 |" in checked.markdown
