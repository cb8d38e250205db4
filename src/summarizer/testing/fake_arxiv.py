"""A loopback stand-in for the arXiv API and its PDF host.

    with FakeArxiv([FakePaper("2501.00001", "A Title", "An abstract.")]) as fake:
        settings.arxiv.api_url = fake.api_url
        ...
        assert fake.api_calls() == 1

It serves ``GET /api/query`` like export.arxiv.org (Atom feeds built from the
papers it holds; ``id_list`` with ``start``/``max_results``, and
``search_query`` with ``ti:"…"``, ``co:"…"``, ``abs:``, ``all:`` terms joined
by AND/OR) and ``GET /pdf/<id>v<n>`` (each paper's PDF, generated with
pymupdf on first request unless given).  As arXiv does, it answers HTTP 400
for a malformed id in ``id_list``, leaves unknown ids out of the feed (or,
with ``error_entries=True``, answers with the old-style error entry), and
defaults ``max_results`` to 10.

Faults: ``fail_api(503, times=1)`` (the next API requests fail), ``set_pdf``
(any body, status and content type: an HTML page with 200, a 404, a corrupt
file), ``fail_pdf(id, 503, times=1)``.  Every request is logged
(``requests``), so tests can assert on batching and on what a second run asks.
Binds to 127.0.0.1 only.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from summarizer.core.ids import is_arxiv_id, strip_version

from .loopback import QuietHandler, StandIn
from .pdfs import paper_pdf

ATOM_HEAD = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
)


@dataclass
class FakePaper:
    arxiv_id: str  # without version: "2501.00001" or "hep-th/9901001"
    title: str
    abstract: str = "We study a problem and propose a method that works well in our experiments."
    authors: list[str] = field(default_factory=lambda: ["Ada Lovelace", "Alan Turing"])
    categories: list[str] = field(default_factory=lambda: ["cs.LG"])
    comment: str | None = None
    version: int = 1
    published: str = "2025-01-02T03:04:05Z"
    pdf: bytes | None = None  # None: a paper PDF made from title and abstract on first request
    sections: list[tuple[str, str]] | None = None  # body text for the generated PDF

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"


@dataclass
class LoggedRequest:
    kind: str  # "api", "pdf" or "other"
    path: str
    params: dict[str, str]
    status: int
    ids: list[str] = field(default_factory=list)  # id_list of an API call, or the PDF's id


@dataclass
class _Reply:
    status: int
    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)


class FakeArxiv(StandIn):
    def __init__(self, papers: list[FakePaper] | None = None, *, error_entries: bool = False):
        self.papers: dict[str, FakePaper] = {}
        self.error_entries = error_entries
        self.requests: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._api_faults: list[_Reply] = []
        self._pdf_faults: dict[str, list[_Reply]] = {}
        self._pdf_bodies: dict[str, _Reply] = {}
        for paper in papers or []:
            self.add(paper)

    # -- lifecycle -------------------------------------------------------------
    def handler(self) -> type[QuietHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                reply = fake._handle(self.path)
                self.reply(reply.status, reply.body, reply.content_type, reply.headers)

        return Handler

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/query"

    def pdf_url(self, arxiv_id: str) -> str:
        paper = self.papers[strip_version(arxiv_id)]
        return f"{self.url}/pdf/{paper.versioned_id}"

    # -- content and faults ------------------------------------------------------
    def add(self, paper: FakePaper) -> FakePaper:
        with self._lock:
            self.papers[paper.arxiv_id] = paper
        return paper

    def fail_api(self, status: int = 503, *, times: int = 1, body: bytes = b"Service Unavailable") -> None:
        """The next ``times`` API requests answer ``status``."""
        with self._lock:
            self._api_faults.extend(_Reply(status, body, "text/plain") for _ in range(times))

    def reply_api(self, body: bytes, *, status: int = 200) -> None:
        """The next API request answers exactly ``body`` (e.g. a recorded arXiv feed)."""
        with self._lock:
            self._api_faults.append(_Reply(status, body, "application/atom+xml; charset=utf-8"))

    def set_pdf(self, arxiv_id: str, body: bytes, *, status: int = 200, content_type: str = "application/pdf") -> None:
        """What /pdf/<id> answers from now on (an HTML page, a 404, a corrupt file …)."""
        with self._lock:
            self._pdf_bodies[strip_version(arxiv_id)] = _Reply(status, body, content_type)

    def fail_pdf(self, arxiv_id: str, status: int = 503, *, times: int = 1) -> None:
        """The next ``times`` requests for this paper's PDF answer ``status``, then the PDF."""
        with self._lock:
            self._pdf_faults.setdefault(strip_version(arxiv_id), []).extend(
                _Reply(status, b"try again later", "text/plain") for _ in range(times)
            )

    # -- the request log -----------------------------------------------------------
    def api_requests(self) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.kind == "api"]

    def api_calls(self) -> int:
        return len(self.api_requests())

    def pdf_requests(self) -> Counter[str]:
        """Requests per paper id (without version)."""
        with self._lock:
            return Counter(r.ids[0] for r in self.requests if r.kind == "pdf" and r.ids)

    def requested_ids(self) -> list[list[str]]:
        """The id_list of every API call, in order."""
        return [r.ids for r in self.api_requests() if r.ids]

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()

    # -- serving -----------------------------------------------------------------
    def _handle(self, raw_path: str) -> _Reply:
        parts = urlsplit(raw_path)
        params = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if parts.path.rstrip("/").endswith("/api/query"):
            reply, ids = self._api(params)
            kind = "api"
        elif parts.path.startswith("/pdf/"):
            requested = parts.path[len("/pdf/") :].removesuffix(".pdf")
            ids = [strip_version(requested)]
            reply = self._pdf(ids[0])
            kind = "pdf"
        else:
            reply, ids, kind = _Reply(404, b"not found", "text/plain"), [], "other"
        with self._lock:
            self.requests.append(LoggedRequest(kind, parts.path, params, reply.status, ids))
        return reply

    def _api(self, params: dict[str, str]) -> tuple[_Reply, list[str]]:
        id_list = [i.strip() for i in params.get("id_list", "").split(",") if i.strip()]
        with self._lock:
            if self._api_faults:
                return self._api_faults.pop(0), id_list
        bad = [i for i in id_list if not is_arxiv_id(i)]
        if bad:
            feed = self._error_feed(f"incorrect id format for {bad[0]}", bad[0])
            return _Reply(400, feed, "application/atom+xml"), id_list
        try:
            start = int(params.get("start", "0") or 0)
            max_results = int(params.get("max_results", "10") or 10)
        except ValueError:
            feed = self._error_feed("start and max_results must be integers", "bad")
            return _Reply(400, feed, "application/atom+xml"), id_list
        query = params.get("search_query", "")
        with self._lock:
            papers = list(self.papers.values())
        errors: list[str] = []
        if id_list:
            matched = []
            for wanted in id_list:
                paper = next((p for p in papers if p.arxiv_id == strip_version(wanted)), None)
                if paper is None:
                    errors.append(wanted)
                elif not query or _matches(paper, query):
                    matched.append(paper)
        else:
            matched = [p for p in papers if _matches(p, query)] if query else []
        page = matched[start : start + max_results]
        body = self._feed(page, len(matched), start, max_results, params)
        if self.error_entries and errors:
            body = self._error_feed(f"no paper with id {errors[0]}", errors[0])
        return _Reply(200, body, "application/atom+xml; charset=utf-8"), id_list

    def _pdf(self, arxiv_id: str) -> _Reply:
        with self._lock:
            faults = self._pdf_faults.get(arxiv_id)
            if faults:
                return faults.pop(0)
            if arxiv_id in self._pdf_bodies:
                return self._pdf_bodies[arxiv_id]
            paper = self.papers.get(arxiv_id)
        if paper is None:
            return _Reply(404, b"<html><body>Not Found</body></html>", "text/html")
        if paper.pdf is None:
            data = paper_pdf(paper.title, paper.abstract, paper.sections, authors=paper.authors)
            with self._lock:
                if paper.pdf is None:
                    paper.pdf = data
        assert paper.pdf is not None
        return _Reply(200, paper.pdf, "application/pdf")

    def _feed(self, papers: list[FakePaper], total: int, start: int, max_results: int, params: dict[str, str]) -> bytes:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        out = [ATOM_HEAD]
        query = "&amp;".join(f"{escape(k)}={escape(v)}" for k, v in params.items())
        out.append(f"  <id>{self.url}/api/fake</id>\n  <title>arXiv Query: {query}</title>\n")
        out.append(f"  <updated>{now}</updated>\n")
        out.append(f"  <opensearch:itemsPerPage>{max_results}</opensearch:itemsPerPage>\n")
        out.append(f"  <opensearch:totalResults>{total}</opensearch:totalResults>\n")
        out.append(f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n")
        for p in papers:
            abs_url = f"{self.url}/abs/{p.versioned_id}"
            out.append("  <entry>\n")
            out.append(f"    <id>http://arxiv.org/abs/{p.versioned_id}</id>\n")
            out.append(f"    <title>{escape(p.title)}</title>\n")
            out.append(f"    <updated>{p.published}</updated>\n    <published>{p.published}</published>\n")
            out.append(f'    <link href="{abs_url}" rel="alternate" type="text/html"/>\n')
            pdf_url = f"{self.url}/pdf/{p.versioned_id}"
            out.append(f'    <link href="{pdf_url}" rel="related" type="application/pdf" title="pdf"/>\n')
            out.append(f"    <summary>{escape(p.abstract)}</summary>\n")
            for cat in p.categories:
                out.append(f'    <category term="{escape(cat)}" scheme="http://arxiv.org/schemas/atom"/>\n')
            if p.categories:
                out.append(f'    <arxiv:primary_category term="{escape(p.categories[0])}"/>\n')
            if p.comment:
                out.append(f"    <arxiv:comment>{escape(p.comment)}</arxiv:comment>\n")
            for author in p.authors:
                out.append(f"    <author>\n      <name>{escape(author)}</name>\n    </author>\n")
            out.append("  </entry>\n")
        out.append("</feed>\n")
        return "".join(out).encode("utf-8")

    def _error_feed(self, message: str, what: str) -> bytes:
        """The old-style arXiv answer: an <entry> that is an error, not a paper."""
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        anchor = re.sub(r"[^A-Za-z0-9._-]", "_", message)
        return (
            ATOM_HEAD
            + f"  <id>{self.url}/api/errors</id>\n  <title>arXiv Query: error</title>\n  <updated>{now}</updated>\n"
            + "  <opensearch:totalResults>1</opensearch:totalResults>\n"
            + "  <opensearch:startIndex>0</opensearch:startIndex>\n"
            + "  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>\n"
            + f"  <entry>\n    <id>http://arxiv.org/api/errors#{anchor}</id>\n    <title>Error</title>\n"
            + f"    <summary>{escape(message)}</summary>\n"
            + f"    <updated>{now}</updated>\n    <published>{now}</published>\n"
            + f'    <link href="http://arxiv.org/api/errors#{anchor}" rel="alternate" type="text/html"/>\n'
            + "    <author>\n      <name>arXiv api core</name>\n    </author>\n  </entry>\n</feed>\n"
        ).encode("utf-8")


_TERM = re.compile(
    r'(?P<field>ti|au|abs|co|cat|all|id):(?:"(?P<quoted>[^"]*)"|(?P<word>\S+))'
    r'|(?P<op>AND|OR|ANDNOT)|(?P<bare>"[^"]*"|\S+)'
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.casefold())


def _field_text(paper: FakePaper, name: str) -> str:
    return {
        "ti": paper.title,
        "au": " ".join(paper.authors),
        "abs": paper.abstract,
        "co": paper.comment or "",
        "cat": " ".join(paper.categories),
        "id": paper.arxiv_id,
    }.get(name, f"{paper.title} {paper.abstract} {paper.comment or ''} {' '.join(paper.authors)}")


def _matches(paper: FakePaper, query: str) -> bool:
    """Every word of a term appears in its field (a loose match, as arXiv's own search is)."""
    result: bool | None = None
    op = "AND"
    for m in _TERM.finditer(query):
        if m.group("op"):
            op = m.group("op")
            continue
        name = m.group("field") or "all"
        text = m.group("quoted") if m.group("quoted") is not None else (m.group("word") or m.group("bare") or "")
        have = set(_words(_field_text(paper, name)))
        hit = all(w in have for w in _words(text))
        if result is None:
            result = hit
        elif op == "AND":
            result = result and hit
        elif op == "OR":
            result = result or hit
        else:
            result = result and not hit
        op = "AND"
    return bool(result)
