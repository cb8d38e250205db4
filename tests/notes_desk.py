"""A review-desk workspace with draft notes: papers with approved summaries, and the notes `summarizer notes`
wrote through the loopback provider (one of them with a number the paper does not have)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser import save_screenshot
from conftest import Project, RunCli
from fetched_venue import VENUE, paper_id, title
from notes_venue import write_approved_venue
from summarizer.core.flags import suspicion_score
from summarizer.core.paper_text import PaperText
from summarizer.core.store import Store
from summarizer.testing.fake_openai import default_answer
from summarizer.testing.fake_requests import is_note_request, paper_title, prompt_text

N = 10  # papers 0, 2, 4, 6, 8 have text, so a note each; the odd ones are known from their abstracts only
NOTED = [paper_id(i) for i in range(0, N, 2)]
INVENTED = paper_id(6)  # its note's results table holds 93.7, which its paper never reports
INVENTED_NUMBER = "93.7"
KEY_ENV = "DESK_TEST_KEY"  # what `desk_workspace.desk` gives the desk's process


INTRODUCTION = (
    "Pretraining a large language model spends most of its compute in attention, whose cost grows with the square "
    "of the sequence length. Fixed sparse patterns such as Longformer's sliding windows cut that cost but lose "
    "accuracy downstream. We let each layer learn where full attention is needed: a local window plus a few "
    "global tokens picked by a router."
)
METHOD = (
    "Method. Every layer attends within a local window of 256 tokens and to 32 global tokens chosen by a learned "
    "router; the two outputs are added. The router is trained end to end with the model, with no auxiliary loss.\n"
    "Experiments. We pretrain models of 1.3B parameters on 300B tokens. Table 1: validation perplexity 12.41 with "
    "sparse attention against 12.38 with dense attention, at 41.5% less attention compute. Table 2 (ablations): "
    "without the global tokens perplexity rises to 13.02; a fixed pattern instead of the router gives 12.77."
)


def note_answer(body: dict[str, Any]) -> dict[str, Any]:
    """The stand-in's answers: its default ones, but paper 6's first note claims a result its paper lacks
    (asked again with the editor's feedback, it keeps to the paper's numbers)."""
    answer = default_answer(body)
    if not is_note_request(body):
        return answer
    table = answer["experiments"]["main_results"]
    table["columns"] = ["设置", "验证集困惑度"]
    table["rows"] = [["稠密注意力", "12.38"], ["稀疏注意力（本文）", "12.41"], ["去掉全局 token", "13.02"]]
    if paper_title(body) == title(6) and "审稿意见" not in prompt_text(body):
        table["rows"].append(["稀疏注意力（本文，长上下文）", INVENTED_NUMBER])
    return answer


def write_paper_texts(project: Project) -> None:
    """The papers with text get a body that reads like a paper: a method, tables, numbers of their own."""
    settings, store = project.settings(), project.store()
    for record in store.records(VENUE):
        if record.fetch.text_path:
            text = PaperText(record.title, record.abstract or "", INTRODUCTION, "Sparse attention matches dense "
                             "attention at 40% less compute.", METHOD, pages=9)  # fmt: skip
            (settings.cache_dir / record.fetch.text_path).write_text(text.to_json(), "utf-8")


def write_notes_workspace(project: Project, cli: RunCli, base_url: str) -> None:
    """The venue, its approved summaries, and a draft note per paper with text, written by `summarizer notes`."""
    project.write_config(llm={**project.config["llm"], "base_url": base_url, "api_key_env": KEY_ENV})
    write_approved_venue(project, N)
    write_paper_texts(project)
    result = cli("notes", VENUE, env={KEY_ENV: "sk-test"})
    assert result.code == 0, result.err
    assert sorted(r.id for r in project.store().records(VENUE) if r.notes.current) == NOTED


def note_to_picture(store: Store, venue_ids: list[str]) -> str | None:
    """The note docs/review.md pictures: one waiting for review, the most suspicious first (else any note)."""
    records = [r for v in venue_ids for r in store.records(v) if r.notes.current is not None and r.summaries.approved]
    records.sort(key=lambda r: (not r.notes.needs_review, -suspicion_score(r.notes.current.warnings), r.venue, r.id))  # type: ignore[union-attr]
    return f"{records[0].venue}/{records[0].id}" if records else None


def picture_note_view(page: Any, base: str, ref: str, folder: Path, name: str = "note.png") -> Path:
    """The note's page as the editor meets it, on to its first section with a warning (`w`), pictured.

    With DESK_SCREENSHOTS=examples/desk this is docs/review.md's picture of the note view.
    """
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{base}/note/{ref}")
    page.wait_for_selector(f"main#paper.note-view[data-paper='{ref}']")
    page.wait_for_selector("body[data-ready='1']")
    if page.locator("#note .arithmatex").count():
        page.wait_for_selector("#note mjx-container", timeout=30_000)
    if page.locator("section.note-section.warned").count():
        page.keyboard.press("w")
    return save_screenshot(page, folder, name)
