"""A loopback stand-in for the OpenReview API v2 (api2.openreview.net) and its PDF endpoint.

    with FakeOpenReview(venue_notes("ICLR.cc/2026/Conference", accepted=700, ...)) as fake:
        config["openreview"] = {"api_url": fake.url}

It answers what openreview-py asks (checked against openreview-py 2.9.1):

* ``GET /notes?content.venueid=V&limit=L&sort=id[&after=ID][&count=true]``: the notes whose
  ``content.venueid`` is exactly ``V``, sorted by id, those after ``after``, at most ``limit``
  (capped at ``page_cap``, 1000 like the real API unless a test lowers it);
  ``{"notes": [...], "count": N}`` (``count`` only when asked);
* ``GET /pdf?id=ID``: the note's PDF (generated on first request unless given);
* ``POST /login {"id", "password"}``: ``{"token", "user": {"profile": {"id"}}}`` for the account
  given to ``require_login(user, password)``, else 400 ``InvalidCredentials``.

Gates, as OpenReview answers anonymous automated traffic today: ``gate="challenge"`` (403
``{"name": "ChallengeRequiredError"}``) or ``gate="html"`` (200 ``text/html`` "Just a moment…"),
on every request without the login's token.  Every request is logged (``requests``).
Binds to 127.0.0.1 only.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from summarizer.testing.loopback import QuietHandler, StandIn
from summarizer.testing.pdfs import paper_pdf

CHALLENGE_HTML = (
    b"<!DOCTYPE html><html><head><title>Just a moment...</title></head>"
    b"<body><p>Checking if the site connection is secure</p></body></html>"
)
TOKEN = "fake-openreview-token"


@dataclass
class FakeNote:
    id: str
    title: str
    venueid: str
    venue: str  # "ICLR 2026 Oral", "Submitted to ICLR 2026" …
    abstract: str = "We study a problem and propose a method that works well in our experiments."
    authors: list[str] = field(default_factory=lambda: ["Ada Lovelace", "Alan Turing"])
    unified_authors: bool = False  # the newer {"fullname", "username"} author schema
    pdf: bytes | None = None

    def to_json(self) -> dict[str, Any]:
        authors: list[Any] = (
            [{"fullname": a, "username": f"~{a.replace(' ', '_')}1"} for a in self.authors]
            if self.unified_authors
            else list(self.authors)
        )
        return {
            "id": self.id,
            "forum": self.id,
            "number": 1,
            "cdate": 1700000000000,
            "mdate": 1700000000000,
            "invitations": [f"{self.venueid.split('/')[0]}/-/Submission"],
            "domain": self.venueid,
            "readers": ["everyone"],
            "writers": [],
            "signatures": [],
            "content": {
                "title": {"value": self.title},
                "abstract": {"value": self.abstract},
                "authors": {"value": authors},
                "pdf": {"value": f"/pdf/{self.id}.pdf"},
                "venue": {"value": self.venue},
                "venueid": {"value": self.venueid},
            },
        }


def venue_notes(
    venue_id: str,
    venue_name: str,
    *,
    oral: int = 0,
    spotlight: int = 0,
    poster: int = 0,
    rejected: int = 0,
    withdrawn: int = 0,
    workshop: int = 0,
) -> list[FakeNote]:
    """A venue's notes as OpenReview holds them after decisions (ids in no particular order)."""
    kinds = (
        [(venue_id, f"{venue_name} Oral")] * oral
        + [(venue_id, f"{venue_name} Spotlight")] * spotlight
        + [(venue_id, f"{venue_name} Poster")] * poster
        + [(f"{venue_id}/Rejected_Submission", f"Submitted to {venue_name}")] * rejected
        + [(f"{venue_id}/Withdrawn_Submission", f"{venue_name} Conference Withdrawn Submission")] * withdrawn
        + [(venue_id.replace("/Conference", "/Workshop/Robustness"), f"{venue_name} Workshop")] * workshop
    )
    notes = []
    for n, (vid, label) in enumerate(kinds):
        note_id = f"{(n * 7919) % 99991:05d}{_letters(n)}"  # ids not in list order: the server sorts
        notes.append(FakeNote(note_id, f"Paper {n}: {label} study of topic {n}", vid, label))
    return notes


def _letters(n: int) -> str:
    return "".join(chr(ord("a") + (n // 26**i) % 26) for i in range(3))


class FakeOpenReview(StandIn):
    def __init__(self, notes: list[FakeNote] | None = None, *, gate: str | None = None, page_cap: int = 1000):
        self.notes = {n.id: n for n in notes or []}
        self.page_cap = page_cap  # the most notes one answer holds, whatever ``limit`` asks
        self.gate = gate  # None, "challenge" (403) or "html" (200 "Just a moment")
        self.account: tuple[str, str] | None = None
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # (method, path, query)
        self.seen_headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._pdfs: dict[str, bytes] = {}

    def require_login(self, username: str, password: str) -> None:
        self.account = (username, password)

    # -- lifecycle ----------------------------------------------------------------------
    def handler(self) -> type[QuietHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                self.reply(*fake._handle("GET", self.path, dict(self.headers), b""))

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.reply(*fake._handle("POST", self.path, dict(self.headers), body))

        return Handler

    # -- what tests look at -------------------------------------------------------------
    def note_requests(self) -> list[dict[str, str]]:
        return [q for method, path, q in self.requests if path == "/notes"]

    def pdf_requests(self) -> list[str]:
        return [q.get("id", "") for method, path, q in self.requests if path == "/pdf"]

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.seen_headers.clear()

    # -- answers ------------------------------------------------------------------------
    def _handle(self, method: str, raw: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes, str]:
        parts = urlsplit(raw)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        with self._lock:
            self.requests.append((method, parts.path, query))
            self.seen_headers.append(headers)
        if method == "POST" and parts.path == "/login":
            return self._login(body)
        if self.gate and headers.get("Authorization") != f"Bearer {TOKEN}":
            if self.gate == "html":
                return 200, CHALLENGE_HTML, "text/html; charset=utf-8"
            return _error(403, "ChallengeRequiredError", "Please complete the challenge to continue")
        if parts.path == "/notes":
            return self._notes(query)
        if parts.path == "/pdf":
            return self._pdf(query.get("id", ""))
        return _error(404, "NotFoundError", f"no route {parts.path}")

    def _login(self, body: bytes) -> tuple[int, bytes, str]:
        try:
            data = json.loads(body)
        except ValueError:
            return _error(400, "ValidationError", "not JSON")
        if self.account is None or (data.get("id"), data.get("password")) != self.account:
            return _error(400, "InvalidCredentials", "Invalid username or password")
        answer = {"token": TOKEN, "user": {"id": "~Fake_User1", "profile": {"id": "~Fake_User1"}}}
        return 200, json.dumps(answer).encode(), "application/json; charset=utf-8"

    def _notes(self, query: dict[str, str]) -> tuple[int, bytes, str]:
        venueid = query.get("content.venueid")
        limit = min(int(query.get("limit") or 1000), self.page_cap)
        after = query.get("after")
        chosen = sorted((n for n in self.notes.values() if venueid is None or n.venueid == venueid), key=lambda n: n.id)
        total = len(chosen)
        if after:
            chosen = [n for n in chosen if n.id > after]
        answer: dict[str, Any] = {"notes": [n.to_json() for n in chosen[:limit]]}
        if query.get("count") == "true":
            answer["count"] = total
        return 200, json.dumps(answer).encode(), "application/json; charset=utf-8"

    def _pdf(self, note_id: str) -> tuple[int, bytes, str]:
        note = self.notes.get(note_id)
        if note is None:
            return _error(404, "NotFoundError", "The Note was not found")
        if note.pdf is not None:
            return 200, note.pdf, "application/pdf"
        with self._lock:
            if note_id not in self._pdfs:
                self._pdfs[note_id] = paper_pdf(note.title, note.abstract)
            data = self._pdfs[note_id]
        return 200, data, "application/pdf"


def _error(status: int, name: str, message: str) -> tuple[int, bytes, str]:
    body = {"name": name, "message": message, "status": status}
    return status, json.dumps(body).encode(), "application/json; charset=utf-8"
