"""Review actions print nothing and return what they did: the CLI prints it, the desk answers with it."""

from __future__ import annotations

import pytest

from conftest import Project, summary_text
from summarizer.apps.desk.desk import Desk
from summarizer.core.records import Record
from summarizer.review import actions as review


def draft(project: Project, paper: str = "2601.00001") -> Record:
    record = Record(venue="ICML2026", id=paper, title="T")
    record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
    project.store().save(record)
    return record


def test_actions_return_their_lines_and_print_nothing(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    settings, store = project.settings(), project.store()
    draft(project)
    draft(project, "2601.00002")
    edited = review.edit(settings, store, "ICML2026", "2601.00001", summary=None, tags=["LLM", "推理"], field=None)
    assert edited.changed and edited.lines[0] == "saved ICML2026/2601.00001 version 2 (human)"
    again = review.edit(settings, store, "ICML2026", "2601.00001", summary=None, tags=["LLM", "推理"], field=None)
    assert not again.changed and again.lines == ["nothing changed"]
    approved = review.approve(settings, store, "ICML2026", None)
    assert approved.lines[-1] == "2 papers approved in ICML2026"
    rejected = review.reject(settings, store, "ICML2026", "2601.00002", reason="off topic")
    assert rejected.lines == ["rejected ICML2026/2601.00002: it stays off the site and summarize skips it"]
    assert capsys.readouterr() == ("", "")


def test_the_desk_gets_no_terminal_output(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    draft(project)
    outcome = Desk(project.settings(), ["ICML2026"]).perform(
        {"ref": "ICML2026/2601.00001", "action": "approve", "version": 1, "status": "draft"}
    )
    assert outcome.status == 200 and "approved ICML2026/2601.00001" in outcome.body["message"]
    assert capsys.readouterr() == ("", "")
