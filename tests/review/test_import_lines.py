"""Import as a migration tool: every bad line at once, --skip-invalid, human-text rules, a lossless round trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import Project, RunCli, summary_text
from summarizer.core.records import Record


def all_record_bytes(project: Project) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((project.root / "outputs" / "records").rglob("*.json"))}


def row(n: int, **changes: Any) -> dict[str, Any]:
    base = {"venue": "ICML2026", "title": f"Paper number {n}", "arxiv_id": f"2601.{n:05d}",
            "summary": summary_text(f"主题{n}"), "tags": ["LLM"], "field": "llm_pretraining"}  # fmt: skip
    return dict(base, **changes)


def test_export_carries_the_pending_draft_so_a_fresh_import_restores_the_review_state(
    cli: RunCli, project: Project
) -> None:
    assert cli("import", str(project.write_jsonl("in.jsonl", [row(1), row(2, status="rejected")]))).code == 0
    assert cli("review", "approve", "ICML2026/2601.00001").code == 0
    assert cli("review", "edit", "ICML2026/2601.00001", "--summary", summary_text("待审新版")).code == 0
    first = cli("export", "ICML2026")
    assert json.loads(first.out.splitlines()[0])["pending"]["summary"] == summary_text("待审新版")

    for path in (project.root / "outputs" / "records" / "ICML2026").glob("*.json"):
        path.unlink()
    assert (
        cli("import", str(project.write_jsonl("back.jsonl", [json.loads(x) for x in first.out.splitlines()]))).code == 0
    )
    assert cli("export", "ICML2026").out == first.out
    record = project.store().load("ICML2026", "2601.00001")
    assert record.summaries.has_pending_draft and record.summaries.approved is not None
    assert record.summaries.approved.summary == summary_text("主题1")


BAD_KINDS = [
    lambda n: json.dumps(row(n, field="cooking")),
    lambda n: json.dumps(row(n, summary="见 \\(\\href{javascript:alert(1)}{x}\\)")),
    lambda n: json.dumps(row(n, title="T" * 600)),
    lambda n: "{not json",
    lambda n: json.dumps(row(n, colour="red")),
    lambda n: json.dumps(row(1)),  # the same paper as line 1
]


EXPECTED_PROBLEMS = (
    "field: unknown field 'cooking'",
    "summary: unsafe TeX \\href",
    "title: 600 characters",
    "not valid JSON",
    "colour: unknown key",
    "the same paper as line 1 (ICML2026/2601.00001)",
)


def fixable(rejected: dict[str, Any]) -> bool:
    """A rejected line an editor fixes by choosing a field or shortening the title."""
    problem = rejected["error"].split(": ", 1)[1]
    return problem.startswith(("field: unknown field", "title: "))


def big_file(project: Project) -> tuple[Path, set[int]]:
    """3,500 lines, 150 of them bad (every 23rd, six kinds of problem)."""
    lines, bad = [], set()
    for n in range(1, 3501):
        if n % 23 == 0 and len(bad) < 150:
            lines.append(BAD_KINDS[len(bad) % len(BAD_KINDS)](n))
            bad.add(n)
        else:
            lines.append(json.dumps(row(n), ensure_ascii=False))
    path = project.root / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path, bad


def test_every_bad_line_is_reported_at_once_and_nothing_is_written(cli: RunCli, project: Project) -> None:
    path, bad = big_file(project)
    result = cli("import", str(path))
    assert result.code == 2
    reported = {int(line.split(":")[1]) for line in result.err.splitlines() if line.startswith(f"{path}:")}
    assert reported == bad and len(bad) == 150
    assert "150 of 3500 lines have problems" in result.err and "--skip-invalid" in result.err
    for expected in EXPECTED_PROBLEMS:
        assert expected in result.err
    assert not (project.root / "outputs" / "records" / "ICML2026").exists()


def test_skip_invalid_imports_the_rest_and_writes_the_rejected_lines(cli: RunCli, project: Project) -> None:
    path, bad = big_file(project)
    result = cli("import", str(path), "--skip-invalid")
    assert result.code == 1, result.err
    assert "3350 created, 0 updated, 0 unchanged; 150 rejected" in result.err
    assert len(list((project.root / "outputs" / "records" / "ICML2026").glob("*.json"))) == 3350
    rejected_path = project.root / "big.rejected.jsonl"
    assert str(rejected_path) in result.err
    rejected = [json.loads(line) for line in rejected_path.read_text("utf-8").splitlines()]
    originals = path.read_text("utf-8").splitlines()
    assert [int(r["error"].split(":")[0].removeprefix("line ")) for r in rejected] == sorted(bad)
    for r in rejected:
        number = int(r["error"].split(":")[0].removeprefix("line "))
        rest = {k: v for k, v in r.items() if k != "error"}
        assert rest == (
            {"text": originals[number - 1]}
            if originals[number - 1] == "{not json"
            else json.loads(originals[number - 1])
        )

    # Fixed in place (the "error" key may stay), the rejected lines go in; the duplicates stay out.
    fixed = [dict(r, field="llm_pretraining", title=r["title"][:100]) for r in rejected if fixable(r)]
    assert len(fixed) == 50
    again = cli("import", str(project.write_jsonl("fixed.jsonl", fixed)), "--rejected", str(project.root / "r2.jsonl"))
    assert again.code == 0, again.err
    assert f"{len(fixed)} created" in again.err and not (project.root / "r2.jsonl").exists()


def test_human_text_rules_warn_and_the_warnings_are_listed(cli: RunCli, project: Project) -> None:
    rows = [
        row(1, tags=[]),
        row(2, summary="一句很短的总结"),
        row(3, summary="第一行说明方法，\n第二行给出结果 with numbers\n\n"),
        row(4, summary="An English summary written by the editors, kept as written.", tags=["LLM\u0000", "LLM"]),
        row(5, title="Title\x1b]0;pwned\x07 with\ttab", authors=["A\u202eB"], tags=["\x1b[31m推理"]),
    ]
    result = cli("import", str(project.write_jsonl("in.jsonl", rows)), "--skip-invalid")
    assert result.code == 0, result.err
    assert "in.jsonl:1: no tags" in result.err and "in.jsonl:3: 2 lines joined into one paragraph" in result.err
    store = project.store()
    assert (
        store.load("ICML2026", "2601.00003").summaries.current.summary == "第一行说明方法，第二行给出结果 with numbers"
    )  # type: ignore[union-attr]
    assert store.load("ICML2026", "2601.00004").summaries.current.tags == ["LLM"]  # type: ignore[union-attr]
    five = store.load("ICML2026", "2601.00005")
    assert (
        five.title == "Title]0;pwned with tab"
        and five.authors == ["AB"]
        and five.summaries.current.tags == ["[31m推理"]
    )  # type: ignore[union-attr]
    listed = cli("review", "list", "ICML2026")
    for expected in ("no tags", "length 7 Chinese characters, 7 in all: outside the house range", "no Chinese"):
        assert expected in listed.out

    assert cli("review", "approve", "ICML2026", "--all").code == 0
    assert cli("build").code == 0
    page = (project.root / "outputs" / "site" / "docs" / "ICML2026" / "llm_pretraining" / "index.md").read_text("utf-8")
    assert "Paper number 1" in page and "LLM ×3" in page  # papers 2-4: the one without tags adds nothing


def test_the_same_paper_twice_by_title_is_one_record(cli: RunCli, project: Project) -> None:
    rows = [row(1, arxiv_id=None), row(2, arxiv_id=None, title="PAPER  number 1!", field="llm_reasoning")]
    result = cli("import", str(project.write_jsonl("in.jsonl", rows)))
    assert result.code == 2 and "in.jsonl:2: the same paper as line 1 (ICML2026/paper-number-1)" in result.err
    result = cli("import", str(project.root / "in.jsonl"), "--skip-invalid")
    assert result.code == 1 and "1 created" in result.err and "1 rejected" in result.err
    (record,) = project.store().records("ICML2026")
    assert (
        record.summaries.current is not None and record.summaries.current.field == "llm_pretraining"
    )  # the first line wins


def test_review_prints_stored_text_terminal_safe_and_lists_the_published_version(cli: RunCli, project: Project) -> None:
    old = Record(
        venue="ICML2026", id="2601.00007", title="Old \x1b[2J\x1b]8;;http://x\x07link\u202e", arxiv_id="2601.00007"
    )
    old.summaries.add_version(summary_text("旧记录") + "\x1b[31m", ["LLM\x07"], "llm_pretraining", "llm")
    old.summaries.approve()
    old.summaries.add_version(summary_text("新草稿"), ["推理"], "llm_reasoning", "human")
    project.store().save(old)
    for args in (("review", "show", "ICML2026/2601.00007"), ("review", "list", "ICML2026")):
        result = cli(*args)
        assert result.code == 0, result.err
        assert "\x1b" not in result.out and "\x07" not in result.out and "\u202e" not in result.out
    assert "\\x1b[2J" in cli("review", "show", "ICML2026/2601.00007").out
    approved = cli("review", "list", "ICML2026", "--status", "approved").out
    assert "llm_pretraining" in approved and "llm_reasoning" not in approved
    drafts = cli("review", "list", "ICML2026", "--status", "draft").out
    assert "llm_reasoning" in drafts and "approved*" in drafts


def test_huge_fields_are_refused_in_a_few_words(cli: RunCli, project: Project) -> None:
    rows = [row(1, title="T" * 5_000_000), row(2, tags=["x" * 1_000_000]), row(3, summary="长" * 100_000)]
    result = cli("import", str(project.write_jsonl("huge.jsonl", rows)))
    assert result.code == 2
    assert "huge.jsonl:1: title: 5000000 characters (at most 500)" in result.err
    assert "huge.jsonl:2: tags: " in result.err and "is 1000000 characters (at most 40)" in result.err
    assert "huge.jsonl:3: summary: 100000 characters (at most 2000)" in result.err
    assert len(result.err) < 2000  # no value is echoed whole
