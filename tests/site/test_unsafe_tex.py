"""TeX that could make links, attributes or load packages never gets in: the model is re-asked,
an import or an edit is refused naming the command, and the page shows such math as text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conftest import Project, RunCli, summary_text
from fetched_venue import VENUE, write_venue
from summarizer.core.rules import summary_problems
from summarizer.core.unsafe_tex import UNSAFE_TEX_COMMANDS, unsafe_tex_commands
from summarizer.site.markdown_text import escape_inline, split_math
from summarizer.testing.fake_openai import FakeOpenAI, default_answer

HOUSE_MATH = [
    "\\(O(n\\log n)\\)",
    "\\(\\frac{a}{b}\\)",
    "\\(3.2\\times\\)",
    "\\(x_i^{2}\\)",
    "\\(\\text{KV}_{t}\\)",
    "$L=\\alpha N^{-\\beta}$",
    "\\(\\mathcal{O}(\\sqrt{d})\\)",
    "\\(a \\\\ href\\)",  # a line break, then the letters h r e f: no command
]


@pytest.mark.parametrize("command", UNSAFE_TEX_COMMANDS)
def test_each_unsafe_command_is_found_in_math_and_text(command: str) -> None:
    for text in (f"\\(\\{command}{{x}}{{y}}\\)", f"$\\{command}[a]{{b}}$", f"文字 \\{command} 文字"):
        assert unsafe_tex_commands(text) == [f"\\{command}"]
    assert unsafe_tex_commands(f"\\{command}ed") == []  # another control word


@pytest.mark.parametrize("math", HOUSE_MATH)
def test_house_math_is_safe(math: str) -> None:
    assert unsafe_tex_commands(math) == []
    assert split_math(f"文 {math} 字")[1] == (True, math)


def test_summary_problems_name_the_command() -> None:
    problems = summary_problems(summary_text() + " \\(\\href{javascript:alert(1)}{\\text{x}}\\) 与 \\(\\cssId{a}{b}\\)")
    assert any("\\href, \\cssId" in p for p in problems), problems


def test_unsafe_math_is_text_on_the_page() -> None:
    text = "见 \\(\\href{javascript:alert(1)}{\\text{x}}\\) 与 \\(O(n)\\)"
    pieces = split_math(text)
    assert pieces == [(False, "见 \\(\\href{javascript:alert(1)}{\\text{x}}\\) 与 "), (True, "\\(O(n)\\)")]
    assert escape_inline(text).startswith("见 \\\\(\\href{javascript:alert(1)}{\\text{x}}\\\\)")


def _line(summary: str) -> dict[str, Any]:
    return {"venue": "ICML2026", "title": "A Paper", "summary": summary, "tags": ["LLM"], "field": "llm_pretraining"}


@pytest.mark.parametrize("command", ["href", "class", "cssId", "style", "mmlToken", "require", "bbox", "unicode"])
def test_import_refuses_unsafe_tex_naming_the_command(cli: RunCli, project: Project, command: str) -> None:
    hostile = summary_text() + f" \\(\\{command}{{x}}{{y}}\\)"
    path = project.write_jsonl("in.jsonl", [_line(summary_text()), dict(_line(hostile), title="B", status="approved")])
    result = cli("import", str(path))
    assert result.code == 2
    assert "in.jsonl:2" in result.err and f"\\{command}" in result.err
    assert not (project.root / "outputs" / "records" / "ICML2026").exists()


def test_edit_refuses_unsafe_tex_naming_the_command(cli: RunCli, project: Project) -> None:
    assert cli("import", str(project.write_jsonl("in.jsonl", [dict(_line(summary_text()), id="p1")]))).code == 0
    result = cli("review", "edit", "ICML2026/p1", "--summary", summary_text() + " \\(\\style{color:red}{x}\\)")
    assert result.code == 2 and "\\style" in result.err
    assert len(project.store().load("ICML2026", "p1").summaries.versions) == 1


@pytest.fixture
def hostile_model(provider_key: str) -> Iterator[FakeOpenAI]:
    """A provider whose first answer for each paper carries \\href; the re-ask gets a clean one."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        data = default_answer(body)
        if len(body["messages"]) == 2:  # the first ask: system + user
            data["summary"] += " 详见 \\(\\href{javascript:alert(1)}{\\text{链接}}\\)。"
        return data

    with FakeOpenAI(answer=answer) as fake:
        yield fake


def test_model_answer_with_unsafe_tex_is_asked_again(project: Project, cli: RunCli, hostile_model: FakeOpenAI) -> None:
    project.write_config(
        llm={"base_url": hostile_model.base_url, "max_attempts": 3, "timeout_s": 5, "backoff_s": 0.005}
    )
    write_venue(project, 2)
    result = cli("summarize", VENUE)
    assert result.code == 0, result.err
    assert hostile_model.calls == 4  # each paper: the \href answer, then the re-ask
    reask = [r for r in hostile_model.requests if len(r.body["messages"]) > 2]
    assert len(reask) == 2 and all("\\href" in r.body["messages"][-1]["content"] for r in reask)
    for record in project.store().records(VENUE):
        assert record.summaries.current is not None and "\\href" not in record.summaries.current.summary


def test_a_record_holding_unsafe_tex_builds_it_as_text(cli: RunCli, project: Project) -> None:
    from summarizer.core.records import Record
    from summarizer.core.store import Store

    store = Store(project.settings().outputs_dir)
    record = Record(venue="ICML2026", id="p1", title="T \\(\\href{javascript:alert(1)}{x}\\)")
    record.summaries.add_version(summary_text() + " \\(\\class{md-header}{x}\\)", ["LLM"], "llm_pretraining", "import")
    record.summaries.approve()
    store.save(record)  # written directly: text that got in another way
    assert cli("build").code == 0
    page = (project.root / "outputs/site/docs/ICML2026/llm_pretraining/index.md").read_text("utf-8")
    assert "**[T \\\\(\\href{javascript:alert(1)}{x}\\\\)](p1.md)**" in page
    paper = (project.root / "outputs/site/docs/ICML2026/llm_pretraining/p1.md").read_text("utf-8")
    assert "# T \\\\(\\href\\{javascript:alert(1)}\\{x}\\\\)\n" in paper  # shown as written, never math
    assert "\\\\(\\class{md-header}{x}\\\\)" in paper
    assert "\\\\(\\class{md-header}{x}\\\\)" in page
