import json
import os
from pathlib import Path

import pytest

from conftest import summary_text
from summarizer.core import fsutil
from summarizer.core.errors import FileSystemError, RecordError, UsageError
from summarizer.core.ids import parse_arxiv_id, record_id, slugify
from summarizer.core.records import SCHEMA_VERSION, Record
from summarizer.core.store import Store


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2501.12948", "2501.12948"),
        ("2501.12948v2", "2501.12948v2"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("math.GT/0309136v1", "math.GT/0309136v1"),
        ("https://arxiv.org/abs/2501.12948", "2501.12948"),
        ("http://arxiv.org/pdf/2501.12948v3.pdf", "2501.12948v3"),
        ("https://arxiv.org/pdf/hep-th/9901001", "hep-th/9901001"),
        ("arXiv:2401.00001", "2401.00001"),
        ("Attention Is All You Need", None),
        ("2501.1294", None),
        ("0808.0539", "0808.0539"),
        ("2513.12345", None),
        ("https://example.com/abs/2501.12948", None),
    ],
)
def test_parse_arxiv_id(text: str, expected: str | None) -> None:
    assert parse_arxiv_id(text) == expected


def test_paper_ids_are_safe_path_segments() -> None:
    assert record_id(arxiv_id="2501.12948v2") == "2501.12948"
    assert record_id(arxiv_id="hep-th/9901001") == "hep-th_9901001"
    assert record_id(title="../../x") == "x"
    assert record_id(title="<script>alert(1)</script>") == "script-alert-1-script"
    assert len(slugify("A" * 300)) == 80
    chinese = record_id(title="纯中文标题")
    assert chinese.startswith("paper-") and chinese == record_id(title="纯中文标题")


def make_record(venue: str = "ICML2026", pid: str = "2501.00001") -> Record:
    record = Record(venue=venue, id=pid, title="A Paper", arxiv_id=pid)
    record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm", model="m")
    return record


def test_save_load_round_trip_and_unchanged_write(tmp_path: Path) -> None:
    store = Store(tmp_path)
    record = make_record()
    assert store.save(record) is True
    path = store.path("ICML2026", "2501.00001")
    assert json.loads(path.read_text("utf-8"))["schema_version"] == SCHEMA_VERSION
    mtime = path.stat().st_mtime_ns
    assert store.save(store.load("ICML2026", "2501.00001")) is False  # same bytes: not rewritten
    assert path.stat().st_mtime_ns == mtime
    assert store.load("ICML2026", "2501.00001") == record
    assert [r.id for r in store.records("ICML2026")] == ["2501.00001"]
    assert store.venues() == ["ICML2026"]


def test_crash_between_write_and_rename_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path)
    record = make_record()
    store.save(record)
    path = store.path("ICML2026", "2501.00001")
    before = path.read_bytes()
    record.summaries.add_version(summary_text("长上下文"), ["推理"], "llm_reasoning", "human")

    def crash(src: str, dst: str) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(FileSystemError, match=r"2501\.00001\.json: power cut"):
        store.save(record)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def test_corrupt_or_foreign_record_is_a_clear_error(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.path("ICML2026", "x")
    path.parent.mkdir(parents=True)
    path.write_text("{half", "utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        store.load("ICML2026", "x")
    path.write_text(json.dumps({"schema_version": 99}), "utf-8")
    with pytest.raises(RecordError, match="schema version 99"):
        store.load("ICML2026", "x")


def test_record_breaking_its_schema_names_every_key(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.path("ICML2026", "x")
    path.parent.mkdir(parents=True)
    record = json.loads(Record(venue="ICML2026", id="x", title="T").model_dump_json())
    record.update(colour="red", title=["not", "text"])
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(RecordError) as caught:
        store.load("ICML2026", "x")
    assert str(caught.value).endswith("x.json: 2 problems: colour: unknown key; title: Input should be a valid string")


def test_hostile_ids_never_leave_the_folder(tmp_path: Path) -> None:
    store = Store(tmp_path)
    for bad in ("../x", "a/b", "..", "", ".hidden"):
        with pytest.raises(UsageError):
            store.path("ICML2026", bad)


def test_versions_approval_and_pending_draft() -> None:
    summaries = make_record().summaries
    assert summaries.status == "draft" and summaries.needs_review and summaries.approved is None
    summaries.approve()
    assert summaries.approved is not None and summaries.approved.number == 1 and not summaries.needs_review
    summaries.add_version(summary_text("对齐"), ["LLM"], "llm_pretraining", "llm")
    assert summaries.status == "approved" and summaries.has_pending_draft and summaries.needs_review
    assert summaries.approved.number == 1 and summaries.current is not None and summaries.current.number == 2
    summaries.approve()
    assert summaries.approved.number == 2 and not summaries.has_pending_draft


def test_written_files_honour_the_umask_and_keep_their_mode(tmp_path: Path) -> None:
    from summarizer.core import fsutil

    fresh = tmp_path / "fresh.txt"
    fsutil.atomic_write_text(fresh, "a")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~fsutil._UMASK  # as open() would, not mkstemp's 0600
    fresh.chmod(0o640)
    fsutil.atomic_write_text(fresh, "b")
    assert fresh.stat().st_mode & 0o777 == 0o640 and fresh.read_text() == "b"


def test_the_same_failure_again_leaves_the_record_unchanged(tmp_path: Path) -> None:
    store = Store(tmp_path)
    record = make_record()
    record.fail("fetch", "not a PDF")
    record.failures["fetch"].at = "2026-01-01T00:00:00Z"
    store.save(record)
    record.fail("fetch", "not a PDF")
    assert store.save(record) is False
    record.fail("fetch", "HTTP 404")
    assert store.save(record) is True and record.failures["fetch"].reason == "HTTP 404"


def test_all_or_nothing_lands_every_save_together_or_none(tmp_path: Path) -> None:
    store = Store(tmp_path)
    first, second = (
        Record(venue="ICML2026", id="2601.00001", title="A"),
        Record(venue="ICML2026", id="2601.00002", title="B"),
    )
    with pytest.raises(RuntimeError), store.all_or_nothing():
        store.save(first)
        store.save(second)
        raise RuntimeError("a crash half way")
    assert not any(p.is_file() for p in tmp_path.rglob("*"))  # no record, no temp file
    with store.all_or_nothing():
        assert store.save(first) and store.save(second)
        assert store.get("ICML2026", "2601.00001") is None  # not in place until the block ends
        first.title = "A, again"
        assert store.save(first)  # a second save of one record inside the block replaces the first
    assert store.load("ICML2026", "2601.00001").title == "A, again"
    assert sorted(p.name for p in store.venue_dir("ICML2026").iterdir()) == ["2601.00001.json", "2601.00002.json"]
    with store.all_or_nothing():
        assert not store.save(second)  # unchanged: nothing written


def _two_records(store: Store) -> None:
    with store.all_or_nothing():
        store.save(Record(venue="ICML2026", id="2601.00001", title="A"))
        store.save(Record(venue="ICLR2026", id="2601.00002", title="B"))


def test_a_write_batch_flushes_its_own_file_system_not_the_whole_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if fsutil._libc_syncfs() is None:
        pytest.skip("no syncfs here: os.sync() is the fallback")
    flushed: list[int] = []
    real = fsutil._libc_syncfs()
    assert real is not None
    monkeypatch.setattr(fsutil, "_libc_syncfs", lambda: lambda fd: flushed.append(os.fstat(fd).st_dev) or real(fd))
    monkeypatch.setattr(os, "sync", lambda: pytest.fail("os.sync() flushes every disk of a shared machine"))
    _two_records(Store(tmp_path))
    assert flushed == [os.stat(tmp_path).st_dev]  # two folders, one file system: one flush


def test_a_write_batch_without_syncfs_falls_back_to_sync_and_a_failed_flush_lands_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[bool] = []
    monkeypatch.setattr(fsutil, "_libc_syncfs", lambda: None)
    monkeypatch.setattr(os, "sync", lambda: synced.append(True))
    _two_records(Store(tmp_path / "a"))
    assert synced == [True] and len(list((tmp_path / "a").rglob("*.json"))) == 2

    monkeypatch.setattr(fsutil, "_libc_syncfs", lambda: lambda fd: -1)
    monkeypatch.setattr(fsutil, "_errno", lambda: 5)
    with pytest.raises(FileSystemError, match="Input/output error"):
        _two_records(Store(tmp_path / "b"))
    assert not any(p.is_file() for p in (tmp_path / "b").rglob("*"))  # no record, no temp file


def test_a_record_written_with_the_earlier_note_key_reads_as_its_review_note(tmp_path: Path) -> None:
    store = Store(tmp_path)
    path = store.path("ICML2026", "2601.00001")
    path.parent.mkdir(parents=True)
    older = {"schema_version": 1, "venue": "ICML2026", "id": "2601.00001", "title": "T", "note": "off topic"}
    path.write_text(json.dumps(older), "utf-8")

    record = store.load("ICML2026", "2601.00001")

    assert record.summaries.review_note == "off topic"
    store.save(record)
    assert '"review_note": "off topic"' in path.read_text("utf-8") and '"note"' not in path.read_text("utf-8")


def test_a_runaway_answer_is_kept_with_its_failure_but_not_in_full() -> None:
    record = Record(venue="ICML2026", id="2601.00001", title="T")
    record.fail("summarize", "still invalid", attempts=3, raw_output="长" * 2_000_000)
    kept = record.failures["summarize"].raw_output
    assert kept is not None and kept.startswith("长" * 100) and len(kept) < 20_100
    assert kept.endswith("…[cut: 1980000 more characters]")
