"""Text stage: a paper's PDF → its sections (title, abstract, introduction, conclusion, rest),
cached as JSON in ``cache/text/``, and the model's input cut to ``llm.input_token_budget``.

Interface used by the summarize stage (keep these names and signatures):
``PaperText``, ``load_paper_text``, ``estimate_tokens``, ``model_input``.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from .config import Settings
from .store import Record

TEXT_DIR = "text"


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


def load_paper_text(settings: Settings, record: Record) -> PaperText | None:
    """The cached sections of a fetched paper, or None when its text was never extracted."""
    if not record.fetch.text_path:
        return None
    path = settings.cache_dir / record.fetch.text_path
    try:
        return PaperText.from_json(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None


_CJK = re.compile(r"[\u3000-\u9fff\uf900-\ufaff]")


def estimate_tokens(text: str) -> int:
    """A local estimate (no tokenizer download): ~4 characters a token, one per CJK character."""
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4


def _cut_to_tokens(text: str, tokens: int) -> str:
    if tokens <= 0:
        return ""
    if estimate_tokens(text) <= tokens:
        return text
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if estimate_tokens(text[:mid]) <= tokens:
            low = mid
        else:
            high = mid - 1
    return text[:low].rstrip() + " …"


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


def text_cache_path(cache_dir: Path, pdf_sha256: str) -> Path:
    return cache_dir / TEXT_DIR / f"{pdf_sha256}.json"
