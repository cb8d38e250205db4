"""A record holds its summaries and its note the same way; a schema-1 record (a summary's review state flat on
the record) is read into ``summaries`` and written back as schema 2."""

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


def test_a_schema_1_record_reads_its_flat_review_state_into_summaries_and_is_written_as_schema_2(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records" / "ICML2026" / "2601.00001.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(OLDER), "utf-8")
    store = Store(tmp_path)

    record = store.load("ICML2026", "2601.00001")
    assert record.summaries.approved is not None and record.summaries.approved.summary == "本文提出一种方法。"
    assert record.summaries.review_note == OLDER["note"]  # the reason's oldest name, read too
    assert record.notes.versions == [] and record.notes.current is None
    store.save(record)

    written = json.loads(path.read_text("utf-8"))
    assert written["schema_version"] == 2 and "notes" not in written
    assert not {"versions", "status", "approved_version", "review_note", "note"} & set(written)
    version = dict(OLDER["versions"][0], model=None, prompt_hash=None, feedback=None, warnings=[], checked=False)
    assert written["summaries"] == {
        "versions": [version],
        "status": "approved",
        "approved_version": 1,
        "review_note": OLDER["note"],
    }
    assert store.load("ICML2026", "2601.00001") == record  # and reads back the same


def test_a_schema_1_record_with_a_note_keeps_it_beside_its_summaries(tmp_path: Path) -> None:
    note = {"versions": [{"number": 1, "markdown": "## 背景\n背景。\n", "origin": "llm"}], "status": "draft"}
    path = tmp_path / "records" / "ICML2026" / "2601.00001.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({**OLDER, "notes": note}), "utf-8")

    record = Store(tmp_path).load("ICML2026", "2601.00001")
    assert record.summaries.status == "approved" and record.notes.current is not None
    assert record.notes.current.markdown == "## 背景\n背景。\n" and record.notes.status == "draft"


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
    assert again.summaries.status == "draft" and again.summaries.versions == []  # the summary's state is its own
