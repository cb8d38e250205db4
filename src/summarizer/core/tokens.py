"""Token estimates without a tokenizer download: what the pacing and the input budget count with."""

from __future__ import annotations

import re

# Every character of the CJK blocks (ideographs, kana, CJK punctuation and symbols) is about one token
# in the common tokenizers.  This is a cost measure, not the summary check's "Chinese character"
# (checks.py counts ideographs only).
_ONE_TOKEN_EACH = re.compile(r"[\u3000-\u9fff\uf900-\ufaff]")


def estimate_tokens(text: str) -> int:
    """About 4 characters a token, one per CJK character."""
    if text.isascii():  # O(1) in CPython (a flag of the string): no CJK to count
        return (len(text) + 3) // 4
    wide = len(_ONE_TOKEN_EACH.findall(text))
    return wide + (len(text) - wide + 3) // 4
