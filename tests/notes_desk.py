"""A review-desk workspace with draft notes: papers with approved summaries, and the notes `summarizer notes`
wrote through the loopback provider (one of them with a number the paper does not have)."""

from __future__ import annotations

from typing import Any

from conftest import Project, RunCli
from fetched_venue import VENUE, paper_id, title
from notes_venue import write_approved_venue
from summarizer.testing.fake_openai import default_answer
from summarizer.testing.fake_requests import is_note_request, paper_title, prompt_text

N = 10  # papers 0, 2, 4, 6, 8 have text, so a note each; the odd ones are known from their abstracts only
NOTED = [paper_id(i) for i in range(0, N, 2)]
INVENTED = paper_id(6)  # its note's results table holds 93.7, which its paper never reports
INVENTED_NUMBER = "93.7"
KEY_ENV = "DESK_TEST_KEY"  # what `desk_workspace.desk` gives the desk's process


def note_answer(body: dict[str, Any]) -> dict[str, Any]:
    """The stand-in's answers: its default ones, but paper 6's first note claims a result its paper lacks
    (asked again with the editor's feedback, it keeps to the paper's numbers)."""
    answer = default_answer(body)
    if is_note_request(body) and paper_title(body) == title(6) and "审稿意见" not in prompt_text(body):
        answer["experiments"]["main_results"]["rows"].append(["稀疏注意力（本文）", INVENTED_NUMBER])
    return answer


def write_notes_workspace(project: Project, cli: RunCli, base_url: str) -> None:
    """The venue, its approved summaries, and a draft note per paper with text, written by `summarizer notes`."""
    project.write_config(llm={**project.config["llm"], "base_url": base_url, "api_key_env": KEY_ENV})
    write_approved_venue(project, N)
    result = cli("notes", VENUE, env={KEY_ENV: "sk-test"})
    assert result.code == 0, result.err
    assert sorted(r.id for r in project.store().records(VENUE) if r.notes.current) == NOTED
