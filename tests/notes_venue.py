"""A venue whose papers have approved summaries: what the notes tests start from."""

from __future__ import annotations

from conftest import Project, summary_text
from fetched_venue import VENUE, write_venue
from summarizer.core.store import Store


def write_approved_venue(project: Project, n: int) -> Store:
    """``write_venue``'s n papers (even ones with text, odd ones abstract only), each with an approved summary."""
    store = write_venue(project, n)
    for record in store.records(VENUE):
        record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
        record.summaries.approve()
        store.save(record)
    return store
