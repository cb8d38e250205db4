"""The demo teaches the editor's loop: flagged drafts left for review, closing lines that run as printed
(offline, no key: the demo folder's stand-ins answer), and a second run that approves nothing it did not write."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import RunCli
from demo_folder import DEMO_KEY, closing_command, closing_commands, run_demo_in, store_of
from summarizer.apps.cli import main
from summarizer.apps.demo import closing as demo_closing
from summarizer.apps.demo.closing import REGEN_FEEDBACK
from summarizer.core.flags import warning_kind

pytestmark = pytest.mark.slow  # the whole demo, run again and again: `make test-all`


@pytest.fixture
def demo_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    return run_demo_in(tmp_path, monkeypatch, capsys)


def left_for_review(folder: Path) -> set[str]:
    papers = yaml.safe_load((folder / "papers.yaml").read_text("utf-8"))["papers"]
    return {f"{p['venue']}/{p['arxiv_id']}" for p in papers if p.get("left_for_review")}


def waiting_lines(out: str, heading: str = "waiting:") -> dict[str, str]:
    """The closing note's papers waiting for review under ``heading`` (drafts, or notes): ref -> its warnings."""
    block = out.split(f"  {heading}", 1)[1].split("flagged:\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if not line.startswith("    "):
            break
        lines.append(line)
    return dict(line.strip().split("  ", 1) for line in lines)


def test_the_demo_leaves_a_draft_for_each_kind_of_warning_and_approves_the_rest(demo_run: tuple[Path, str]) -> None:
    folder, out = demo_run
    records = [r for venue in ("ICML2026", "ICLR2026") for r in store_of(folder).records(venue)]
    drafts = {f"{r.venue}/{r.id}" for r in records if r.summaries.status == "draft"}
    assert drafts == left_for_review(folder) and len(drafts) >= 4
    assert all(r.summaries.status == "approved" for r in records if f"{r.venue}/{r.id}" not in drafts)
    waiting = waiting_lines(out)
    assert set(waiting) == drafts
    kinds = {warning_kind(w) for warnings in waiting.values() for w in warnings.split("; ")}
    assert {"numbers", "duplicate", "length"} <= kinds
    assert os.environ.get(DEMO_KEY) is None  # the placeholder key was the stand-ins', for their run only


def run_as_printed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """A printed `summarizer …` line, run in this process: its program must be this installation's."""
    program = argv[0]
    assert shutil.which(program) is not None or Path(program).is_file(), program
    assert Path(shutil.which(program) or program).name == "summarizer"
    capsys.readouterr()
    code = main(argv[1:])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_the_closing_lines_run_as_printed_offline_and_with_no_key(
    demo_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, out = demo_run
    printed = closing_commands(out)
    commands = {" ".join(argv[3:5]) if argv[3] == "review" else argv[3]: argv for argv in printed[:4]}
    assert set(commands) == {"review serve", "review list", "regen", "review notes"}

    code, said = run_as_printed(commands["regen"], capsys)
    assert code == 0, said
    assert "demo folder demo: arXiv and the model provider are the demo's offline stand-ins" in said
    ref = commands["regen"][4]
    record = store_of(folder).load(*ref.split("/"))
    revised = next(p for p in yaml.safe_load((folder / "papers.yaml").read_text("utf-8"))["papers"] if p.get("revised"))
    assert record.summaries.current is not None and record.summaries.current.number == 2
    assert (record.summaries.current.summary, record.summaries.current.feedback) == (
        revised["revised"]["summary"],
        REGEN_FEEDBACK,
    )
    assert not [w for w in record.summaries.current.warnings if warning_kind(w) == "numbers"]

    code, listed = run_as_printed(commands["review list"], capsys)
    assert code == 0 and ref.split("/")[1] in listed
    code, built = run_as_printed(closing_command(out, "build"), capsys)
    assert code == 0 and "pages written" in built
    mkdocs = next(argv for argv in printed if argv[1:2] == ["serve"])
    assert mkdocs[1:3] == ["serve", "-f"] and Path(mkdocs[3]).is_file()
    assert os.environ.get(DEMO_KEY) is None


def test_the_note_left_for_the_editor_is_rewritten_to_feedback_approved_and_published(
    demo_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, out = demo_run
    papers = yaml.safe_load((folder / "papers.yaml").read_text("utf-8"))["papers"]
    left = next(p for p in papers if p.get("note_left_for_review"))
    ref = f"{left['venue']}/{left['arxiv_id']}"
    assert waiting_lines(out, "notes:") == {ref: "numbers not in the paper text: 69.4% (实验关键数据)"}
    page = folder / "outputs/site/docs" / left["venue"] / left["answer"]["field"] / f"{left['arxiv_id']}.md"
    assert 'class="paper-note"' not in page.read_text("utf-8")  # a draft note is not published

    code, shown = run_as_printed(closing_command(out, "review", "notes", "show"), capsys)
    assert code == 0 and "69.4%" in shown
    regen = closing_command(out, "regen", ref)
    assert "--notes" in regen
    code, said = run_as_printed(regen, capsys)
    assert code == 0, said
    notes = store_of(folder).load(*ref.split("/")).notes
    assert notes.current is not None and notes.current.number == 2 and notes.current.feedback == REGEN_FEEDBACK
    assert "| MATH500 准确率 | 61.2% | 68.0% |" in notes.current.markdown and not notes.current.warnings
    assert run_as_printed(closing_command(out, "review", "notes", "approve"), capsys)[0] == 0
    assert run_as_printed(closing_command(out, "build"), capsys)[0] == 0
    assert "| MATH500 准确率 | 61.2% | 68.0% |" in page.read_text("utf-8")


def test_a_second_run_never_approves_drafts_it_did_not_write(
    demo_run: tuple[Path, str], cli: RunCli, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = demo_run
    config = str(folder / "config.yaml")
    edited = (
        "本文提出 SketchMesh：用扩散模型把单张手绘草图补全为多视角法线图，再拟合出按部件分区、可直接编辑的三维网格。"
    )
    assert cli("review", "edit", "ICLR2026/2612.90011", "--summary", edited, config=Path(config)).code == 0
    assert cli("regen", "ICML2026/2612.90010", "--feedback", "换个说法", config=Path(config)).code == 0
    capsys.readouterr()

    assert main(["demo", "--dir", "demo"]) == 0

    store = store_of(folder)
    for ref in left_for_review(folder):
        record = store.load(*ref.split("/"))
        assert record.summaries.status == "draft", ref
    assert store.load("ICLR2026", "2612.90011").summaries.current.origin == "human"  # type: ignore[union-attr]
    assert store.load("ICML2026", "2612.90010").summaries.current.number == 2  # type: ignore[union-attr]


def test_notes_in_the_demo_folder_are_answered_by_the_stand_ins_with_no_key(
    demo_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = demo_run
    config = str(folder / "config.yaml")
    assert main(["--config", config, "review", "approve", "ICML2026/2612.90010"]) == 0
    capsys.readouterr()
    assert main(["--config", config, "notes", "ICML2026"]) == 0
    said = capsys.readouterr().err
    assert "the demo's offline stand-ins" in said and "1 written, 0 failed" in said
    note = store_of(folder).load("ICML2026", "2612.90010").notes.current
    assert note is not None and "\n|---|" in note.markdown  # recorded with no note: the stand-in's generic one
    assert os.environ.get(DEMO_KEY) is None


def test_a_second_run_flags_only_drafts_with_a_warning_and_offers_only_notes_that_wait(
    demo_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, first = demo_run
    assert "none flagged" not in first and "unflagged" not in first
    config = str(folder / "config.yaml")
    fixed = "ICML2026/2612.90010"  # its invented number, regenerated away: it waits with no warning now
    assert main(["--config", config, "regen", fixed, "--feedback", REGEN_FEEDBACK]) == 0
    assert main(["--config", config, "review", "notes", "approve", "ICML2026/2612.90005"]) == 0
    capsys.readouterr()

    assert main(["demo", "--dir", "demo"]) == 0
    out = capsys.readouterr().out

    flagged = waiting_lines(out)
    assert fixed not in flagged and set(flagged) == left_for_review(folder) - {fixed}
    assert all(warnings.strip() and warnings != "no warning" for warnings in flagged.values())
    assert "4 drafts for you to review, 3 flagged:" in out and f"unflagged:   {fixed} (waiting, with no warning)" in out
    assert "  notes:" not in out and "the note waiting" not in out and "review notes" not in out
    regen = closing_command(out, "regen")
    assert regen[4] in flagged  # the rewrite it offers is of a draft that still has something to fix


def test_without_the_desk_extra_the_closing_lines_install_it_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(demo_closing, "has_desk", lambda: False)
    _, out = run_demo_in(tmp_path, monkeypatch, capsys)
    printed = closing_commands(out)
    serve = next(i for i, argv in enumerate(printed) if argv[3:5] == ["review", "serve"])
    assert printed[serve - 1] == ["pip", "install", "conference-digest-zh[desk]"]
    assert sum(argv[0] == "pip" for argv in printed) == 1  # MkDocs is here: its line runs as it is
