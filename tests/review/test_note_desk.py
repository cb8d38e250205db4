"""The desk's notes over HTTP and in-process: the notes queue, a note's page, and its actions refused when the
page is stale, the input bad or the request not the desk's own; undo, pending drafts, regenerate without the lock."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import requests

from conftest import Project, RunCli
from desk_workspace import desk, session
from fetched_venue import VENUE, paper_id
from notes_venue import write_approved_venue
from summarizer.apps.desk.desk import Desk, Outcome
from summarizer.apps.desk.note_desk import NoteDesk
from summarizer.core import locks
from summarizer.core.store import Store
from summarizer.review import note_actions
from summarizer.testing.fake_openai import FakeOpenAI, default_answer

NOTE = (
    "## 研究背景与动机\n模型写的背景，说明 attention 的代价随序列长度平方增长。\n\n"
    "## 方法详解\n### 整体框架\n分层稀疏注意力，复杂度 \\(O(n\\log n)\\)。\n\n"
    "## 实验关键数据\n| 设置 | 结果 |\n| --- | --- |\n| 稀疏注意力 | 40% |\n"
)
HOSTILE = (
    "## 研究背景与动机\n<img src=x onerror=alert(1)> <script>alert(2)</script> "
    "[点这里](javascript:alert(3)) ![图](http://evil.example/x.png) {onclick=alert(4)}\n"
)
UNSUMMARIZED = 5  # its summary is rejected: its note is not reviewed yet
NO_NOTE = 4


def ref(i: int) -> str:
    return f"{VENUE}/{paper_id(i)}"


def write_notes(project: Project, n: int = 6) -> Store:
    """n papers with approved summaries and a draft note each (but paper 4); paper 5's summary is then rejected."""
    store = write_approved_venue(project, n)
    for record in store.records(VENUE):
        if record.id != paper_id(NO_NOTE):
            record.notes.add_version(NOTE, "llm", model="fake-model", checked=True)
        if record.id == paper_id(UNSUMMARIZED):
            record.summaries.status = "rejected"
        store.save(record)
    return store


def post(s: requests.Session, base: str, path: str, payload: Any, **headers: str) -> requests.Response:
    """A change as the desk's page sends it: JSON in UTF-8, as the browser's JSON.stringify writes it."""
    body = json.dumps(payload, ensure_ascii=False).encode()
    sent = {"Origin": base, "Content-Type": "application/json", **headers}
    return s.post(f"{base}{path}", data=body, headers=sent, timeout=30)


def act(i: int, action: str, version: Any = 1, status: str = "draft", **extra: str) -> dict[str, Any]:
    return {"ref": ref(i), "action": action, "version": version, "status": status, **extra}


def note_of(project: Project, i: int) -> Any:
    return project.store().load(VENUE, paper_id(i)).notes


def test_the_notes_queue_and_a_notes_page(project: Project) -> None:
    store = write_notes(project)
    pending = store.load(VENUE, paper_id(3))
    pending.notes.approve()
    note_actions.save_note_edit(store, pending, NOTE.replace("模型写的背景", "编辑改过的背景"))
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        queue = s.get(f"{running.base}/notes", timeout=30)
        assert queue.status_code == 200 and "content-security-policy" in queue.headers
        listed = re.findall(r'<tr data-paper="([^"]+)"', queue.text)
        assert sorted(listed) == [ref(i) for i in (0, 1, 2, 3)]  # no note (4), summary not approved (5)
        assert "模型写的背景，说明 attention 的代价随序列长度平方增长。" in queue.text  # the start of the note
        page = s.get(f"{running.base}/note/{ref(0)}", timeout=30)
        assert page.status_code == 200
        assert '<section class="note-section" id="note-section-2" data-heading="研究背景与动机">' in page.text
        assert "<table>" in page.text and '<span class="arithmatex">\\(O(n\\log n)\\)</span>' in page.text
        assert "本文提出一种面向稀疏注意力的新方法" in page.text  # 一句话总结: the approved summary, copied
        assert 'data-api="/api/note-action"' in page.text and "not-reviewable" not in page.text
        assert f'<tr data-paper="{ref(3)}" data-version="2" data-status="approved*"' in queue.text
        waits = s.get(f"{running.base}/note/{ref(3)}", timeout=30).text
        assert "Note version 1 is published; version 2, shown here, waits for review." in waits
        assert "<del>模型写的背景" in waits and "<ins>编辑改过的背景" in waits  # published → pending, line by line
        summary_page = s.get(f"{running.base}/paper/{ref(0)}", timeout=30)
        assert f'<a href="/note/{ref(0)}" id="note-link">its note (draft)</a>' in summary_page.text

        waiting = s.get(f"{running.base}/note/{ref(UNSUMMARIZED)}", timeout=30)
        assert 'id="not-reviewable"' in waiting.text and "Its summary is rejected" in waiting.text
        refused = post(s, running.base, "/api/note-action", act(UNSUMMARIZED, "approve"))
        assert refused.status_code == 400 and "its summary is not approved" in refused.json()["error"]
        assert s.get(f"{running.base}/note/{VENUE}/2601.99999", timeout=30).status_code == 404
    assert note_of(project, UNSUMMARIZED).status == "draft"


def test_stale_bad_or_foreign_note_actions_are_refused_and_nothing_saved(project: Project, cli: RunCli) -> None:
    write_notes(project)
    edited = project.root / "note.md"
    edited.write_text(NOTE.replace("模型写的背景", "命令行改过的背景"), "utf-8")
    with desk(project, VENUE) as running:
        base, s = running.base, session(running.base, running.token)
        assert cli("review", "notes", "edit", ref(0), "--file", str(edited)).code == 0  # version 2, from the CLI
        stale = post(s, base, "/api/note-action", act(0, "approve"))
        assert stale.status_code == 409
        changed = f"the note of {ref(0)} changed since this page was loaded (now version 2"
        assert changed in stale.json()["error"]
        assert post(s, base, "/api/note-action", act(1, "approve", status="approved*")).status_code == 409
        assert post(s, base, "/api/note-action", act(1, "approve", version="1")).status_code == 400
        assert post(s, base, "/api/note-action", act(1, "publish")).status_code == 400
        no_reason = post(s, base, "/api/note-action", act(1, "reject", note="  "))
        assert no_reason.status_code == 422 and "say why" in no_reason.json()["problems"][0]
        link = "## 方法详解\n\\(\\href{javascript:x}{y}\\)"
        unsafe = post(s, base, "/api/note-action", act(1, "edit", markdown=link))
        assert unsafe.status_code == 422 and "unsafe TeX \\href" in " ".join(unsafe.json()["problems"])
        empty = post(s, base, "/api/note-action", act(1, "edit", markdown="没有任何小节"))
        assert empty.status_code == 422 and "no section" in " ".join(empty.json()["problems"])
        too_long = post(s, base, "/api/note-action", act(1, "edit", markdown="## 方法详解\n" + "长" * 12_000))
        assert too_long.status_code == 422 and "at most 11,000" in " ".join(too_long.json()["problems"])
        oversize = post(s, base, "/api/note-action", act(1, "edit", markdown="## 方法详解\n" + "长" * 30_000))
        assert oversize.status_code == 413 and "64 KB limit" in oversize.json()["error"]
        not_json = s.post(f"{base}/api/note-action", data=b"{", headers={"Origin": base}, timeout=30)
        assert not_json.status_code == 400

        no_key = requests.post(
            f"{base}/api/note-action", json=act(1, "approve"), headers={"Origin": base}, cookies=s.cookies, timeout=30
        )
        assert no_key.status_code == 403
        assert post(s, base, "/api/note-action", act(1, "approve"), Origin="http://evil.example").status_code == 403
        assert requests.get(f"{base}/notes", timeout=30).status_code == 403
        assert requests.get(f"{base}/note/{ref(1)}", timeout=30).status_code == 403

        items = [{"ref": ref(i), "version": 1, "status": "draft"} for i in (0, 1, 2)]  # paper 0 is stale
        bulk = post(s, base, "/api/note-approve-many", {"items": items})
        assert bulk.status_code == 409 and bulk.json()["error"].startswith("nothing approved: the note of")
        assert [note_of(project, i).status for i in (1, 2)] == ["draft", "draft"]
        items[0]["version"] = 2
        assert post(s, base, "/api/note-approve-many", {"items": items}).json() == {"message": "3 notes approved"}
        oversize_bulk = post(s, base, "/api/note-approve-many", {"items": [items[0]] * 3000})
        assert oversize_bulk.status_code == 413
    assert [note_of(project, i).status for i in (0, 1, 2, 3)] == ["approved", "approved", "approved", "draft"]
    assert note_of(project, 0).approved_version == 2 and len(note_of(project, 1).versions) == 1


def test_a_hostile_note_is_shown_inert(project: Project) -> None:
    store = write_notes(project, 2)
    record = store.load(VENUE, paper_id(0))
    record.notes.add_version(HOSTILE, "import")
    store.save(record)
    with desk(project, VENUE) as running:
        page = session(running.base, running.token).get(f"{running.base}/note/{ref(0)}", timeout=30)
    assert page.status_code == 200
    note = page.text.split('<article class="note-page" id="note">', 1)[1].split("</article>", 1)[0]
    section = note.split('data-heading="研究背景与动机">', 1)[1]
    assert "<img" not in note and "<script" not in note and "<a " not in section and 'href="javascript' not in note
    assert "&lt;img src=x onerror=alert(1)&gt;" in note and "&lt;script&gt;alert(2)" in note
    assert "[点这里](javascript:alert(3))" in note and "{onclick=alert(4)}" in note  # as text
    textarea = page.text.split('<textarea name="markdown"', 1)[1].split("</textarea>", 1)[0]
    assert "&lt;img src=x onerror=alert(1)&gt;" in textarea  # the Markdown to edit, as text


def test_approve_reject_undo_and_a_pending_draft(project: Project) -> None:
    store = write_notes(project, 4)
    desk_ = Desk(project.settings(), [VENUE], lock_wait_s=0)
    notes = NoteDesk(desk_)
    assert notes.perform(act(0, "approve")) == Outcome(200, {"message": f"approved the note of {ref(0)} (version 1)"})
    assert notes.perform(act(1, "reject", note="数字对不上")).body == {"message": f"rejected the note of {ref(1)}"}
    assert [note_of(project, i).status for i in (0, 1)] == ["approved", "rejected"]
    assert [d.kind for d in desk_.decisions.recent()] == ["note", "note"]

    undone = desk_.undo(ref(1), "note")
    again = f"undone: the note of {ref(1)} is draft again"
    assert undone == Outcome(200, {"message": again, "paper": f"/note/{ref(1)}"})
    assert (note_of(project, 1).status, note_of(project, 1).review_note) == ("draft", None)
    assert store.load(VENUE, paper_id(1)).summaries.status == "approved"  # the summary is not the note

    edit = notes.perform(act(0, "edit", status="approved", markdown=NOTE + "\n## 亮点与洞察\n- 编辑加的亮点。\n"))
    assert edit.body == {"message": f"saved the note of {ref(0)} version 2 (human), waiting for review"}
    assert note_action_status(project, 0) == ("approved*", 1)  # the approved note stays published
    assert desk_.undo(ref(0), "note").status == 409  # the note changed since its approval: nothing undone
    assert notes.perform(act(0, "approve", version=2, status="approved*")).status == 200
    assert note_action_status(project, 0) == ("approved", 2)
    same = notes.perform(act(0, "edit", version=2, status="approved", markdown=note_of(project, 0).current.markdown))
    assert same.body == {"message": "nothing changed"}


def note_action_status(project: Project, i: int) -> tuple[str, int | None]:
    record = project.store().load(VENUE, paper_id(i))
    return note_actions.note_status_label(record), record.notes.approved_version


@contextmanager
def model_waits(project: Project, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """A provider that answers only once told to: (asked, answer)."""
    asked, answer = threading.Event(), threading.Event()

    def held_answer(body: dict[str, Any]) -> dict[str, Any]:
        asked.set()
        answer.wait(120)
        return default_answer(body)

    with FakeOpenAI(answer=held_answer) as provider:
        write_notes(project, 2)
        llm = {**project.config["llm"], "base_url": provider.base_url, "api_key_env": "DESK_TEST_KEY"}
        project.write_config(llm={**llm, "timeout_s": 120, "max_attempts": 1})
        monkeypatch.setenv("DESK_TEST_KEY", "sk-test")
        try:
            yield asked, answer
        finally:
            answer.set()


def regen_in_thread(project: Project) -> tuple[threading.Thread, list[Outcome]]:
    notes = NoteDesk(Desk(project.settings(), [VENUE], lock_wait_s=0))
    out: list[Outcome] = []
    thread = threading.Thread(target=lambda: out.append(notes.perform(act(0, "regen", feedback="补上消融实验"))))
    thread.start()
    return thread, out


def test_a_notes_regen_leaves_the_venue_free_while_the_model_writes(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_waits(project, monkeypatch) as (asked, answer):
        thread, out = regen_in_thread(project)
        assert asked.wait(120)
        with locks.venue(project.store(), VENUE):  # a command meanwhile: not refused
            pass
        answer.set()
        thread.join(120)
    assert out[0] == Outcome(200, {"message": f"{ref(0)}: note version 2 written, waiting for review"})
    notes = note_of(project, 0)
    assert [v.origin for v in notes.versions] == ["llm", "llm"] and notes.current.feedback == "补上消融实验"


def test_a_notes_regen_of_a_note_changed_meanwhile_saves_nothing(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_waits(project, monkeypatch) as (asked, answer):
        thread, out = regen_in_thread(project)
        assert asked.wait(120)
        store = project.store()
        with locks.venue(store, VENUE):  # an edit from the CLI while the model writes: note version 2
            note_actions.save_note_edit(store, store.load(VENUE, paper_id(0)), NOTE + "\n## 亮点与洞察\n- 加的。\n")
        answer.set()
        thread.join(120)
    assert out[0].status == 409 and "nothing saved" in out[0].body["error"]
    assert [v.origin for v in note_of(project, 0).versions] == ["llm", "human"]


def test_a_failed_notes_regen_is_recorded_with_the_paper(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(answer=lambda body: "这不是 JSON") as provider:
        write_notes(project, 2)
        llm = {**project.config["llm"], "base_url": provider.base_url, "api_key_env": "DESK_TEST_KEY"}
        project.write_config(llm={**llm, "max_attempts": 1})
        monkeypatch.setenv("DESK_TEST_KEY", "sk-test")
        failed = NoteDesk(Desk(project.settings(), [VENUE], lock_wait_s=0)).perform(act(0, "regen"))
    assert failed.status == 400
    record = project.store().load(VENUE, paper_id(0))
    assert "notes" in record.failures and len(record.notes.versions) == 1
