"""Who can reach the desk and with what: no secret on a command line, a cookie worth nothing alone, the desk's
address whatever --host/--port, the preview within the desk's venues."""

from __future__ import annotations

import asyncio
import stat
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import requests

from conftest import Project, start_summarizer
from desk_workspace import INVENTED, KEY_META, VENUE, desk, fake_browser, session, wait_for_file, write_workspace
from summarizer.apps.desk.security import Gate
from summarizer.core.records import Record

APPROVE = {"ref": f"{VENUE}/{INVENTED}", "action": "approve", "version": 1, "status": "draft"}


def test_the_browser_gets_a_private_file_not_the_token(project: Project, tmp_path: Path) -> None:
    write_workspace(project)
    program, seen = fake_browser(tmp_path)
    with desk(project, VENUE, browser=program) as running:
        argv = wait_for_file(seen, running.process)
        assert running.token not in argv  # `ps` shows a browser's command line to every local user
        opened = urlsplit(argv.strip())
        assert opened.scheme == "file", argv
        page = Path(unquote(opened.path))
        assert stat.S_IMODE(page.stat().st_mode) == 0o600
        assert stat.S_IMODE(page.parent.stat().st_mode) == 0o700
        assert running.url in page.read_text()  # it sends the browser on to the address with the token
    assert not page.exists() and not page.parent.exists()  # gone with the desk


def cookie_header(s: requests.Session) -> str:
    return "; ".join(f"{name}={value}" for name, value in s.cookies.items())


def test_a_replayed_cookie_changes_nothing(project: Project) -> None:
    """Browsers send 127.0.0.1's cookies to every port: another local server gets them, and may replay them."""
    write_workspace(project)
    with desk(project, VENUE) as running:
        base = running.base
        editor = session(base, running.token)
        held = cookie_header(editor)
        assert held and running.token not in held
        # A script replaying the cookie can forge Host and Origin, but not the key the desk's page keeps.
        replayed = requests.post(
            f"{base}/api/action", json=APPROVE, headers={"Cookie": held, "Origin": base}, timeout=30
        )
        assert replayed.status_code == 403
        many = {"items": [{k: APPROVE[k] for k in ("ref", "version", "status")}]}
        bulk = requests.post(
            f"{base}/api/approve-many", json=many, headers={"Cookie": held, "Origin": base}, timeout=30
        )
        assert bulk.status_code == 403
        # Nor can it read the key from a page the cookie opens.
        key = editor.headers["X-Desk-Key"]
        for path in ("/", f"/paper/{VENUE}/{INVENTED}", "/?status=all"):
            page = requests.get(f"{base}{path}", headers={"Cookie": held}, timeout=30)
            assert page.status_code == 200 and key not in page.text
        assert project.store().load(VENUE, INVENTED).summaries.status == "draft"
        # The editor's own page, with its key, still acts.
        assert editor.post(f"{base}/api/action", json=APPROVE, headers={"Origin": base}, timeout=30).status_code == 200
    assert project.store().load(VENUE, INVENTED).summaries.status == "approved"


def test_the_preview_keeps_to_the_desks_venues(project: Project) -> None:
    write_workspace(project)
    other = Record(venue="ICML2026", id="2602.00001", title="Not for this desk", abstract="An abstract.")
    other.summaries.add_version(
        "本文另一个会议的草稿，不在这张桌子的范围内。" * 3, ["LLM"], "llm_reasoning", "llm", model="m"
    )
    project.store().save(other)
    with desk(project, VENUE) as running:
        s = session(running.base, running.token)
        assert s.get(f"{running.base}/preview/{VENUE}/llm_reasoning", timeout=30).status_code == 200
        outside = s.get(f"{running.base}/preview/ICML2026/llm_reasoning", timeout=30)
        assert outside.status_code == 404
        assert "Not for this desk" not in outside.text


def test_a_wildcard_host_is_refused_at_start(project: Project) -> None:
    write_workspace(project)
    for host in ("0.0.0.0", "::"):
        process = start_summarizer(project, "review", "serve", "--host", host, "--no-browser", "--port", "0", env={})
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise AssertionError(f"the desk started on --host {host}, where it would refuse every request") from None
        assert process.returncode == 2
        assert out == "" and len(err.strip().splitlines()) == 1 and f"--host {host}" in err


def asgi(app: Any, method: str, target: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """One request straight to an ASGI app: status, headers, body."""
    path, _, query = target.partition("?")
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "scheme": "http",
        "http_version": "1.1",
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 50000),
        "root_path": "",
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:]).decode()
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


async def ok_app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"inside"})


def test_port_80_answers_at_the_address_a_browser_sends() -> None:
    """A browser leaves the default port out of Host and Origin: http://127.0.0.1/ is the desk on port 80."""
    gate = Gate(ok_app, host="127.0.0.1", port=80, token="t0ken")
    status, headers, body = asgi(gate, "GET", "/?token=t0ken", {"Host": "127.0.0.1"})
    assert status == 200
    cookie = headers["set-cookie"].split(";")[0]
    key = KEY_META.search(body)
    assert key is not None
    change = {"Host": "127.0.0.1", "Origin": "http://127.0.0.1", "Cookie": cookie, "X-Desk-Key": key.group(1)}
    status, _, body = asgi(gate, "POST", "/api/action", change)
    assert (status, body) == (200, "inside")
    assert asgi(gate, "POST", "/api/action", {**change, "Origin": "http://127.0.0.1:8080"})[0] == 403
    assert asgi(gate, "GET", "/", {"Host": "127.0.0.1:8080", "Cookie": cookie})[0] == 403
