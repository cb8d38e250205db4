"""A paper's text as the cache keeps it, and what the model reads of it.

``PaperText`` is the sections the fetch stage extracted from a PDF (``cache/text/<sha>.json``);
``read_paper_text`` reads it back (None when missing, truncated or garbled, so it is fetched
again); ``paper_sections`` is what the model, the warnings and the review desk read of a paper:
its sections cut to ``llm.input_token_budget``, or ``NoInput`` saying why there is nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from .config import Settings
from .errors import NoInput
from .records import Record
from .tokens import estimate_tokens


@dataclass
class PaperText:
    title: str = ""
    abstract: str = ""
    introduction: str = ""
    conclusion: str = ""
    rest: str = ""
    pages: int = 0

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=1)

    @classmethod
    def from_json(cls, text: str) -> PaperText:
        data = json.loads(text)
        return cls(**{k: data.get(k, v) for k, v in asdict(cls()).items()})


def read_paper_text(cache_dir: Path, text_ref: str | None) -> PaperText | None:
    """The cached sections a record points to; None when missing, truncated or garbled."""
    if not text_ref:
        return None
    try:
        return PaperText.from_json((cache_dir / text_ref).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None


def load_paper_text(settings: Settings, record: Record) -> PaperText | None:
    """The cached sections of a fetched paper, or None when its text was never extracted or is unreadable."""
    return read_paper_text(settings.cache_dir, record.fetch.text_path)


def paper_sections(settings: Settings, record: Record) -> list[tuple[str, str]]:
    """What the model reads for this paper; ``NoInput`` (with the reason) when there is nothing."""
    text = None
    if record.fetch.text_path:
        text = load_paper_text(settings, record)
        if text is None:
            raise NoInput(
                f"the extracted text {record.fetch.text_path} is missing or unreadable in {settings.cache_dir}: "
                f"`summarizer fetch {record.venue}` fetches it again"
            )
    elif not ((record.fetch.abstract_only or not (record.arxiv_id or record.fetch.pdf_url)) and record.abstract):
        raise NoInput(f"not fetched yet: run `summarizer fetch {record.venue}` first")
    sections = model_input(record, text, settings.llm.input_token_budget)
    if not sections:
        raise NoInput("no text and no abstract to summarise")
    return sections


_CUT_MARK = " …"


def _cut_to_tokens(text: str, tokens: int) -> str:
    """``text`` within ``tokens`` estimated tokens; a cut one ends with " …", counted in the budget."""
    if tokens <= 0:
        return ""
    # A text of n characters is at least ceil(n / 4) tokens, so one longer than 4 × tokens cannot fit,
    # and the cut point lies within the first 4 × room characters: the search below reads only
    # those, not a 200,000-character section over and over (that would be most of summarize's start-up).
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


# What a note reads beyond the summary's sections: the body (method, experiments, tables' captions and
# numbers) first, then the introduction and the conclusion, each kept to a share of the budget until the
# body has had its room.
NOTE_INTRODUCTION_SHARE = 0.2
NOTE_CONCLUSION_SHARE = 0.1


def note_sections(settings: Settings, record: Record) -> list[tuple[str, str]]:
    """What the model reads for a paper's note, in the paper's order, within ``notes.input_token_budget``.

    A note is written from the paper's text: ``NoInput`` (with the reason) when the paper has none (not
    fetched, its text missing, or known from its abstract only).
    """
    if not record.fetch.text_path:
        reason = "only its abstract is known" if record.fetch.abstract_only else "not fetched yet"
        raise NoInput(f"a note needs the paper's text: {reason} (`summarizer fetch {record.venue}`)")
    text = load_paper_text(settings, record)
    if text is None:
        raise NoInput(
            f"the extracted text {record.fetch.text_path} is missing or unreadable in {settings.cache_dir}: "
            f"`summarizer fetch {record.venue}` fetches it again"
        )
    return note_input(record, text, settings.notes.input_token_budget)


def note_input(record: Record, text: PaperText, budget: int) -> list[tuple[str, str]]:
    """Abstract, introduction, body and conclusion within ``budget`` estimated tokens (see the shares above)."""
    abstract = _cut_to_tokens((record.abstract or text.abstract).strip(), budget)
    left = budget - estimate_tokens(abstract)
    bodies = {name: getattr(text, name).strip() for name in ("introduction", "rest", "conclusion")}
    caps = {
        "introduction": int(left * NOTE_INTRODUCTION_SHARE),
        "conclusion": int(left * NOTE_CONCLUSION_SHARE),
    }
    cut = {name: _cut_to_tokens(bodies[name], cap) for name, cap in caps.items()}
    cut["rest"] = _cut_to_tokens(bodies["rest"], left - sum(estimate_tokens(v) for v in cut.values()))
    for name in ("introduction", "conclusion"):  # what the body left unused goes to the others
        spare = left - sum(estimate_tokens(v) for v in cut.values())
        if spare > 0 and cut[name] != bodies[name]:
            cut[name] = _cut_to_tokens(bodies[name], estimate_tokens(cut[name]) + spare)
    ordered = [("abstract", abstract)] + [(name, cut[name]) for name in ("introduction", "rest", "conclusion")]
    return [(name, body) for name, body in ordered if body]


# Where papers put their code: a repository on a code host (a project page is not a code link).
_CODE_URL = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com|huggingface\.co|bitbucket\.org|gitee\.com|codeberg\.org)"
    r"/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+",
    re.IGNORECASE,
)


def code_url(text: PaperText) -> str | None:
    """The first code repository URL the paper's own text gives (abstract, introduction, body, conclusion)."""
    for body in (text.abstract, text.introduction, text.rest, text.conclusion):
        match = _CODE_URL.search(body)
        if match:
            return match.group(0).rstrip(".,;:")
    return None
