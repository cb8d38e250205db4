"""An import file names nothing but its own lines: no twin by a trailing newline, no file overwritten,
every line read back as written, one bad byte costs one line, and its words print as written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core.config_file import load_settings
from summarizer.core.errors import ConfigError


def row(n: int, **changes: Any) -> dict[str, Any]:
    base = {"venue": "ICML2026", "title": f"Paper number {n}", "arxiv_id": f"2601.{n:05d}",
            "summary": summary_text(f"主题{n}"), "tags": ["LLM"], "field": "llm_pretraining"}  # fmt: skip
    return dict(base, **changes)


def write_lines(project: Project, name: str, lines: list[bytes]) -> Path:
    path = project.root / name
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def encoded(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def test_an_id_with_a_trailing_newline_is_refused_not_a_twin(cli: RunCli, project: Project) -> None:
    assert cli("import", str(project.write_jsonl("a.jsonl", [row(1, id="paper-one")]))).code == 0

    result = cli("import", str(project.write_jsonl("b.jsonl", [row(2, id="paper-one\n")])))

    assert result.code == 2 and "b.jsonl:1: id: not a usable id" in result.err
    assert [r.id for r in project.store().records("ICML2026")] == ["paper-one"]


@pytest.mark.parametrize("where", ["venue", "field"])
def test_a_config_id_with_a_trailing_newline_is_refused(project: Project, where: str) -> None:
    section = "venues" if where == "venue" else "fields"
    items = [dict(item) for item in project.config[section]]
    items[0]["id"] += "\n"
    project.write_config(**{section: items})
    with pytest.raises(ConfigError, match=rf"{section}\[0\]\.id: use letters, digits"):
        load_settings(project.config_path)


def test_skip_invalid_never_overwrites_a_rejected_file_it_did_not_write(cli: RunCli, project: Project) -> None:
    path = project.write_jsonl("in.jsonl", [row(1), {"venue": "ICML2026"}])
    fixed_by_hand = project.root / "in.rejected.jsonl"
    fixed_by_hand.write_text("a line an editor is fixing\n", "utf-8")

    result = cli("import", str(path), "--skip-invalid")

    assert result.code == 1
    assert fixed_by_hand.read_text("utf-8") == "a line an editor is fixing\n"
    second = project.root / "in.rejected.2.jsonl"
    assert second.is_file() and "in.rejected.2.jsonl" in result.err


def test_rejected_never_overwrites_a_file_named_on_the_command_line(cli: RunCli, project: Project) -> None:
    config = project.config_path.read_bytes()
    path = project.write_jsonl("in.jsonl", [row(1), {"venue": "ICML2026"}])

    result = cli("import", str(path), "--skip-invalid", "--rejected", str(project.config_path))

    assert result.code == 2 and "already exists" in result.err
    assert project.config_path.read_bytes() == config
    assert project.store().records("ICML2026") == []  # refused before anything was imported


def test_line_and_paragraph_separators_round_trip_through_export_and_import(cli: RunCli, project: Project) -> None:
    abstract = "First part.\u2028Second part.\u2029Third part."
    assert cli("import", str(project.write_jsonl("in.jsonl", [row(1, abstract=abstract), row(2)]))).code == 0
    exported = cli("export", "ICML2026")
    for path in (project.root / "outputs" / "records" / "ICML2026").glob("*.json"):
        path.unlink()
    again = project.root / "again.jsonl"
    again.write_text(exported.out, "utf-8")

    result = cli("import", str(again))

    assert result.code == 0, result.err
    assert project.store().load("ICML2026", "2601.00001").abstract == abstract


def test_one_bad_byte_costs_its_line_alone(cli: RunCli, project: Project) -> None:
    lines = [encoded(row(n)) for n in range(1, 6)]
    lines[2] = lines[2].replace("主题".encode(), b"\xff\xfe", 1)  # line 3 is not UTF-8

    refused = cli("import", str(write_lines(project, "in.jsonl", lines)))
    assert refused.code == 2 and "in.jsonl:3: not UTF-8 text (byte 0xff at column" in refused.err

    skipped = cli("import", str(write_lines(project, "in2.jsonl", lines)), "--skip-invalid")
    assert skipped.code == 1
    assert sorted(r.id for r in project.store().records("ICML2026")) == [f"2601.0000{n}" for n in (1, 2, 4, 5)]


def test_a_message_quoting_a_file_name_and_line_prints_as_written(cli: RunCli, project: Project) -> None:
    lines = [encoded(row(n)) for n in range(1, 101)]
    lines[99] = encoded(dict(row(100), misc=1))
    result = cli("import", str(write_lines(project, "in100.jsonl", lines)))
    assert result.code == 2
    assert "in100.jsonl:100: misc: unknown key" in result.err
