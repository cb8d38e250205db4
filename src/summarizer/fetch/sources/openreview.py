"""The ``openreview`` source (ICLR, ICML, NeurIPS): API v2 through the official ``openreview-py`` client.

``source: {type: openreview, openreview_venue: "ICLR.cc/2026/Conference"}``.  Accepted papers only: the
venue's decision stage sets ``content.venueid`` to the venue id for accepted papers and to
``…/Rejected_Submission``, ``…/Withdrawn_Submission``, ``…/Desk_Rejected_Submission`` for the
rest, and workshops have ids of their own; so the query asks for an exact ``content.venueid``
match, and every note is checked again here.  The tier comes from ``content.venue``
(``"ICLR 2026 Oral"`` → ``oral``), the raw string is kept.

Pages are walked here with the client's ``get_notes`` (``limit=1000, sort=id, after=<last id>``,
the same requests ``get_all_notes`` makes) rather than with ``get_all_notes`` itself, which draws
a tqdm bar on stderr for lists over 1,000 and cannot stop early for ``--limit``.

Credentials come only from the environment variables named in the top-level ``openreview:``
section (``username_env``/``password_env``); they are never written or printed.  Anonymous access
is answered today by a 403 ``ChallengeRequiredError`` or by a 200 HTML "Just a moment" page: both
become one ``SourceAuthRequired`` line naming the two variables, before any record changes.
PDFs come from ``{api_url}/pdf?id=<note id>`` (what the client's ``get_pdf`` asks), downloaded by
the run's polite HTTP client with the login token for that host only.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from typing import Any
from urllib.parse import urlsplit

import requests

from summarizer.core.config import OpenReviewSettings
from summarizer.core.errors import MissingExtra, SourceAuthRequired, SourceError
from summarizer.core.sanitize import clean_line
from summarizer.core.source_settings import OpenReviewSource

from .base import Entry, Gathered, SourceContext, dig, native_entry, tier_of

log = logging.getLogger(__name__)

PAGE = 1000  # the API's cap
MAX_NOTES = 100_000
FORUM = "https://openreview.net/forum?id={id}"
AUTH_ERRORS = {
    "ChallengeRequiredError",
    "ForbiddenError",
    "NotLoggedInError",
    "AuthenticationError",
    "InvalidCredentials",
}


def gather(ctx: SourceContext, source: OpenReviewSource, limit: int | None) -> Gathered:
    settings = ctx.settings.openreview
    client = _call(settings, lambda: _client(settings))
    notes = _call(settings, lambda: _accepted_notes(client, source.openreview_venue, limit))
    if client.token:
        host = (urlsplit(settings.api_url).hostname or "").lower()
        ctx.http.host_headers[host] = {"Authorization": f"Bearer {client.token}"}
    return Gathered([entry_from_note(note, settings.api_url) for note in notes])


def _client(settings: OpenReviewSettings) -> Any:
    """An anonymous client, logged in with the configured variables' account when they are set.

    The client would also log in by itself from ``OPENREVIEW_USERNAME``/``OPENREVIEW_PASSWORD``;
    those are hidden while it is built, so only the variables the config names are ever used.
    """
    openreview = _package()

    username = os.environ.get(settings.username_env, "").strip()
    password = os.environ.get(settings.password_env, "")
    hidden = {name: os.environ.pop(name) for name in _CLIENT_ENV if name in os.environ}
    try:
        client = openreview.api.OpenReviewClient(baseurl=settings.api_url)
    finally:
        os.environ.update(hidden)
    if username or password:
        client.login_user(username or None, password or None)
    return client


_CLIENT_ENV = ("OPENREVIEW_USERNAME", "OPENREVIEW_PASSWORD")


def _accepted_notes(client: Any, openreview_venue: str, limit: int | None) -> list[Any]:
    """Every note whose ``content.venueid`` is exactly ``openreview_venue``, page by page (sorted by id).

    Pages go on until the server's ``count`` is reached or a page comes back empty: a server that
    pages in fewer than ``limit`` notes must not cut the list short.
    """
    query: dict[str, Any] = {"content": {"venueid": openreview_venue}, "limit": PAGE, "sort": "id"}
    page, count = client.get_notes(with_count=True, **query)
    notes: list[Any] = []
    seen = 0
    while page:
        seen += len(page)
        notes.extend(n for n in page if dig(n.content, "venueid", "value") == openreview_venue)
        if (limit is not None and len(notes) >= limit) or seen >= min(int(count or MAX_NOTES), MAX_NOTES):
            break
        page = client.get_notes(after=page[-1].id, **query)
    return notes[:limit] if limit is not None else notes


def _package() -> Any:
    """The client package, imported when an OpenReview venue is fetched (it is the ``[openreview]`` extra)."""
    try:
        import openreview
    except ImportError as exc:
        raise MissingExtra("an openreview source", "openreview") from exc
    return openreview


def entry_from_note(note: Any, api_url: str) -> Entry:
    content = note.content or {}
    label = dig(content, "venue", "value")
    return native_entry(
        "openreview",
        str(note.id),
        title=str(dig(content, "title", "value") or ""),
        authors=[str(a) for a in note.authors],
        abstract=str(dig(content, "abstract", "value") or ""),
        url=FORUM.format(id=note.id),
        pdf_url=f"{api_url}/pdf?id={note.id}",
        tier=tier_of(label if isinstance(label, str) else None),
        venue_label=label if isinstance(label, str) else None,
    )


def _call(settings: OpenReviewSettings, call: Any) -> Any:
    """Run a client call; every way OpenReview says no becomes one line (credentials named, never shown)."""
    openreview = _package()
    need_login = (
        f"set {settings.username_env} and {settings.password_env} to an OpenReview account "
        "(the variables named in openreview.username_env / password_env) and run again"
    )
    try:
        with contextlib.closing(_ClientPrints()) as prints, contextlib.redirect_stdout(prints):
            return call()
    except openreview.OpenReviewException as exc:
        name, message = _error_name(exc)
        if name in AUTH_ERRORS or "challenge" in message.lower():
            raise SourceAuthRequired(f"OpenReview refused the request ({name}): {need_login}") from exc
        raise SourceError(f"OpenReview answered {name}: {message[:200]}") from exc
    except requests.exceptions.JSONDecodeError as exc:
        raise SourceAuthRequired(
            f"OpenReview answered with an HTML page instead of JSON (a 'Just a moment' challenge): {need_login}"
        ) from exc
    except requests.RequestException as exc:
        raise SourceError(f"OpenReview at {settings.api_url} could not be reached ({type(exc).__name__})") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise SourceError(f"OpenReview's answer is not the API v2 format ({type(exc).__name__}: {exc})") from exc


class _ClientPrints(io.TextIOBase):
    """What the client prints to stdout (each retry: "Retrying request: <url>, response: <the server's
    answer>"), as ``-v`` log lines, cleaned: stdout stays the command's own, and a server's text
    never reaches the terminal raw."""

    def __init__(self) -> None:
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self._partial = (self._partial + text).split("\n")
        for line in lines:
            self._log(line)
        return len(text)

    def close(self) -> None:
        self._log(self._partial)
        self._partial = ""
        super().close()

    @staticmethod
    def _log(line: str) -> None:
        shown = clean_line(line)[:300]
        if shown:
            log.info("openreview-py: %s", shown)


def _error_name(exc: Exception) -> tuple[str, str]:
    detail = exc.args[0] if exc.args else None
    if isinstance(detail, dict):
        return str(detail.get("name") or "Error"), str(detail.get("message") or "")
    return "Error", str(detail or "")
