"""The measures, one at a time, on inputs small enough to work out by hand."""

from __future__ import annotations

import pytest

from summarizer.apps.evaluate.metrics import (
    CJK_EDGES,
    Lengths,
    consistency,
    field_scores,
    histogram,
    number_check,
    percentile,
    tag_recall,
)
from summarizer.core.config import TagSettings


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([10, 20, 30, 40], 50) == 25
    assert percentile([10, 20, 30, 40], 0) == 10 and percentile([10, 20, 30, 40], 100) == 40
    assert percentile([40, 10, 30, 20], 25) == pytest.approx(17.5)
    assert percentile([], 50) == 0.0


def test_histogram_bins_are_half_open_and_the_last_takes_the_rest() -> None:
    counts = histogram([0, 9, 10, 43, 149, 150, 600], CJK_EDGES)
    assert counts[0] == 2 and counts[1] == 1 and counts[4] == 1 and counts[14] == 1 and counts[15] == 2
    assert sum(counts) == 7


def test_field_scores_count_a_confusion_and_average_f1_over_every_label_used() -> None:
    pairs = [("a", "a"), ("a", "b"), ("b", "b"), ("c", "b")]
    scores = field_scores(pairs, order=["c", "b", "a"])
    assert scores.labels == ["c", "b", "a"]
    assert scores.matrix == [[0, 1, 0], [0, 1, 0], [0, 1, 1]]
    assert scores.accuracy == pytest.approx(2 / 4)
    # a: p 1, r 1/2 → 2/3; b: p 1/3, r 1 → 1/2; c: 0.
    assert scores.macro_f1 == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)


def test_tag_recall_counts_only_keywords_that_map_onto_the_vocabulary() -> None:
    tags = TagSettings(vocabulary=["LLM", "推理"], aliases={"大语言模型": "LLM", "reasoning": "推理"})
    items = [
        (["Large", "大语言模型", "Reasoning"], ["LLM"]),  # two map (LLM, 推理), one found
        (["nothing", "maps"], ["LLM"]),  # not scored
        (["llm"], ["大语言模型"]),  # the summary's alias counts as its tag
    ]
    result = tag_recall(items, tags)
    assert (result.keywords, result.mapped, result.hits, result.papers) == (6, 3, 2, 2)
    assert result.recall == pytest.approx(2 / 3) and result.mapped_share == pytest.approx(3 / 6)


def test_number_check_flags_what_the_text_lacks_and_skips_papers_without_text() -> None:
    result = number_check(
        [
            ("p1", "在 GSM8K 上提升到 86.9%。", "accuracy rises to 86.90% on GSM8K"),
            ("p2", "速度提升 37.5%。", "it is faster"),
            ("p3", "提升 99.9%。", None),
        ]
    )
    assert result.checked == 2 and result.flagged == {"p2": ["37.5%"]} and result.share == 0.5


def test_lengths_and_the_house_range() -> None:
    inside = "本文" * 30 + "English words here" * 3  # 60 Chinese characters, 114 in all
    lengths = Lengths.of([inside, "太短了"])
    assert lengths.cjk == [60, 3] and lengths.chars == [len(inside), 3] and lengths.outside_house == 1


def test_a_note_repeats_its_digest_text_whitespace_aside() -> None:
    assert consistency([("本文 提出 X。", "本文  提出\nX。"), ("本文提出 X。", "本文提出 Y。")]) == (2, 1)
