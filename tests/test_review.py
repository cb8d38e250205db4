import json
import sys
from pathlib import Path

import pytest

from conftest import Project, RunCli, summary_text

ROWS = [
    {"venue": "ICML2026", "title": f"Paper {n}", "arxiv_id": f"2601.0000{n}", "summary": summary_text(f"主题{n}"),
     "tags": ["LLM"], "field": "llm_pretraining"}
    for n in range(1, 5)
]  # fmt: skip


@pytest.fixture
def imported(cli: RunCli, project: Project) -> Project:
    assert cli("import", str(project.write_jsonl("in.jsonl", ROWS))).code == 0
    return project


def test_approve_reject_and_list(cli: RunCli, imported: Project) -> None:
    assert cli("review", "approve", "ICML2026/2601.00001", "ICML2026/2601.00002").code == 0
    result = cli("review", "reject", "ICML2026/2601.00003", "--note", "不是本会议的论文")
    assert result.code == 0
    store = imported.store()
    assert store.load("ICML2026", "2601.00001").status == "approved"
    rejected = store.load("ICML2026", "2601.00003")
    assert rejected.status == "rejected" and rejected.note == "不是本会议的论文"

    drafts = cli("review", "list", "ICML2026", "--status", "draft")
    assert drafts.code == 0
    assert "2601.00004" in drafts.out and "2601.00001" not in drafts.out and "2601.00003" not in drafts.out
    assert "2601.00003" in cli("review", "list", "ICML2026", "--status", "rejected").out
    everything = cli("review", "list", "ICML2026").out
    assert all(f"2601.0000{n}" in everything for n in range(1, 5))

    result = cli("review", "approve", "ICML2026", "--all")
    assert result.code == 0 and "1 papers approved" in result.err  # only the remaining draft
    assert store.load("ICML2026", "2601.00003").status == "rejected"


def test_unknown_paper_is_a_usage_error(cli: RunCli, imported: Project) -> None:
    result = cli("review", "approve", "ICML2026/2601.09999")
    assert result.code == 2 and "no record ICML2026/2601.09999" in result.err


def test_edit_with_flags_adds_a_human_version_and_validates(cli: RunCli, imported: Project) -> None:
    cli("review", "approve", "ICML2026/2601.00001")
    new_text = summary_text("人工修订")
    result = cli("review", "edit", "ICML2026/2601.00001", "--summary", new_text, "--tags", "大语言模型, 推理")
    assert result.code == 0, result.err
    record = imported.store().load("ICML2026", "2601.00001")
    assert [v.origin for v in record.versions] == ["import", "human"]
    assert record.current is not None and record.current.tags == ["LLM", "推理"]
    assert record.approved is not None and record.approved.number == 1  # published text waits for approval
    assert "approved*" in cli("review", "list", "ICML2026", "--status", "draft").out

    bad = cli("review", "edit", "ICML2026/2601.00001", "--field", "cooking")
    assert bad.code == 2 and "unknown field 'cooking'" in bad.err
    english = cli("review", "edit", "ICML2026/2601.00001", "--summary", "English only text " * 5)
    assert english.code == 2 and "no Chinese" in english.err
    assert len(imported.store().load("ICML2026", "2601.00001").versions) == 2


def write_editor(tmp_path: Path, replies: list[str]) -> str:
    """A stand-in for $EDITOR that writes the given replies, one per invocation."""
    state = tmp_path / "editor-state.json"
    state.write_text(json.dumps(replies), "utf-8")
    script = tmp_path / "fake_editor.py"
    script.write_text(
        "import json, sys\n"
        f"state = {str(state)!r}\n"
        "replies = json.load(open(state))\n"
        "seen = open(sys.argv[1]).read()\n"
        "open(state + '.seen', 'a').write(seen + '\\n=====\\n')\n"
        "open(sys.argv[1], 'w').write(replies.pop(0))\n"
        "json.dump(replies, open(state, 'w'))\n",
        "utf-8",
    )
    return f"{sys.executable} {script}"


def test_edit_in_editor_reopens_on_error(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    good = summary_text("编辑器")
    editor = write_editor(
        tmp_path,
        [
            "summary: too short\ntags: [LLM]\nfield: llm_pretraining\n",
            f"summary: {good}\ntags: [LLM, 推理]\nfield: llm_reasoning\n",
        ],
    )
    result = cli("review", "edit", "ICML2026/2601.00002", env={"EDITOR": editor, "VISUAL": editor})
    assert result.code == 0, result.err
    assert "not saved:" in result.err and "no Chinese" in result.err
    seen = (tmp_path / "editor-state.json.seen").read_text("utf-8").split("=====")
    assert "# ERROR: the summary has no Chinese" in seen[1]  # reopened with the problem noted
    record = imported.store().load("ICML2026", "2601.00002")
    assert record.current is not None and record.current.origin == "human"
    assert record.current.summary == good and record.current.field == "llm_reasoning"


def test_show_has_abstract_summary_history(cli: RunCli, imported: Project) -> None:
    cli("review", "edit", "ICML2026/2601.00001", "--summary", summary_text("历史"))
    result = cli("review", "show", "ICML2026/2601.00001")
    assert result.code == 0
    for expected in ("Paper 1", "https://arxiv.org/abs/2601.00001", "history", "import", "human", "历史"):
        assert expected in result.out
