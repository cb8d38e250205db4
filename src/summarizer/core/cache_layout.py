"""The cache folder's layout, in one place: every stage asks here instead of building paths.

* ``pdf/<sha256>.pdf`` — downloaded PDFs, named by their content;
* ``text/<sha256>.json`` — the sections extracted from that PDF (``paper_text.PaperText``);
  records store this path relative to the cache folder (``fetch.text_path``);
* ``llm/<aa>/<key>.json`` — parsed model answers, ``aa`` the key's first two characters.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PDF_DIR = "pdf"
TEXT_DIR = "text"
LLM_DIR = "llm"


@dataclass(frozen=True)
class CacheLayout:
    root: Path

    def pdf(self, sha: str) -> Path:
        return self.root / PDF_DIR / f"{sha}.pdf"

    def text(self, sha: str) -> Path:
        return self.root / TEXT_DIR / f"{sha}.json"

    def text_ref(self, sha: str) -> str:
        """How a record names the text of PDF ``sha``: relative, so the cache folder can move."""
        return self.text(sha).relative_to(self.root).as_posix()

    def answers(self) -> Path:
        return self.root / LLM_DIR

    def answer(self, key: str) -> Path:
        return self.answers() / key[:2] / f"{key}.json"
