"""A note's sections are cut where Markdown sees a `##` heading: code (spans over several lines,
fenced blocks) hides headings, a stray backtick does not, and masking keeps every place in the text."""

from __future__ import annotations

from summarizer.core.note_rules import split_sections, without_code

SPAN_OVER_TWO_LINES = "## 方法详解\n用 `a +\nb` 计算。\n\n## 局限性\n只在英文上测。\n"


def test_a_code_span_over_two_lines_is_one_section_of_its_own() -> None:
    sections = split_sections(SPAN_OVER_TWO_LINES)
    assert [(s.heading, s.body) for s in sections] == [("方法详解", "用 `a +\nb` 计算。"), ("局限性", "只在英文上测。")]


def test_a_stray_backtick_never_hides_the_headings_after_it() -> None:
    text = "## 背景与动机\n一个反引号 ` 落单了。\n\n## 方法详解\n再一个 ` 也落单。\n"
    assert [s.heading for s in split_sections(text)] == ["背景与动机", "方法详解"]


def test_masking_keeps_every_place_in_the_text() -> None:
    text = "# T\n\n```\n## not a section\n```\n`x\ny` and **bold**\n\n## 一句话总结\nS\n"
    masked = without_code(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert "## not a section" not in masked and "**bold**" in masked
