"""The desk's queue over HTTP: the session's stable order, the next paper after a decision, undo with the
stale check, pages through any number of papers, rows to triage from, flagged numbers marked in the text."""

from __future__ import annotations

import re
from typing import Any

import requests

from conftest import Project, RunCli
from desk_workspace import INVENTED, VENUE, desk, paper_summary, session, write_workspace
from summarizer.apps.desk.queue import PAGE_SIZE
from summarizer.core.records import FetchState, Record

ROW = re.compile(r'<tr data-paper="([^"]+)"')


def act(s: requests.Session, base: str, ref: str, action: str, **extra: Any) -> requests.Response:
    """An action as the paper's page sends it: the version and status it showed."""
    page = s.get(f"{base}/paper/{ref}", timeout=30).text
    version = int(re.search(r'data-version="(\d+)"', page).group(1))  # type: ignore[union-attr]
    status = re.search(r'data-status="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    payload = {"ref": ref, "action": action, "version": version, "status": status, **extra}
    return s.post(f"{base}/api/action", json=payload, headers={"Origin": base}, timeout=30)


def undo(s: requests.Session, base: str, **payload: str) -> requests.Response:
    return s.post(f"{base}/api/undo", json=payload, headers={"Origin": base}, timeout=30)


def next_of(s: requests.Session, base: str, ref: str, query: str = "") -> str:
    answer = s.get(f"{base}/paper/{ref}/next{query}", allow_redirects=False, timeout=30)
    assert answer.status_code == 303
    return answer.headers["location"]


def test_decisions_keep_the_order_open_the_next_paper_and_undo(project: Project, cli: RunCli) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        base, s = running.base, session(running.base, running.token)
        order = ROW.findall(s.get(f"{base}/", params={"status": "all"}, timeout=30).text)
        first, second, third = order[:3]
        assert act(s, base, first, "approve").status_code == 200
        assert next_of(s, base, first) == f"/paper/{second}"
        assert act(s, base, second, "reject", note="不属于本会议").status_code == 200
        assert next_of(s, base, second) == f"/paper/{third}"
        # An edit that makes a quiet paper the most suspicious does not move it: the order is the session's.
        quiet = order[-1]
        assert cli("review", "edit", quiet, "--summary", paper_summary(1).replace("LLaMA-7B", "LLaMA-99B")).code == 0
        assert ROW.findall(s.get(f"{base}/", params={"status": "all"}, timeout=30).text) == order
        # `k` from the third paper goes back to the one just decided: it kept its place.
        paper = s.get(f"{base}/paper/{third}", timeout=30).text
        assert f'data-prev="/paper/{second}"' in paper

        queue = s.get(f"{base}/", timeout=30).text
        assert re.findall(r'data-decided="([^"]+)"', queue) == [second, first]  # newest first
        undone = undo(s, base)
        assert undone.status_code == 200 and undone.json() == {
            "message": f"undone: {second} is draft again",
            "paper": f"/paper/{second}",
        }
        record = project.store().load(*second.split("/"))
        assert (record.summaries.status, record.summaries.review_note) == ("draft", None)

        # The paper changed since it was approved: its decision is not put back.
        assert cli("review", "edit", first, "--summary", paper_summary(40)).code == 0
        stale = undo(s, base, ref=first)
        assert stale.status_code == 409 and "nothing undone" in stale.json()["error"]
        record = project.store().load(*first.split("/"))
        assert (record.summaries.status, record.summaries.approved_version, len(record.summaries.versions)) == (
            "approved",
            1,
            2,
        )
        assert undo(s, base).status_code == 400  # nothing left to undo


def test_rows_to_triage_from_marked_numbers_and_the_next_paper_within_the_filter(project: Project) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        base, s = running.base, session(running.base, running.token)
        queue = s.get(f"{base}/", timeout=30).text
        assert '<p class="start">本文提出一种稀疏注意力，在 LLaMA-7B 上把推理加速 56.7x' in queue
        paper = s.get(f"{base}/paper/{VENUE}/{INVENTED}", timeout=30).text
        marked = re.findall(r'<mark class="flagged"[^>]*>([^<]+)</mark>', paper)
        assert marked == ["56.7x", "86.70%", "GPT-4o"]

        numbers = ROW.findall(s.get(f"{base}/", params={"warning": "numbers"}, timeout=30).text)
        assert len(numbers) == 2
        # The queue's filter goes with its papers: the next one is the next the filter keeps, then the first.
        assert next_of(s, base, numbers[0], "?warning=numbers") == f"/paper/{numbers[1]}?warning=numbers"
        assert next_of(s, base, numbers[1], "?warning=numbers") == f"/paper/{numbers[0]}?warning=numbers"
        for ref in numbers:
            assert act(s, base, ref, "approve").status_code == 200
        assert next_of(s, base, numbers[1], "?warning=numbers") == "/?warning=numbers"  # none left: the queue


def test_the_queue_pages_through_every_paper_once(project: Project) -> None:
    write_workspace(project)
    store = project.store()
    for n in range(2 * PAGE_SIZE + 18):
        record = Record(venue=VENUE, id=f"2602.{n:05d}", title=f"Extra paper {n}", fetch=FetchState())
        record.summaries.add_version(paper_summary(n), ["LLM"], "llm_reasoning", "llm", checked=True)
        store.save(record)
    with desk(project, VENUE) as running:
        base, s = running.base, session(running.base, running.token)
        pages = [s.get(f"{base}/", params={"page": n}, timeout=30).text for n in (1, 2, 3, 4)]
        rows = [ROW.findall(page) for page in pages]
        assert [len(r) for r in rows[:3]] == [PAGE_SIZE, PAGE_SIZE, 50]
        assert rows[3] == rows[2]  # past the end: the last page
        seen = rows[0] + rows[1] + rows[2]
        assert len(seen) == len(set(seen)) == 2 * PAGE_SIZE + 50
        assert 'data-next-page="/?page=2"' in pages[0] and 'data-prev-page="/?page=2"' in pages[2]
        assert "401–450 shown, page 3 of 3" in pages[2]


def test_a_listing_reads_again_only_the_records_that_changed(project: Project, monkeypatch: Any) -> None:
    """5,000 records parse in about half a second: each page of the desk must not pay that again."""
    from summarizer.apps.desk.queue import WarningCache, load_rows
    from summarizer.core.store import Store

    write_workspace(project)
    settings = project.settings()
    store = Store(settings.outputs_dir)
    cache = WarningCache(settings)
    parsed: list[str] = []
    real = Store._parse
    monkeypatch.setattr(Store, "_parse", staticmethod(lambda path, data: parsed.append(path.stem) or real(path, data)))
    assert len(load_rows(settings, store, [VENUE], cache)) == 32 and len(parsed) == 32
    parsed.clear()
    assert len(load_rows(settings, store, [VENUE], cache)) == 32 and parsed == []
    record = store.load(VENUE, "2601.10003")
    parsed.clear()
    record.summaries.review_note = "a change"
    record.summaries.status = "rejected"
    store.save(record)
    rows = load_rows(settings, store, [VENUE], cache)
    assert parsed == ["2601.10003"]
    assert next(r for r in rows if r.ref == f"{VENUE}/2601.10003").status == "rejected"
