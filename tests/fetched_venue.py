"""A venue of fetched papers, written straight into a project: what the summarize tests start from."""

from __future__ import annotations

from conftest import Project
from summarizer.core.paper_text import PaperText
from summarizer.core.records import FetchState, Record
from summarizer.core.store import Store

VENUE = "ICML2026"
N = 33


def paper_id(i: int) -> str:
    return f"2601.{i:05d}"


def title(i: int) -> str:
    return f"Paper {i:02d}: Sparse Attention for LLM Pretraining"


def write_venue(project: Project, n: int = N) -> Store:
    """n fetched papers: even ones with extracted text in cache/text/, odd ones from the arXiv abstract only."""
    settings = project.settings()
    store = Store(settings.outputs_dir)
    for i in range(n):
        record = Record(
            venue=VENUE,
            id=paper_id(i),
            title=title(i),
            arxiv_id=paper_id(i),
            abstract=f"We study sparse attention for LLM pretraining (paper {i}). It cuts compute by 40%.",
        )
        if i % 2 == 0:
            text = PaperText(
                title=title(i),
                abstract=record.abstract or "",
                introduction="Transformers are expensive. " * 30,
                conclusion="Sparse attention matches dense attention at 40% less compute.",
            )
            rel = f"text/{i:064x}.json"
            path = settings.cache_dir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.to_json(), "utf-8")
            record.fetch = FetchState(text_path=rel)
        else:
            record.fetch = FetchState(abstract_only=True)
        store.save(record)
    return store


def abstract_title(i: int) -> str:
    return f"Paper {i:03d}: Sparse Attention for LLM Pretraining"


def write_abstract_venue(project: Project, n: int, venue: str = VENUE) -> Store:
    """n papers known from their arXiv abstracts (fetched, abstract only): what the batch tests start from."""
    store = project.store()
    for i in range(n):
        record = Record(
            venue=venue,
            id=f"2601.{i:05d}",
            title=abstract_title(i),
            arxiv_id=f"2601.{i:05d}",
            abstract=f"We study sparse attention for LLM pretraining (paper {i}). It cuts compute by 40%.",
            fetch=FetchState(abstract_only=True),
        )
        store.save(record)
    return store
