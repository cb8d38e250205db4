"""Reviewing notes at the desk in real Chromium, keys only: approve, reject, edit, regenerate with feedback.

The notes are written by `summarizer notes` through the loopback provider before the browser opens
(Playwright's event loop would stop the CLI's).  The picture of the note view, `desk-note.png`, goes to
the test's folder and to $DESK_SCREENSHOTS when set.  docs/review.md's `examples/desk/note.png` is the same
picture (`notes_desk.picture_note_view`), taken from the demo once it has notes
(tests/review/test_demo_desk_browser.py); until then it is this test's `desk-note.png`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser import chromium, new_page, save_screenshot
from conftest import Project, RunCli
from desk_workspace import desk
from fetched_venue import VENUE
from notes_desk import INVENTED, INVENTED_NUMBER, note_answer, note_to_picture, picture_note_view, write_notes_workspace
from summarizer.testing.fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow  # real Chromium: `make test` leaves it to `make test-all`

SLOW = 30_000  # ms: a generous bound on a shared machine, never a timing claim
ADDED = "\n\n## 补充说明\n编辑补充：本文的稀疏模式与 Longformer 的固定窗口不同。"


def on_note(page: Any, ref: str | None) -> None:
    """Wait for the note's page and for its keys (desk.js binds them once the page is parsed)."""
    page.wait_for_selector(f"main#paper.note-view[data-paper='{ref}']")
    page.wait_for_selector("body[data-ready='1']")


def flash(page: Any) -> str:
    page.wait_for_selector("#message.ok, #message.error", timeout=SLOW)
    return page.text_content("#message") or ""


def test_notes_reviewed_with_keys_then_listed_by_the_cli(
    project: Project, cli: RunCli, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with FakeOpenAI(answer=note_answer, latency=0.5) as provider:
        write_notes_workspace(project, cli, provider.base_url)
        with chromium() as browser, desk(project, VENUE) as running, new_page(browser) as page:
            page.set_viewport_size({"width": 1280, "height": 800})
            page.goto(running.url.replace("/?token=", "/notes?token="))
            page.wait_for_selector("main#queue.notes")
            page.wait_for_selector("body[data-ready='1']")
            order = page.eval_on_selector_all("tr[data-paper]", "rows => rows.map(r => r.dataset.paper)")
            assert len(order) == 5 and order[0] == f"{VENUE}/{INVENTED}"  # the invented number first
            assert note_to_picture(project.store(), [VENUE]) == order[0]
            assert "numbers not in the paper text" in (page.text_content("tr[data-paper] .warnings") or "")
            save_screenshot(page, tmp_path, "desk-notes.png")

            page.keyboard.press("Enter")  # the invented number, marked in its section: regenerate with feedback
            on_note(page, order[0])
            page.wait_for_selector("#note mjx-container", timeout=SLOW)  # the note's math, typeset locally
            section = page.locator("section.note-section", has=page.locator("mark.flagged"))
            assert section.get_attribute("data-heading") == "实验关键数据"
            assert section.locator("mark.flagged").all_text_contents() == [INVENTED_NUMBER]
            assert "numbers not in the paper text" in (section.locator("li.warning").first.text_content() or "")
            save_screenshot(page, tmp_path, "desk-note-top.png")
            picture_note_view(page, running.base, order[0], tmp_path, "desk-note.png")  # `w`: the warned section
            warned = page.locator("section.note-section.warned").first.bounding_box()
            assert warned is not None and 0 <= warned["y"] < 100  # in view, below the keys that stay on top
            page.keyboard.press("g")
            page.keyboard.type("只用论文中出现的数字")
            page.keyboard.press("Control+Enter")
            assert "note version 2 written" in flash(page)
            assert page.locator("#note mark.flagged").count() == 0

            page.keyboard.press("j")  # approve the next note: the one after it opens
            on_note(page, order[1])
            page.keyboard.press("a")
            on_note(page, order[2])
            assert flash(page) == f"approved the note of {order[1]} (version 1) · u undoes it"

            page.keyboard.press("r")  # reject with a note
            page.keyboard.type("方法部分与论文不符")
            page.keyboard.press("Control+Enter")
            on_note(page, order[3])
            assert flash(page) == f"rejected the note of {order[2]} · u undoes it"

            page.keyboard.press("e")  # the note's Markdown, beside the paper's text
            editor = page.locator("#edit-form textarea[name=markdown]").bounding_box()
            source = page.locator("section.source").bounding_box()
            assert editor is not None and source is not None and source["x"] + source["width"] <= editor["x"]
            save_screenshot(page, tmp_path, "desk-note-edit.png")
            page.keyboard.press("Control+End")
            page.keyboard.type(ADDED)
            page.keyboard.press("Control+Enter")
            assert flash(page) == f"saved the note of {order[3]} version 2 (human), waiting for review"
            assert "编辑补充" in (page.text_content("#note") or "")
            assert page.dialogs == []

    store = project.store()
    regenerated, approved, rejected, edited = (store.load(*ref.split("/")).notes for ref in order[:4])
    assert (regenerated.status, regenerated.current.feedback) == ("draft", "只用论文中出现的数字")  # type: ignore[union-attr]
    assert (approved.status, approved.approved_version) == ("approved", 1)
    assert (rejected.status, rejected.review_note) == ("rejected", "方法部分与论文不符")
    assert edited.status == "draft" and [v.origin for v in edited.versions] == ["llm", "human"]
    assert edited.current is not None and edited.current.markdown.endswith(ADDED)
    assert all(store.load(*ref.split("/")).summaries.status == "approved" for ref in order)  # the summaries untouched

    capsys.readouterr()
    listed = cli("review", "notes", "list", VENUE)
    assert listed.code == 0, listed.err
    rows = {line.split()[1]: line for line in listed.out.splitlines() if "│ 2601." in line}
    ids = [ref.split("/")[1] for ref in order]
    assert " draft " in rows[ids[0]] and "numbers not in" not in rows[ids[0]]
    assert " approved " in rows[ids[1]]
    assert " rejected " in rows[ids[2]]
    assert " draft " in rows[ids[3]] and " human " in rows[ids[3]]
    assert "审稿意见：只用论文中出现的数字" in cli("review", "notes", "show", order[0]).out
