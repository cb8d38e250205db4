"""The review desk over HTTP: the CLI's first line, the gate (token, Host, Origin), the queue, stale and locked
actions."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import requests

from conftest import Project, RunCli
from desk_workspace import INVENTED, KEY_META, PAPERS, VENUE, XSS_TITLE, desk, session, write_workspace
from summarizer.apps.desk.desk import Desk
from summarizer.apps.desk.diff import word_diff


def approve_first_version(s: requests.Session, base: str) -> requests.Response:
    """The desk's approve action on the invented-numbers paper's version 1, from the desk's own page."""
    return s.post(
        f"{base}/api/action",
        json={"ref": f"{VENUE}/{INVENTED}", "action": "approve", "version": 1, "status": "draft"},
        headers={"Origin": base},
        timeout=30,
    )


def test_first_line_queue_and_cookie(project: Project) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{20,}", running.url)
        welcome = requests.get(f"{running.base}/paper/{VENUE}/{INVENTED}?token={running.token}&a=1", timeout=30)
        # The page keeps the session's key, then leaves the token's address for the one without it.
        assert welcome.status_code == 200 and KEY_META.search(welcome.text)
        assert f'<meta name="desk-next" content="/paper/{VENUE}/{INVENTED}?a=1">' in welcome.text
        assert running.token not in welcome.text and "no-store" in welcome.headers["cache-control"]
        s = session(running.base, running.token)
        page = s.get(f"{running.base}/", timeout=30)
        assert page.status_code == 200
        rows = re.findall(r'<tr data-paper="([^"]+)"', page.text)
        assert len(rows) == PAPERS
        # The most suspicious first; the invented numbers are named in the row.
        assert f"{VENUE}/{INVENTED}" in rows[:2]
        assert "numbers not in the abstract (the paper&#39;s text was not read): 56.7x, 86.70%, GPT-4o" in page.text
        assert XSS_TITLE not in page.text and "&lt;img src=x onerror=alert(1)&gt;" in page.text
        assert "content-security-policy" in page.headers
        filtered = s.get(f"{running.base}/", params={"warning": "numbers"}, timeout=30)
        # The invented numbers, and the near-copy of another paper whose "第 14 组" is not in its own abstract.
        assert set(re.findall(r'<tr data-paper="([^"]+)"', filtered.text)) == {
            f"{VENUE}/{INVENTED}",
            f"{VENUE}/2601.10004",
        }
        searched = s.get(f"{running.base}/", params={"q": "Paper 1"}, timeout=30)
        assert len(re.findall(r"<tr data-paper=", searched.text)) == 10  # Paper 10 … Paper 19
        by_field = s.get(f"{running.base}/", params={"field": "image_generation", "venue": VENUE}, timeout=30)
        assert re.findall(r'<tr data-paper="([^"]+)"', by_field.text) == [f"{VENUE}/2601.10007"]
        approved = s.get(f"{running.base}/", params={"status": "approved"}, timeout=30)
        assert re.findall(r"<tr data-paper=", approved.text) == []
        assert "draft: <b>32</b>" in page.text


def test_no_token_foreign_host_or_origin_get_403(project: Project) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        base, token = running.base, running.token
        assert requests.get(f"{base}/", timeout=30).status_code == 403
        assert requests.get(f"{base}/?token=wrong", timeout=30).status_code == 403
        assert requests.get(f"{base}/paper/{VENUE}/{INVENTED}", timeout=30).status_code == 403
        evil = requests.get(f"{base}/?token={token}", headers={"Host": "evil.example"}, timeout=30)
        assert evil.status_code == 403
        s = session(base, token)
        assert s.get(f"{base}/", headers={"Host": "evil.example"}, timeout=30).status_code == 403
        cross = s.post(
            f"{base}/api/action",
            json={"ref": f"{VENUE}/{INVENTED}", "action": "approve", "version": 1},
            headers={"Origin": "http://evil.example"},
            timeout=30,
        )
        assert cross.status_code == 403
        no_origin = s.post(f"{base}/api/action", json={"ref": f"{VENUE}/{INVENTED}", "action": "approve"}, timeout=30)
        assert no_origin.status_code == 403
    assert project.store().load(VENUE, INVENTED).summaries.status == "draft"


def test_the_token_is_never_written_to_a_file_or_the_log(project: Project) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        approve_first_version(s, running.base)
        token = running.token
    assert project.store().load(VENUE, INVENTED).summaries.status == "approved"
    assert token not in "".join(running.stderr)
    for path in Path(project.root).rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path


def test_a_stale_action_is_refused(project: Project, cli: RunCli) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        assert cli("review", "edit", f"{VENUE}/{INVENTED}", "--tags", "LLM").code == 0  # version 2, from the CLI
        stale = approve_first_version(s, running.base)
        assert stale.status_code == 409
        assert "changed since this page was loaded (now version 2" in stale.json()["error"]
    assert project.store().load(VENUE, INVENTED).summaries.status == "draft"


def test_an_action_on_a_locked_venue_says_who_holds_it(project: Project) -> None:
    write_workspace(project)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path\n"
            "from summarizer.core import locks; from summarizer.core.store import Store\n"
            "with locks.venue(Store(Path(sys.argv[1])), sys.argv[2]):\n    print('held', flush=True); time.sleep(60)",
            str(project.settings().outputs_dir),
            VENUE,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        action = {"ref": f"{VENUE}/{INVENTED}", "action": "approve", "version": 1, "status": "draft"}
        locked = Desk(project.settings(), [VENUE], lock_wait_s=0).perform(action)
        assert locked.status == 423
        assert f"held by pid {holder.pid}" in locked.body["error"]
    finally:
        holder.kill()
        holder.wait()
    assert project.store().load(VENUE, INVENTED).summaries.status == "draft"


def test_word_diff_marks_words_and_chinese_characters() -> None:
    pieces = word_diff("本文提出 LLaMA-7B 上 2.1x 加速", "本文给出 LLaMA-7B 上 3.4x 加速")
    assert [(p.kind, p.text) for p in pieces if p.kind != "same"] == [
        ("del", "提"),
        ("ins", "给"),
        ("del", "2.1x"),
        ("ins", "3.4x"),
    ]


def test_ctrl_c_stops_the_desk_cleanly(project: Project) -> None:
    write_workspace(project)
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        assert s.get(f"{running.base}/", timeout=30).status_code == 200
        running.process.send_signal(signal.SIGINT)
        assert running.process.wait(timeout=30) == 0
    assert "review desk stopped" in "".join(running.stderr)
    assert "interrupted" not in "".join(running.stderr)


def test_a_broken_record_is_named_and_blocks_only_itself(project: Project) -> None:
    write_workspace(project)
    broken = project.settings().outputs_dir / "records" / VENUE / "2601.10009.json"
    broken.write_text("{not json", encoding="utf-8")
    with desk(project, VENUE) as running:
        page = session(running.base, running.token).get(f"{running.base}/", timeout=30)
    assert page.status_code == 200  # the other papers are still served
    assert "2601.10009.json" in page.text and "not valid JSON" in page.text
    assert 'data-paper="ICLR2026/2601.10009"' not in page.text and 'data-paper="ICLR2026/2601.10008"' in page.text
