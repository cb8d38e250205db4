"""A record's note track: records without a note are written as before notes existed, and read as before."""

from __future__ import annotations

import json
from pathlib import Path

from summarizer.core.records import Record
from summarizer.core.store import Store

OLDER = {
    "schema_version": 1,
    "venue": "ICML2026",
    "id": "2601.00001",
    "title": "A Paper",
    "versions": [
        {
            "number": 1,
            "summary": "本文提出一种方法。",
            "tags": ["LLM"],
            "field": "f",
            "origin": "llm",
            "created_at": "x",
        }
    ],
    "status": "approved",
    "approved_version": 1,
    "note": "an older record's name for the reviewer's note",
}


def test_a_record_without_a_note_reads_and_writes_as_before(tmp_path: Path) -> None:
    path = tmp_path / "records" / "ICML2026" / "2601.00001.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(OLDER), "utf-8")
    store = Store(tmp_path)

    record = store.load("ICML2026", "2601.00001")
    assert record.notes.versions == [] and record.notes.current is None and record.approved is not None
    store.save(record)

    written = json.loads(path.read_text("utf-8"))
    assert "notes" not in written  # an older summarizer (extra keys forbidden) still reads it
    assert written["review_note"] == OLDER["note"]


def test_a_note_is_written_with_its_own_review_state_and_read_back(tmp_path: Path) -> None:
    store = Store(tmp_path)
    record = Record(venue="ICML2026", id="2601.00001", title="A Paper")
    record.notes.add_version("## 研究背景与动机\n背景。\n", "llm", model="m", warnings=["w"])
    record.notes.add_version("## 研究背景与动机\n人写的背景。\n", "human")
    record.notes.approve(1)
    store.save(record)

    again = store.load("ICML2026", "2601.00001")
    assert again.notes == record.notes
    assert again.notes.has_pending_draft and again.notes.has_human_version and again.notes.approved.number == 1  # type: ignore[union-attr]
    assert again.status == "draft" and again.versions == []  # the summary's state is its own
