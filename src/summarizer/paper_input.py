"""What the model reads of a paper: its cached sections, cut to ``llm.input_token_budget``."""

from __future__ import annotations

from .cache import CacheLayout
from .config import Settings
from .extract import PaperText
from .store import Record
from .tokens import estimate_tokens


def load_paper_text(settings: Settings, record: Record) -> PaperText | None:
    """The cached sections of a fetched paper, or None when its text was never extracted or is unreadable."""
    return CacheLayout(settings.cache_dir).paper_text(record.fetch.text_path)


_CUT_MARK = " …"


def _cut_to_tokens(text: str, tokens: int) -> str:
    """``text`` within ``tokens`` estimated tokens; a cut one ends with " …", counted in the budget."""
    if tokens <= 0:
        return ""
    # A text of n characters is at least ceil(n / 4) tokens, so one longer than 4 × tokens cannot fit,
    # and the cut point lies within the first 4 × room characters: the search below reads only
    # those, not a 200,000-character section over and over (it was most of summarize's start-up).
    if len(text) <= 4 * tokens and estimate_tokens(text) <= tokens:
        return text
    # Room for the mark: estimates add up at most (ceil is subadditive), so the cut text plus
    # the mark stays within ``tokens``.
    room = tokens - estimate_tokens(_CUT_MARK)
    if room <= 0:
        return ""
    low, high = 0, min(len(text), 4 * room)
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens(text[:mid]) <= room:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + _CUT_MARK


def model_input(record: Record, text: PaperText | None, budget: int) -> list[tuple[str, str]]:
    """The sections the model reads, in order, within ``budget`` estimated tokens.

    Abstract (the arXiv one first), introduction and conclusion come first; the
    rest fills what is left of the budget.  Without text, the abstract alone.
    """
    abstract = (record.abstract or (text.abstract if text else "")).strip()
    wanted = [("abstract", abstract)]
    if text is not None:
        wanted += [("introduction", text.introduction), ("conclusion", text.conclusion), ("rest", text.rest)]
    out: list[tuple[str, str]] = []
    left = budget
    for name, body in wanted:
        body = body.strip()
        if not body or left <= 0:
            continue
        piece = _cut_to_tokens(body, left)
        out.append((name, piece))
        left -= estimate_tokens(piece)
    return out
