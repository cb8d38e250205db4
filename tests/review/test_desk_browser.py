"""The review desk in real Chromium: keys, forms, bulk approve, stale edits, hostile titles, screenshots.

Each test starts `summarizer review serve ICLR2026 --no-browser --port 0` as a subprocess over a
workspace of 32 drafts (tests/desk_workspace.py) and drives it with Playwright.  Screenshots go
to the test's tmp folder, and also to $DESK_SCREENSHOTS when set (docs/review.md's come from the demo:
tests/review/test_demo_desk_browser.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser import new_page, save_screenshot
from conftest import Project, RunCli
from desk_workspace import INVENTED, VENUE, XSS_TITLE, desk, fake_browser, paper_summary, wait_for_file, write_workspace
from summarizer.testing.fake_openai import FakeOpenAI

pytestmark = pytest.mark.slow  # real Chromium: `make test` leaves it to `make test-all`

SLOW = 30_000  # ms: a generous bound on a shared machine, never a timing claim
VALID = (
    "本文提出一种更稳健的稀疏注意力：把 attention 分解为局部窗口与全局摘要两部分，并让相邻层共享 KV cache，"
    "在 LLaMA-7B 上把推理延迟降低 \\(2.1\\times\\)，LongBench 准确率与全注意力相当。"
)


def open_paper(page: Any, base: str, ref: str) -> None:
    page.goto(f"{base}/paper/{ref}")
    page.wait_for_selector("body[data-ready='1']")


def on_paper(page: Any, ref: str | None) -> None:
    """Wait for the paper's view and for its keys (desk.js binds them once the page is parsed)."""
    page.wait_for_selector(f"main#paper[data-paper='{ref}']")
    page.wait_for_selector("body[data-ready='1']")


def flash(page: Any) -> str:
    page.wait_for_selector("#message.ok, #message.error", timeout=SLOW)
    return page.text_content("#message") or ""


def test_approve_by_key_after_moving_with_j_and_k(project: Project, cli: RunCli, browser: Any, tmp_path: Path) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.set_viewport_size({"width": 1280, "height": 860})
        page.goto(running.url)
        page.wait_for_selector("body[data-ready='1']")
        rows = page.locator("tr[data-paper]")
        assert rows.count() == 32
        first, second = rows.nth(0).get_attribute("data-paper"), rows.nth(1).get_attribute("data-paper")
        assert save_screenshot(page, tmp_path, "desk-queue.png").stat().st_size > 0
        page.keyboard.press("?")
        assert page.is_visible("#help")
        page.keyboard.press("Escape")
        page.keyboard.press("j")
        page.keyboard.press("Enter")
        on_paper(page, second)
        page.keyboard.press("k")
        on_paper(page, first)
        page.keyboard.press("a")  # approved, and on to the next paper waiting for a decision
        on_paper(page, second)
        assert flash(page).startswith(f"approved {first}")
        assert cli("status", VENUE, "--json").json()["by_status"]["approved"] == 1
        page.keyboard.press("k")  # the paper just decided kept its place
        on_paper(page, first)
        assert page.text_content("#status") == "approved"
        page.keyboard.press("u")  # undo: a draft again
        on_paper(page, first)
        assert flash(page) == f"undone: {first} is draft again"
        assert page.text_content("#status") == "draft"
        assert page.dialogs == []
    venue, paper = str(first).split("/")
    assert project.store().load(venue, paper).summaries.status == "draft"


def test_the_browser_the_desk_opens_lands_on_the_queue_and_acts(project: Project, browser: Any, tmp_path: Path) -> None:
    """The desk hands the browser a private file, not the token; from it the editor's page works as ever."""
    write_workspace(project)
    program, seen = fake_browser(tmp_path)
    with desk(project, VENUE, browser=program) as running, new_page(browser) as page:
        opened = wait_for_file(seen, running.process).strip()
        assert opened.startswith("file://") and running.token not in opened
        page.goto(opened)
        page.wait_for_selector("#queue")
        page.wait_for_selector("body[data-ready='1']")
        assert page.url == f"{running.base}/"  # the token left the address bar
        assert all(running.token not in c["value"] for c in page.context.cookies())
        first = page.locator("tr[data-paper]").nth(0).get_attribute("data-paper")
        page.keyboard.press("Enter")
        on_paper(page, first)
        page.keyboard.press("a")
        assert flash(page).startswith(f"approved {first}")
    venue, paper = str(first).split("/")
    assert project.store().load(venue, paper).summaries.status == "approved"


def test_reject_asks_for_a_reason(project: Project, browser: Any) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        open_paper(page, running.base, f"{VENUE}/2601.10009")
        page.keyboard.press("r")
        page.click("#reject-form button[type=submit]")
        page.wait_for_selector("#reject-form .errors li")
        assert "reason" in (page.text_content("#reject-form .errors") or "")
        page.fill("#reject-form textarea[name=note]", "不属于本会议")
        page.keyboard.press("Control+Enter")  # submits the form being typed in, and the next paper opens
        page.wait_for_selector(f"main#paper:not([data-paper='{VENUE}/2601.10009'])")
        assert flash(page) == f"rejected {VENUE}/2601.10009 · u undoes it"
    record = project.store().load(VENUE, "2601.10009")
    assert (record.summaries.status, record.summaries.review_note) == ("rejected", "不属于本会议")


def test_edit_shows_errors_inline_keeps_the_text_then_saves(project: Project, browser: Any) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        open_paper(page, running.base, f"{VENUE}/2601.10010")
        page.click("[data-action=edit]")
        invalid = (
            "本文用 \\(\\href{javascript:alert(1)}{x}\\) 链接到别处。"  # human text: only unsafe things are errors
        )
        page.fill("#edit-form textarea[name=summary]", invalid)
        page.fill("#edit-form input[name=tags]", "LLM, 推理")
        page.click("#edit-form button[type=submit]")
        page.wait_for_selector("#edit-form .errors li")
        assert "unsafe TeX \\href" in (page.text_content("#edit-form .errors") or "")
        assert page.input_value("#edit-form textarea[name=summary]") == invalid
        assert page.is_visible("#edit-form")
        page.fill("#edit-form textarea[name=summary]", VALID)
        page.keyboard.press("Meta+Enter")  # ⌘+Enter on a Mac
        assert flash(page) == f"saved {VENUE}/2601.10010 version 2 (human), waiting for review"
        page.wait_for_selector("#summary mjx-container", timeout=SLOW)  # the site's MathJax config, served locally
    record = project.store().load(VENUE, "2601.10010")
    assert record.summaries.current is not None
    assert (record.summaries.current.origin, record.summaries.current.summary, record.summaries.status) == (
        "human",
        VALID,
        "draft",
    )


def test_regenerate_with_feedback_shows_progress_and_leaves_a_draft(project: Project, browser: Any) -> None:
    with FakeOpenAI(latency=2.0) as provider:  # long enough to see the progress line
        write_workspace(project, llm_base_url=provider.base_url)
        with desk(project, VENUE) as running, new_page(browser) as page:
            page.goto(running.url)
            open_paper(page, running.base, f"{VENUE}/2601.10011")
            page.keyboard.press("g")
            page.fill("#regen-form textarea[name=feedback]", "补上主要实验数字")
            page.click("#regen-form button[type=submit]")
            page.wait_for_selector("#regen-form .progress:not([hidden])")
            assert "regenerating" in (page.text_content("#regen-form .progress") or "")
            assert "version 2 written" in flash(page)
            assert page.get_attribute("main#paper", "data-version") == "2"
            assert "补上主要实验数字" in (page.text_content(".feedback") or "")
        assert any("补上主要实验数字" in str(r.body) for r in provider.requests)
    record = project.store().load(VENUE, "2601.10011")
    assert record.summaries.current is not None
    assert (record.summaries.current.origin, record.summaries.current.feedback, record.summaries.status) == (
        "llm",
        "补上主要实验数字",
        "draft",
    )


def test_bulk_approve_of_a_filter_confirms_the_count(project: Project, browser: Any) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        page.goto(f"{running.base}/?warning=numbers")
        page.wait_for_selector("body[data-ready='1']")
        assert page.locator("tr[data-paper]").count() == 2
        page.click("#approve-filtered")
        assert page.text_content("#confirm-text") == (
            "Approve 2 papers? Their current versions get published by the next build."
        )
        page.click("#confirm-yes")
        assert flash(page) == "2 papers approved"
    store = project.store()
    approved = {r.id for r in store.records(VENUE) if r.summaries.status == "approved"}
    assert approved == {INVENTED, "2601.10004"}


def test_a_stale_edit_is_refused_and_the_text_kept(project: Project, cli: RunCli, browser: Any) -> None:
    write_workspace(project)
    ref = f"{VENUE}/2601.10012"
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        open_paper(page, running.base, ref)
        page.keyboard.press("e")
        page.fill("#edit-form textarea[name=summary]", VALID)
        assert cli("review", "edit", ref, "--summary", paper_summary(2)).code == 0  # meanwhile, in a terminal
        page.click("#edit-form button[type=submit]")
        assert "changed since this page was loaded (now version 2" in flash(page)
        assert page.input_value("#edit-form textarea[name=summary]") == VALID
    current = project.store().load(VENUE, "2601.10012").summaries.current
    assert current is not None and current.summary == paper_summary(2)


def test_a_hostile_title_is_shown_as_text(project: Project, browser: Any) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        page.wait_for_selector("body[data-ready='1']")
        assert XSS_TITLE in (page.text_content("table.rows") or "")
        open_paper(page, running.base, f"{VENUE}/2601.10001")
        assert page.text_content("h1.title") == XSS_TITLE
        assert page.locator("img").count() == 0
        page.wait_for_timeout(500)  # an onerror would have fired by now
        assert page.dialogs == []


def test_paper_view_diff_and_preview(project: Project, cli: RunCli, browser: Any, tmp_path: Path) -> None:
    write_workspace(project)
    ref = f"{VENUE}/2601.10014"
    edited = paper_summary(14).replace("多模态对话能力", "多模态对话与推理能力")
    assert cli("review", "edit", ref, "--summary", edited).code == 0
    with desk(project, VENUE) as running, new_page(browser) as page:
        errors: list[str] = []  # a Content-Security-Policy refusal or a script error would show here
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_viewport_size({"width": 1280, "height": 860})
        page.goto(running.url)
        open_paper(page, running.base, ref)
        page.wait_for_selector("#summary mjx-container", timeout=SLOW)
        assert page.text_content("#diff ins") == "与推理"
        assert "We study efficient inference" in (page.text_content("section.source") or "")
        save_screenshot(page, tmp_path, "desk-paper.png")
        page.click("#preview-link")
        page.wait_for_selector("main#preview mjx-container", timeout=SLOW)
        assert "Paper 14" in (page.text_content("main#preview") or "")
        assert page.dialogs == []
        assert errors == []


def test_bulk_approve_of_selected_rows(project: Project, browser: Any) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        page.wait_for_selector("body[data-ready='1']")
        rows = page.locator("tr[data-paper]")
        chosen = {rows.nth(0).get_attribute("data-paper"), rows.nth(2).get_attribute("data-paper")}
        page.keyboard.press("x")
        page.keyboard.press("j")
        page.keyboard.press("j")
        page.keyboard.press("x")
        assert page.text_content("#approve-selected") == "approve 2 selected"
        page.click("#approve-selected")
        assert (page.text_content("#confirm-text") or "").startswith("Approve 2 papers?")
        page.click("#confirm-yes")
        assert flash(page) == "2 papers approved"
        assert page.locator("tr[data-paper]").count() == 30
    approved = {f"{VENUE}/{r.id}" for r in project.store().records(VENUE) if r.summaries.status == "approved"}
    assert approved == chosen


class Keys:
    """The keyboard, counted: every key press of a test goes through here."""

    def __init__(self, page: Any):
        self.page = page
        self.presses = 0

    def press(self, key: str) -> None:
        self.presses += 1
        self.page.keyboard.press(key)


def test_thirty_drafts_reviewed_with_one_key_press_each(project: Project, browser: Any) -> None:
    """From the queue: Enter opens the first paper, then each decision is one key, and the next paper opens."""
    write_workspace(project)
    decisions = 30
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.goto(running.url)
        page.wait_for_selector("body[data-ready='1']")
        order = [page.locator("tr[data-paper]").nth(i).get_attribute("data-paper") for i in range(decisions + 1)]
        keys = Keys(page)
        keys.press("Enter")
        for n in range(decisions):
            on_paper(page, order[n])  # waiting is not pressing
            keys.press("a")
        on_paper(page, order[decisions])  # the 31st paper waits, in the queue's order
        assert keys.presses == 1 + decisions
    approved = {f"{VENUE}/{r.id}" for r in project.store().records(VENUE) if r.summaries.status == "approved"}
    assert approved == set(order[:decisions])


def test_the_edit_view_keeps_the_papers_text_beside_the_editor(project: Project, browser: Any, tmp_path: Path) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running, new_page(browser) as page:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(running.url)
        open_paper(page, running.base, f"{VENUE}/{INVENTED}")
        assert page.locator("#summary mark.flagged").count() == 3  # the invented numbers, marked in the text
        page.keyboard.press("e")
        editor = page.locator("#edit-form textarea[name=summary]").bounding_box()
        source = page.locator("section.source").bounding_box()
        assert editor is not None and source is not None
        assert source["x"] + source["width"] <= editor["x"]  # side by side
        assert source["y"] < editor["y"] + editor["height"] and editor["y"] < source["y"] + source["height"]
        assert editor["y"] + editor["height"] <= 800 and source["y"] < 800  # both in view
        save_screenshot(page, tmp_path, "desk-edit.png")
