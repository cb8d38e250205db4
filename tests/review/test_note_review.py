"""Reviewing notes: list, show, approve, reject, edit (in $EDITOR or from a file), and the review state
carried through export and import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, RunCli
from fetched_venue import VENUE, paper_id
from notes_venue import write_approved_venue
from summarizer.core.store import Store

NOTE = "## 研究背景与动机\n模型写的背景，说明 attention 的代价。\n\n## 方法详解\n### 整体框架\n分层稀疏注意力。\n"


def with_notes(project: Project, n: int = 4) -> Store:
    """Papers with approved summaries and a draft model note each (the even ones: those with text)."""
    store = write_approved_venue(project, n)
    for record in store.records(VENUE):
        record.notes.add_version(NOTE, "llm", model="fake-model", checked=True)
        store.save(record)
    return store


def ref(i: int) -> str:
    return f"{VENUE}/{paper_id(i)}"


def test_approve_reject_and_list_by_note_status(project: Project, cli: RunCli) -> None:
    store = with_notes(project)

    assert cli("review", "notes", "approve", ref(0), ref(1)).code == 0
    rejected = cli("review", "notes", "reject", ref(2), "--reason", "数字对不上")
    assert rejected.code == 0 and "stays off the site" in rejected.err
    assert cli("review", "notes", "approve", ref(3), f"{VENUE}/2601.99999").code == 2  # one bad id: none approved

    notes = {r.id: r.notes for r in store.records(VENUE)}
    assert [notes[paper_id(i)].status for i in range(4)] == ["approved", "approved", "rejected", "draft"]
    assert notes[paper_id(2)].review_note == "数字对不上"
    assert all(r.summaries.status == "approved" for r in store.records(VENUE))  # the summaries are reviewed apart
    drafts = cli("review", "notes", "list", VENUE, "--status", "draft")
    assert paper_id(3) in drafts.out and paper_id(0) not in drafts.out and "1 notes" in drafts.out
    assert cli("review", "notes", "approve", VENUE, "--all").code == 0
    assert store.load(VENUE, paper_id(3)).notes.status == "approved"

    shown = cli("review", "notes", "show", ref(2))
    assert "# Paper 02" in shown.out and "## 一句话总结" in shown.out and "reviewer's note: 数字对不上" in shown.out
    assert "**arXiv**: [2601.00002](https://arxiv.org/abs/2601.00002)" in shown.out


def test_edit_from_a_file_is_a_human_version_and_an_approved_note_stays_published(
    project: Project, cli: RunCli, tmp_path: Path
) -> None:
    store = with_notes(project, 1)
    assert cli("review", "notes", "approve", ref(0)).code == 0
    edited = tmp_path / "note.md"
    edited.write_text(NOTE.replace("模型写的背景", "编辑改过的背景"), "utf-8")

    result = cli("review", "notes", "edit", ref(0), "--file", str(edited))

    assert result.code == 0, result.err
    notes = store.load(VENUE, paper_id(0)).notes
    assert [v.origin for v in notes.versions] == ["llm", "human"] and notes.approved_version == 1
    assert "stays published" in result.err
    again = cli("review", "notes", "edit", ref(0), "--file", str(edited))
    assert again.code == 0 and "nothing changed" in again.err
    edited.write_text("## 研究背景与动机\n\\(\\href{javascript:x}{y}\\)\n", "utf-8")
    refused = cli("review", "notes", "edit", ref(0), "--file", str(edited))
    assert refused.code == 2 and "unsafe TeX \\href" in refused.err
    assert len(store.load(VENUE, paper_id(0)).notes.versions) == 2


def test_edit_in_the_editor_keeps_the_text_when_the_note_changed_meanwhile(
    project: Project, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import summarizer.apps.cli.note_commands as note_commands

    store = with_notes(project, 1)

    def editor(text: str) -> str:
        assert text.startswith("<!-- summarizer: the note of Paper 00") and NOTE in text
        record = store.load(VENUE, paper_id(0))  # meanwhile, someone else edits the note
        record.notes.add_version(NOTE + "\n别人的修改。\n", "human")
        store.save(record)
        return text.replace("模型写的背景", "我的修改")

    monkeypatch.setattr(note_commands, "_run_editor", editor)
    result = cli("review", "notes", "edit", ref(0))

    assert result.code == 2 and "changed while you were editing" in result.err
    kept = next((project.root / "outputs" / "unsaved-edits").iterdir()).read_text("utf-8")
    assert "我的修改" in kept and "<!-- summarizer" not in kept  # the person's words, not lost
    assert len(store.load(VENUE, paper_id(0)).notes.versions) == 2


def export_lines(cli: RunCli, config: Path | None = None) -> list[dict[str, Any]]:
    result = cli("export", VENUE, config=config)
    assert result.code == 0, result.err
    return [json.loads(line) for line in result.out.splitlines()]


def test_an_export_restores_every_notes_review_state(
    project: Project, cli: RunCli, tmp_path_factory: pytest.TempPathFactory
) -> None:
    store = with_notes(project)
    cli("review", "notes", "approve", ref(0), ref(1))
    cli("review", "notes", "reject", ref(2), "--note", "不准确")
    record = store.load(VENUE, paper_id(1))
    record.notes.add_version(NOTE + "\n新的一版。\n", "llm")  # a pending draft on an approved note
    record.notes.code_url = "https://github.com/a/b"
    store.save(record)
    exported = export_lines(cli)
    assert exported[1]["notes"]["pending"]["markdown"].endswith("新的一版。\n")

    fresh = Project(tmp_path_factory.mktemp("fresh"), dict(project.config))
    fresh.write_config()
    path = fresh.write_jsonl("export.jsonl", exported)
    assert cli("import", str(path), config=fresh.config_path).code == 0

    assert export_lines(cli, fresh.config_path) == exported
    notes = {r.id: r.notes for r in fresh.store().records(VENUE)}
    assert [notes[paper_id(i)].status for i in range(4)] == ["approved", "approved", "rejected", "draft"]
    assert notes[paper_id(1)].has_pending_draft and notes[paper_id(1)].code_url == "https://github.com/a/b"
    assert notes[paper_id(2)].review_note == "不准确"
    before = {p: p.read_bytes() for p in (fresh.root / "outputs").rglob("*.json")}
    assert cli("import", str(path), config=fresh.config_path).code == 0  # the same export again: no change
    assert {p: p.read_bytes() for p in (fresh.root / "outputs").rglob("*.json")} == before
