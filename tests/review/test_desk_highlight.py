"""The desk marks a summary's flagged numbers where they stand, and math stays whole for MathJax."""

from summarizer.apps.desk.highlight import flagged_tokens, mark_flagged

SUMMARY = "在 LLaMA-7B 上加速 56.7x，准确率从 11.3% 提升到 71.3%，显存减少 \\(4.1\\times\\)，超过 GPT-4o。"


def test_the_tokens_come_from_the_numbers_warnings_only() -> None:
    warnings = [
        "numbers not in the abstract (the paper's text was not read): 71.3%, 4.1, GPT-4o",
        "length 46 outside 90-360",
        "numbers not in the paper text: 56.7x",
    ]
    assert flagged_tokens(warnings) == ["71.3%", "4.1", "GPT-4o", "56.7x"]


def test_each_flagged_token_is_marked_as_a_whole_and_math_stays_in_one_piece() -> None:
    parts = mark_flagged(SUMMARY, ["71.3%", "1.3%", "4.1", "GPT-4o"])
    assert "".join(text for text, _ in parts) == SUMMARY
    assert [text for text, flagged in parts if flagged] == ["71.3%", "\\(4.1\\times\\)", "GPT-4o"]


def test_nothing_flagged_is_one_plain_piece() -> None:
    assert mark_flagged(SUMMARY, []) == [(SUMMARY, False)]
