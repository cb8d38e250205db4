"""Text that cannot be stored (a lone surrogate, a Unicode non-character) never reaches a record or a page.

A model's answer holding one is asked again; an import line, an edit or a config holding one is replaced
or refused in one line, never a traceback on save.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import Project, RunCli, summary_text
from notes_venue import write_approved_venue
from summarizer.core.records import Record
from summarizer.core.sanitize import clean_line, clean_text
from summarizer.testing.fake_openai import FakeOpenAI, default_answer
from summarizer.testing.fake_requests import default_note, is_note_request

pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.fake_openai(latency=0.0)]

VENUE = "ICML2026"
LONE = "\\ud800"  # as JSON writes it: one escape, no pair


def configure(project: Project, server: FakeOpenAI) -> None:
    project.write_config(llm={"base_url": server.base_url, "max_attempts": 2, "timeout_s": 5, "backoff_s": 0.005})


def abstract_only_paper(project: Project) -> None:
    record = Record(venue=VENUE, id="2601.00001", title="Sparse Attention", arxiv_id="2601.00001",
                    abstract="We study sparse attention for LLM pretraining.")  # fmt: skip
    record.fetch.abstract_only = True
    project.store().save(record)


def once_with_a_lone_surrogate(make: Any) -> Any:
    """The first answer carries ``\\ud800`` in its JSON text; every later one is clean."""
    asked: list[int] = []

    def answer(body: dict[str, Any]) -> str:
        asked.append(1)
        content = make(body)
        text = json.dumps(content, ensure_ascii=False)
        if len(asked) == 1:
            key = "summary" if "summary" in content else next(iter(content))
            text = text.replace(f'"{key}": "', f'"{key}": "{LONE}', 1)
        return text

    return answer


def test_a_summary_answer_with_a_lone_surrogate_is_asked_again(
    cli: RunCli, project: Project, server: FakeOpenAI
) -> None:
    server.answer = once_with_a_lone_surrogate(default_answer)
    configure(project, server)
    abstract_only_paper(project)

    result = cli("summarize", VENUE)

    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    assert server.calls == 2  # the re-ask
    reask = server.requests[-1].body["messages"][-1]["content"]
    assert "surrogate" in reask
    summary = project.store().load(VENUE, "2601.00001").summaries.versions[0].summary
    assert "\ud800" not in summary


def test_a_note_answer_with_a_lone_surrogate_is_asked_again(cli: RunCli, project: Project, server: FakeOpenAI) -> None:
    def answer(body: dict[str, Any]) -> Any:
        return (notes if is_note_request(body) else default_answer)(body)

    notes = once_with_a_lone_surrogate(default_note)
    server.answer = answer
    configure(project, server)
    write_approved_venue(project, 1)

    result = cli("notes", VENUE)

    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    records = [r for r in project.store().records(VENUE) if r.notes.versions]
    assert len(records) == 1
    assert "\ud800" not in records[0].notes.versions[0].markdown


def test_an_import_line_with_a_lone_surrogate_is_stored_with_it_replaced(cli: RunCli, project: Project) -> None:
    row = {"venue": VENUE, "title": "Paper \ud800 one", "arxiv_id": "2601.00001",
           "summary": summary_text("主题") + "\ud800", "tags": ["LLM\ufffe"], "field": "llm_pretraining"}  # fmt: skip
    path = project.root / "in.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=True) + "\n", "utf-8")

    result = cli("import", str(path))

    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    record = project.store().load(VENUE, "2601.00001")
    stored = json.dumps(record.model_dump(mode="json"), ensure_ascii=False)
    assert "\ud800" not in stored and "\ufffe" not in stored
    assert record.title == "Paper \ufffd one"


def test_a_json_config_with_an_emoji_as_a_surrogate_pair_builds(cli: RunCli, project: Project) -> None:
    text = project.config_path.read_text("utf-8")
    project.config_path.write_text(text + '\nsite: {"title": "\\ud83d\\udd25 论文"}\n', "utf-8")
    cli("import", str(project.write_jsonl("in.jsonl", [
        {"venue": VENUE, "title": "Paper", "arxiv_id": "2601.00001", "summary": summary_text("主题"),
         "tags": ["LLM"], "field": "llm_pretraining", "status": "approved"}])))  # fmt: skip

    result = cli("build")

    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    index = (project.root / "outputs" / "site" / "mkdocs.yml").read_text("utf-8")
    assert "🔥 论文" in index


def test_a_config_with_a_lone_surrogate_is_one_config_problem(cli: RunCli, project: Project) -> None:
    text = project.config_path.read_text("utf-8")
    project.config_path.write_text(text + '\nsite: {"title": "\\ud83d 论文"}\n', "utf-8")

    result = cli("status")

    assert result.code != 0
    assert "Traceback" not in result.err
    assert "site.title" in result.err and "surrogate" in result.err


@pytest.mark.parametrize("char", ["\ud800", "\udfff", "\ufffe", "\uffff", "\ufdd0", "\U0001fffe"])
def test_the_cleaners_replace_what_cannot_be_stored(char: str) -> None:
    assert clean_line(f"a{char}b") == "a\ufffdb"
    assert clean_text(f"a{char}\nb") == "a\ufffd\nb"
