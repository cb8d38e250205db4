import json
import sys
from pathlib import Path

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core.records import Record

ROWS = [
    {"venue": "ICML2026", "title": f"Paper {n}", "arxiv_id": f"2601.0000{n}", "summary": summary_text(f"主题{n}"),
     "tags": ["LLM"], "field": "llm_pretraining"}
    for n in range(1, 5)
]  # fmt: skip
pytestmark = pytest.mark.import_rows(ROWS)


def listed_ids(table: str) -> list[str]:
    """The id column of `review list` (other cells may name papers too: "nearly identical to …")."""
    rows = (line.split() for line in table.splitlines() if line.startswith("│"))
    return [cells[1] for cells in rows if len(cells) > 1 and cells[1][:1].isdigit()]


def test_approve_reject_and_list(cli: RunCli, imported: Project) -> None:
    assert cli("review", "approve", "ICML2026/2601.00001", "ICML2026/2601.00002").code == 0
    result = cli("review", "reject", "ICML2026/2601.00003", "--reason", "不是本会议的论文")
    assert result.code == 0
    store = imported.store()
    assert store.load("ICML2026", "2601.00001").summaries.status == "approved"
    rejected = store.load("ICML2026", "2601.00003")
    assert rejected.summaries.status == "rejected" and rejected.summaries.review_note == "不是本会议的论文"

    drafts = cli("review", "list", "ICML2026", "--status", "draft")
    assert drafts.code == 0
    assert listed_ids(drafts.out) == ["2601.00004"]
    assert listed_ids(cli("review", "list", "ICML2026", "--status", "rejected").out) == ["2601.00003"]
    everything = cli("review", "list", "ICML2026").out
    assert listed_ids(everything) == [f"2601.0000{n}" for n in range(1, 5)]

    result = cli("review", "approve", "ICML2026", "--all")
    assert result.code == 0 and "1 paper approved in ICML2026" in result.err  # only the remaining draft
    assert store.load("ICML2026", "2601.00003").summaries.status == "rejected"


def test_unknown_paper_is_a_usage_error(cli: RunCli, imported: Project) -> None:
    result = cli("review", "approve", "ICML2026/2601.09999")
    assert result.code == 2 and "no record ICML2026/2601.09999" in result.err


def test_edit_with_flags_adds_a_human_version_and_validates(cli: RunCli, imported: Project) -> None:
    cli("review", "approve", "ICML2026/2601.00001")
    new_text = summary_text("人工修订")
    result = cli("review", "edit", "ICML2026/2601.00001", "--summary", new_text, "--tags", "大语言模型, 推理")
    assert result.code == 0, result.err
    record = imported.store().load("ICML2026", "2601.00001")
    assert [v.origin for v in record.summaries.versions] == ["import", "human"]
    assert record.summaries.current is not None and record.summaries.current.tags == ["LLM", "推理"]
    assert (
        record.summaries.approved is not None and record.summaries.approved.number == 1
    )  # published text waits for approval
    assert "approved*" in cli("review", "list", "ICML2026", "--status", "draft").out

    bad = cli("review", "edit", "ICML2026/2601.00001", "--field", "cooking")
    assert bad.code == 2 and "unknown field 'cooking'" in bad.err
    unsafe = cli("review", "edit", "ICML2026/2601.00001", "--summary", "见 \\(\\href{javascript:alert(1)}{x}\\)")
    assert unsafe.code == 2 and "summary: unsafe TeX \\href" in unsafe.err
    too_many = cli("review", "edit", "ICML2026/2601.00001", "--tags", "a,b,c,d,e,f")
    assert too_many.code == 2 and "tags: 6 tags (at most 5)" in too_many.err
    assert len(imported.store().load("ICML2026", "2601.00001").summaries.versions) == 2


def write_editor(tmp_path: Path, replies: list[str | None], *, meanwhile: list[str] | None = None) -> str:
    """A stand-in for $EDITOR that writes the given replies, one per invocation (the last one forever after).

    A reply of None closes the editor without saving.

    ``meanwhile``: a command run while the editor is open (its exit code goes to editor-state.json.rc),
    as another editor working on the same venue would.
    """
    state = tmp_path / "editor-state.json"
    state.write_text(json.dumps(replies), "utf-8")
    script = tmp_path / "fake_editor.py"
    script.write_text(
        "import json, subprocess, sys\n"
        f"state = {str(state)!r}\n"
        f"meanwhile = {meanwhile!r}\n"
        "if meanwhile:\n"
        "    rc = subprocess.run(meanwhile).returncode\n"
        "    open(state + '.rc', 'a').write(f'{rc}\\n')\n"
        "replies = json.load(open(state))\n"
        "seen = open(sys.argv[1]).read()\n"
        "open(state + '.seen', 'a').write(seen + '\\n=====\\n')\n"
        "reply = replies.pop(0) if len(replies) > 1 else replies[0]\n"
        "if reply is not None:\n"
        "    open(sys.argv[1], 'w').write(reply)\n"
        "json.dump(replies, open(state, 'w'))\n",
        "utf-8",
    )
    return f"{sys.executable} {script}"


def test_edit_in_editor_reopens_on_error(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    good = summary_text("编辑器")
    editor = write_editor(
        tmp_path,
        [
            "summary: too short\ntags: [LLM]\nfield: cooking\n",
            f"summary: {good}\ntags: [LLM, 推理]\nfield: llm_reasoning\n",
        ],
    )
    result = cli("review", "edit", "ICML2026/2601.00002", env={"EDITOR": editor, "VISUAL": editor})
    assert result.code == 0, result.err
    assert "not saved:" in result.err and "unknown field 'cooking'" in result.err
    seen = (tmp_path / "editor-state.json.seen").read_text("utf-8").split("=====")
    assert "# ERROR: field: unknown field 'cooking'" in seen[1]  # reopened with the problem noted
    assert "summary: too short" in seen[1]  # and with the text as typed
    record = imported.store().load("ICML2026", "2601.00002")
    assert record.summaries.current is not None and record.summaries.current.origin == "human"
    assert record.summaries.current.summary == good and record.summaries.current.field == "llm_reasoning"


def test_show_has_abstract_summary_history(cli: RunCli, imported: Project) -> None:
    cli("review", "edit", "ICML2026/2601.00001", "--summary", summary_text("历史"))
    result = cli("review", "show", "ICML2026/2601.00001")
    assert result.code == 0
    for expected in ("Paper 1", "https://arxiv.org/abs/2601.00001", "history", "import", "human", "历史"):
        assert expected in result.out


def editor_env(editor: str) -> dict[str, str]:
    return {"EDITOR": editor, "VISUAL": editor}


def seen_by_editor(tmp_path: Path) -> list[str]:
    return (tmp_path / "editor-state.json.seen").read_text("utf-8").split("=====")


@pytest.mark.parametrize(
    ("yaml_tags", "expected"),
    [
        ("LLM", ["LLM"]),
        ("LLM, 推理", ["LLM", "推理"]),
        ("LLM，推理", ["LLM", "推理"]),
        ("大语言模型、推理", ["LLM", "推理"]),
    ],
)
def test_editor_tags_as_one_string_are_split_not_spelled(
    cli: RunCli, imported: Project, tmp_path: Path, yaml_tags: str, expected: list[str]
) -> None:
    editor = write_editor(tmp_path, [f"summary: {summary_text('标签')}\ntags: {yaml_tags}\nfield: llm_pretraining\n"])
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 0, result.err
    current = imported.store().load("ICML2026", "2601.00002").summaries.current
    assert current is not None and current.origin == "human" and current.tags == expected


def test_editor_wrong_yaml_types_reopen_the_editor(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    good = summary_text("类型")
    editor = write_editor(
        tmp_path,
        [
            f"summary: {good}\ntags: 12\nfield: llm_pretraining\n",
            "summary: 12345\ntags: {a: b}\nfield: [llm_pretraining]\n",
            f"summary: [{good}]\ntags: [LLM]\nfield: 7\n",
            f"summary: {good}\ntags: [LLM]\nfield: llm_reasoning\n",
        ],
    )
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 0, result.err
    seen = seen_by_editor(tmp_path)
    assert "# ERROR: tags must be a list, e.g. [LLM, 推理]" in seen[1]
    assert "# ERROR: summary must be text" in seen[2] and "# ERROR: field must be one field id" in seen[2]
    assert "# ERROR: tags must be a list" in seen[2]
    assert "# ERROR: summary must be text" in seen[3] and "# ERROR: field must be one field id" in seen[3]
    current = imported.store().load("ICML2026", "2601.00002").summaries.current
    assert current is not None and current.summary == good and current.tags == ["LLM"]
    assert current.field == "llm_reasoning"


MARKUP = "[/b] [bold]x[/bold] [expand]"


def test_brackets_in_record_data_are_printed_not_read_as_markup(cli: RunCli, project: Project) -> None:
    rows = [
        {"venue": "ICML2026", "title": "Robust [expand] Agents", "arxiv_id": "2601.00001",
         "summary": MARKUP + summary_text("方括号"), "tags": ["[/b]", "[bold]x[/bold]", "[expand]"],
         "field": "llm_pretraining"},
    ]  # fmt: skip
    assert cli("import", str(project.write_jsonl("in.jsonl", rows))).code == 0
    assert cli("review", "reject", "ICML2026/2601.00001", "--note", f"note {MARKUP}").code == 0
    store = project.store()
    failed = Record(venue="ICML2026", id="2601.00002", title=f"Failed {MARKUP}")
    failed.fail("summarize", f"reason {MARKUP}", raw_output=f"output {MARKUP}")
    store.save(failed)

    listed = cli("review", "list", "ICML2026")
    assert listed.code == 0, listed.err
    assert "[/b], [bold]x[/bold], [expand]" in listed.out  # the tags
    assert f"reason {MARKUP}" in listed.out

    shown = cli("review", "show", "ICML2026/2601.00001")
    assert shown.code == 0, shown.err
    for expected in ("Robust [expand] Agents", MARKUP, "tags: [/b], [bold]x[/bold], [expand]", f"note {MARKUP}"):
        assert expected in shown.out
    shown = cli("review", "show", "ICML2026/2601.00002")
    assert shown.code == 0, shown.err
    for expected in (f"Failed {MARKUP}", f"reason {MARKUP}", f"output {MARKUP}"):
        assert expected in shown.out


@pytest.mark.parametrize(
    "refs",
    [
        ["ICML2026/2601.00004", "ICML2026/2601.99999"],  # no such record
        ["ICML2026/2601.00004", "ICML2026/2601.00009"],  # a record with no summary yet
        ["ICML2026/2601.00004", "ICLR2026/2601.00001"],  # the bad ref is in a later venue
        ["ICML2026/2601.00004", "NOPE2026/2601.00001"],  # an unknown venue
    ],
)
def test_approve_checks_every_ref_before_approving_any(cli: RunCli, imported: Project, refs: list[str]) -> None:
    store = imported.store()
    store.save(Record(venue="ICML2026", id="2601.00009", title="Not summarised"))
    result = cli("review", "approve", *refs)
    assert result.code == 2, result.err
    assert "approved" not in result.err
    assert [r.summaries.status for r in store.records("ICML2026")] == ["draft"] * 5


def test_approve_several_venues_at_once(cli: RunCli, imported: Project) -> None:
    rows = [dict(ROWS[0], venue="ICLR2026")]
    assert cli("import", str(imported.write_jsonl("iclr.jsonl", rows))).code == 0
    result = cli("review", "approve", "ICML2026/2601.00001", "ICLR2026/2601.00001", "ICML2026/2601.00001")
    assert result.code == 0, result.err
    store = imported.store()
    assert store.load("ICML2026", "2601.00001").summaries.status == "approved"
    assert store.load("ICLR2026", "2601.00001").summaries.status == "approved"
    assert result.err.count("approved ICML2026/2601.00001") == 1


def test_approve_a_bare_venue_hints_at_all(cli: RunCli, imported: Project) -> None:
    result = cli("review", "approve", "ICML2026")
    assert result.code == 2
    assert "to approve all of a venue: summarizer review approve ICML2026 --all" in result.err
    assert all(r.summaries.status == "draft" for r in imported.store().records("ICML2026"))


@pytest.mark.parametrize("editor", ["false", "/nonexistent/editor"])
def test_a_failing_editor_is_a_one_line_usage_error(cli: RunCli, imported: Project, editor: str) -> None:
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 2
    assert result.err.startswith("error: could not run the editor (")
    assert "set $EDITOR, or use --summary/--tags/--field" in result.err
    assert len(imported.store().load("ICML2026", "2601.00002").summaries.versions) == 1


def summarizer_cmd(project: Project, *args: str) -> list[str]:
    return [sys.executable, "-m", "summarizer", "--config", str(project.config_path), *args]


def test_the_editor_runs_without_the_venue_lock(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    good = summary_text("不加锁")
    editor = write_editor(
        tmp_path,
        [f"summary: {good}\ntags: [LLM]\nfield: llm_pretraining\n"],
        meanwhile=summarizer_cmd(imported, "review", "approve", "ICML2026/2601.00001"),
    )
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 0, result.err
    assert (tmp_path / "editor-state.json.rc").read_text().split() == ["0"]  # approve ran while editing
    store = imported.store()
    assert store.load("ICML2026", "2601.00001").summaries.status == "approved"
    current = store.load("ICML2026", "2601.00002").summaries.current
    assert current is not None and current.summary == good


def test_a_paper_changed_while_editing_is_not_overwritten(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    theirs, mine = summary_text("别人的修改"), summary_text("我的修改")
    editor = write_editor(
        tmp_path,
        [f"summary: {mine}\ntags: [LLM]\nfield: llm_pretraining\n"],
        meanwhile=summarizer_cmd(imported, "review", "edit", "ICML2026/2601.00002", "--summary", theirs),
    )
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert (tmp_path / "editor-state.json.rc").read_text().split() == ["0"]
    assert result.code == 2
    assert "ICML2026/2601.00002 changed while you were editing (now version 2)" in result.err
    assert mine in result.err and "review edit" in result.err  # the editor's work is in the message
    record = imported.store().load("ICML2026", "2601.00002")
    assert [v.summary for v in record.summaries.versions][1:] == [theirs]


def test_list_warns_about_abstract_only_summaries(cli: RunCli, imported: Project) -> None:
    store = imported.store()
    record = store.load("ICML2026", "2601.00003")
    record.fetch.abstract_only = True
    store.save(record)
    rows = {line.split()[1]: line for line in cli("review", "list", "ICML2026").out.splitlines() if "2601.0000" in line}
    assert "abstract only" in rows["2601.00003"]
    assert "abstract only" not in rows["2601.00001"]


def unsaved_file(message: str) -> Path:
    path = Path(message.split("your text is in ")[1].split()[0])
    assert path.is_file(), message
    return path


def test_an_editor_that_keeps_writing_invalid_text_gives_up_and_keeps_the_text(
    cli: RunCli, imported: Project, tmp_path: Path
) -> None:
    typed = "summary: 我的改写 \\(\\href{javascript:x}{y}\\)\ntags: [LLM]\nfield: llm_pretraining\n"
    editor = write_editor(tmp_path, [typed])
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 2
    assert "edit not saved after 5 tries (summary: unsafe TeX \\href" in result.err
    assert len(seen_by_editor(tmp_path)) == 6  # five rounds, then it stops
    kept = unsaved_file(result.err).read_text("utf-8")
    assert "# ERROR: summary: unsafe TeX \\href" in kept and "我的改写" in kept
    assert len(imported.store().load("ICML2026", "2601.00002").summaries.versions) == 1


def test_closing_the_reopened_editor_without_saving_keeps_the_text(
    cli: RunCli, imported: Project, tmp_path: Path
) -> None:
    typed = f"summary: {summary_text('我打的字')}\ntags: [LLM]\nfield: cookery\n"
    editor = write_editor(tmp_path, [typed, None])
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 2
    assert "edit cancelled, nothing saved (field: unknown field 'cookery'" in result.err
    kept = unsaved_file(result.err).read_text("utf-8")
    assert summary_text("我打的字") in kept and "field: cookery" in kept
    assert len(imported.store().load("ICML2026", "2601.00002").summaries.versions) == 1


def test_closing_the_editor_before_typing_is_a_plain_cancel(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    editor = write_editor(tmp_path, [None])
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 0 and "edit cancelled: nothing changed" in result.err
    assert not (imported.root / "outputs" / "unsaved-edits").exists()


def test_human_edits_are_judged_as_human_text(cli: RunCli, imported: Project, tmp_path: Path) -> None:
    editor = write_editor(tmp_path, ["summary: |\n  短的人工总结，\n  分两行写。\ntags: []\nfield: llm_reasoning\n"])
    result = cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor))
    assert result.code == 0, result.err
    current = imported.store().load("ICML2026", "2601.00002").summaries.current
    assert current is not None and current.summary == "短的人工总结，分两行写。" and current.tags == []
    assert "no tags (adds nothing to the hot topics)" in current.warnings
    assert "2 lines joined into one paragraph" in cli("review", "show", "ICML2026/2601.00002").out


def test_an_old_title_with_a_line_break_stays_inside_the_editor_comment(
    cli: RunCli, imported: Project, tmp_path: Path
) -> None:
    import yaml

    store = imported.store()
    record = store.load("ICML2026", "2601.00002")
    record.title = "Old title\nsummary: injected\x1b[2J"
    store.save(record)
    editor = write_editor(tmp_path, [None])
    assert cli("review", "edit", "ICML2026/2601.00002", env=editor_env(editor)).code == 0
    text = seen_by_editor(tmp_path)[0]
    assert "\nsummary: injected" not in text and "\x1b" not in text
    assert "# Edit the summary, tags and field of: Old title summary: injected[2J" in text
    assert yaml.safe_load(text)["summary"] == summary_text("主题2")
