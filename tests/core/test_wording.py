"""Counts in messages agree with their nouns: "1 paper", "2 papers"."""

from summarizer.core.report import plural


def test_one_is_singular_and_the_rest_plural() -> None:
    assert [plural(n, "paper") for n in (0, 1, 2)] == ["0 papers", "1 paper", "2 papers"]
    assert plural(1, "batch", "batches") == "1 batch" and plural(3, "batch", "batches") == "3 batches"
