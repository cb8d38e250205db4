"""What a notes folder may hold besides notes: links out of it are never followed, and a file's name, whatever
characters it holds, is one line of the import's report."""

from __future__ import annotations

from pathlib import Path

from conftest import Project, RunCli
from summarizer.core.records import Record

NOTE = """\
# {title}

**arXiv**: [{arxiv}](https://arxiv.org/abs/{arxiv})

## 一句话总结
一句话的总结，说明这篇论文做了什么。

## 研究背景与动机
正文。
"""


def note(title: str, arxiv: str) -> str:
    return NOTE.format(title=title, arxiv=arxiv)


def papers(project: Project, *pairs: tuple[str, str]) -> None:
    store = project.store()
    for arxiv, title in pairs:
        store.save(Record(venue="ICML2026", id=arxiv, title=title, arxiv_id=arxiv))


def test_a_linked_note_pointing_outside_the_folder_is_refused_in_one_line(
    project: Project, cli: RunCli, tmp_path: Path
) -> None:
    papers(project, ("2601.00001", "Inside"), ("2601.00002", "Outside"))
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "secret.md").write_text(note("Outside", "2601.00002"), "utf-8")
    folder = project.root / "notes" / "ICML2026"
    folder.mkdir(parents=True)
    (folder / "inside.md").write_text(note("Inside", "2601.00001"), "utf-8")
    (folder / "link.md").symlink_to(outside / "secret.md")
    (folder / "linked_folder").symlink_to(outside, target_is_directory=True)

    result = cli("import", str(project.root / "notes"))

    assert "Traceback" not in result.err
    assert "ICML2026/link.md: a symbolic link" in result.err
    assert "secret.md" not in result.err.replace("ICML2026/link.md", "")  # the folder behind a link is not read
    assert project.store().load("ICML2026", "2601.00001").notes.versions
    assert not project.store().load("ICML2026", "2601.00002").notes.versions


def test_a_file_name_with_a_line_break_is_one_line_of_the_report(project: Project, cli: RunCli) -> None:
    papers(project, ("2601.00001", "Inside"))
    folder = project.root / "notes" / "ICML2026"
    folder.mkdir(parents=True)
    (folder / "a\nfailures: everything.md").write_text(note("Nobody", "2601.09999"), "utf-8")

    result = cli("import", str(project.root / "notes"))

    assert "Traceback" not in result.err
    lines = result.err.splitlines()
    assert not any(line.startswith("failures: everything") for line in lines), result.err
    assert any("ICML2026/a\\nfailures: everything.md" in line for line in lines), result.err
