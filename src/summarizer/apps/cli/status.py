"""Where a venue stands: papers, fetched, summarised, by review status, notes, failures, usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from summarizer.core.config import Settings
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.core.usage import Usage
from summarizer.summarize.batch_state import batch_rows


def venue_status(
    venue_id: str, records: list[Record], corrupt: list[Path] | None = None, outputs_dir: Path | None = None
) -> dict[str, Any]:
    usage = Usage()
    by_status = {"draft": 0, "approved": 0, "rejected": 0}
    notes = {"draft": 0, "approved": 0, "rejected": 0}
    failed = []
    for record in records:
        usage.add(record.usage)
        if record.summaries.versions:
            by_status[record.summaries.status] += 1
        if record.notes.versions:
            notes[record.notes.status] += 1
        for stage in ("fetch", "summarize", "notes"):
            failure = record.failures.get(stage)
            if failure is not None:
                failed.append({"id": record.id, "stage": stage, "reason": failure.reason})
    return {
        "venue": venue_id,
        "papers": len(records),
        "fetched": sum(1 for r in records if r.fetch.text_path and not r.fetch.abstract_only),
        "summarized": sum(1 for r in records if r.summaries.versions),
        "by_status": by_status,
        "notes": notes,
        "failed": failed,
        "corrupt": [str(p) for p in corrupt or []],
        "usage": {
            "llm_calls": usage.llm_calls,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cost_usd": round(usage.cost_usd, 6),
        },
        "batches": _batches(outputs_dir, venue_id),
        "note_batches": _batches(outputs_dir, venue_id, "note"),
    }


def _batches(outputs_dir: Path | None, venue_id: str, kind: str = "summary") -> list[dict[str, Any]]:
    """The venue's batches (of ``summarize --batch``, or ``notes --batch``): id, status, completed, failed, total."""
    return batch_rows(outputs_dir, venue_id, kind) if outputs_dir is not None else []


def known_venues(settings: Settings, store: Store) -> list[str]:
    """Configured venues in config order, then any venue found only on disk."""
    configured = [v.id for v in settings.venues]
    return configured + [v for v in store.venues() if v not in configured]


def all_status(settings: Settings, store: Store) -> list[dict[str, Any]]:
    return [store_status(store, v) for v in known_venues(settings, store)]


def store_status(store: Store, venue_id: str) -> dict[str, Any]:
    """The venue's status from its readable records (naming the corrupt ones it skipped) and its batches."""
    records = store.records(venue_id)
    return venue_status(venue_id, records, store.corrupt_in(venue_id), store.outputs_dir)
