"""What a click does, told truly: bulk approve all or nothing, bodies over the limit refused, a regen that asks
the model without holding the venue, versions that are integers."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conftest import Project
from desk_workspace import INVENTED, PAPERS, VENUE, desk, session, write_workspace
from summarizer.apps.desk.desk import Desk, Outcome
from summarizer.apps.desk.queue import PAGE_SIZE
from summarizer.core import locks
from summarizer.review import actions as review
from summarizer.testing.fake_openai import FakeOpenAI, default_answer

PAPER = "2601.10011"


def statuses(project: Project) -> dict[str, str]:
    return {r.id: r.summaries.status for r in project.store().records(VENUE)}


def every_item(project: Project) -> list[dict[str, Any]]:
    return [
        {
            "ref": f"{VENUE}/{r.id}",
            "version": r.summaries.current.number if r.summaries.current else None,
            "status": "draft",
        }
        for r in project.store().records(VENUE)
    ]


def test_bulk_approve_over_the_body_limit_says_so(project: Project) -> None:
    write_workspace(project)
    long_id = "2601." + "9" * 120
    items = [{"ref": f"{VENUE}/{long_id}{n:03d}", "version": 1, "status": "draft"} for n in range(1200)]
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        answer = s.post(f"{running.base}/api/approve-many", json={"items": items}, headers={"Origin": running.base})
        assert answer.status_code == 413
        assert "nothing approved" in answer.json()["error"] and "KB" in answer.json()["error"]
        nothing = s.post(f"{running.base}/api/approve-many", data=b"{", headers={"Origin": running.base})
        assert nothing.status_code == 400  # not JSON: an error, not "0 papers approved"
    assert set(statuses(project).values()) == {"draft"}


def test_bulk_approve_saves_every_paper_or_none(project: Project) -> None:
    write_workspace(project)
    records = project.store().path(VENUE, "2601.10031")
    outside = project.root / "elsewhere.json"
    outside.write_bytes(records.read_bytes())
    records.unlink()
    records.symlink_to(outside)  # readable, but the store will not write through a link
    outcome = Desk(project.settings(), [VENUE], lock_wait_s=0).approve_many(every_item(project))
    assert outcome.status == 400 and outcome.body["error"].startswith("nothing approved")
    assert set(statuses(project).values()) == {"draft"}
    records.unlink()
    records.write_bytes(outside.read_bytes())
    done = Desk(project.settings(), [VENUE], lock_wait_s=0).approve_many(every_item(project))
    assert done == Outcome(200, {"message": f"{PAPERS} papers approved"})
    assert set(statuses(project).values()) == {"approved"}


def test_a_version_is_an_integer(project: Project) -> None:
    write_workspace(project)
    desk_ = Desk(project.settings(), [VENUE], lock_wait_s=0)
    ref = f"{VENUE}/{INVENTED}"
    approve = desk_.perform({"ref": ref, "action": "approve", "version": True, "status": "draft"})
    assert approve.status == 400 and "version" in approve.body["error"]
    many = desk_.approve_many([{"ref": ref, "version": True, "status": "draft"}])
    assert many.status == 400 and "version" in many.body["error"]
    assert project.store().load(VENUE, INVENTED).summaries.status == "draft"


@contextmanager
def model_waits(project: Project, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """A provider that answers only once told to: (asked, answer)."""
    asked, answer = threading.Event(), threading.Event()

    def held_answer(body: dict[str, Any]) -> dict[str, Any]:
        asked.set()
        answer.wait(120)
        return default_answer(body)

    with FakeOpenAI(answer=held_answer) as provider:
        write_workspace(project, llm_base_url=provider.base_url)
        project.write_config(llm={**project.config["llm"], "timeout_s": 120, "max_attempts": 1})
        monkeypatch.setenv("DESK_TEST_KEY", "sk-test")
        try:
            yield asked, answer
        finally:
            answer.set()


def regen_in_thread(project: Project) -> tuple[threading.Thread, list[Outcome]]:
    desk_ = Desk(project.settings(), [VENUE], lock_wait_s=0)
    click = {"ref": f"{VENUE}/{PAPER}", "action": "regen", "version": 1, "status": "draft", "feedback": "补上数字"}
    out: list[Outcome] = []
    thread = threading.Thread(target=lambda: out.append(desk_.perform(click)))
    thread.start()
    return thread, out


def test_a_regen_leaves_the_venue_free_while_the_model_thinks(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_waits(project, monkeypatch) as (asked, answer):
        thread, out = regen_in_thread(project)
        assert asked.wait(120)
        with locks.venue(project.store(), VENUE):  # a command (or another tab) meanwhile: not refused
            pass
        answer.set()
        thread.join(120)
    assert out[0].status == 200, out[0].body
    record = project.store().load(VENUE, PAPER)
    assert [v.origin for v in record.summaries.versions] == ["llm", "llm"] and record.summaries.versions[
        -1
    ].feedback == "补上数字"


def test_a_regen_of_a_paper_changed_meanwhile_saves_nothing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    with model_waits(project, monkeypatch) as (asked, answer):
        thread, out = regen_in_thread(project)
        assert asked.wait(120)
        store = project.store()
        with locks.venue(store, VENUE):  # an edit from the CLI while the model thinks: version 2
            review.edit(project.settings(), store, VENUE, PAPER, summary=None, tags=["LLM"], field=None)
        answer.set()
        thread.join(120)
    assert out[0].status == 409 and "nothing saved" in out[0].body["error"]
    record = project.store().load(VENUE, PAPER)
    assert [v.origin for v in record.summaries.versions] == ["llm", "human"]


def test_the_approve_all_page_fits_the_limit(project: Project) -> None:
    """The desk's own page may ask to approve a page of rows with the longest ids: that is not over the limit."""
    write_workspace(project)
    longest = "x" * 128
    items = [
        {"ref": f"{'V' * 64}/{longest[:-3]}{n:03d}", "version": 1000, "status": "approved*"} for n in range(PAGE_SIZE)
    ]
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        answer = s.post(f"{running.base}/api/approve-many", json={"items": items}, headers={"Origin": running.base})
    assert answer.status_code == 400  # refused for what it names (not this desk's papers), not for its size
    assert "not a paper of this desk" in answer.json()["error"]
