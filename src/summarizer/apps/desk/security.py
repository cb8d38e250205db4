"""The desk's gate: the right Host, no foreign Origin, the token once, then a session.

The token, given once in the address, opens a session: a cookie (a random id, never the token) and a
key that only the welcome page holds, which desk.js keeps in the desk origin's own storage and sends
with every change.  Browsers send 127.0.0.1's cookies to every port, so another local server may get
the cookie and replay it: with it alone a script reads pages (which never hold the key) and changes
nothing.  A pure ASGI middleware, so nothing reaches a route (or a log) before it passed.
"""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict
from html import escape
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from starlette.datastructures import Headers
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
MAX_BODY = 64 * 1024
KEY_HEADER = "x-desk-key"
MAX_SESSIONS = 32  # each opening of the token's address starts one; the oldest go first
# desk.js keeps the key in the desk origin's storage, then leaves for `next` (the token leaves the address bar).
WELCOME = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>review desk</title>
<meta name="desk-key" content="{key}">
<meta name="desk-next" content="{next}">
<script src="/static/desk.js" defer></script></head>
<body><p>Opening the review desk… (it needs JavaScript)</p></body></html>
"""


class Gate:
    def __init__(self, app: ASGIApp, *, host: str, port: int, token: str, extra_script_src: str = ""):
        self.app = app
        self.token = token
        self.hosts = addresses(host, port)
        self.origins = {f"http://{h}" for h in self.hosts}
        self.cookie = f"summarizer_desk_{port}"
        self.sessions: OrderedDict[str, str] = OrderedDict()  # cookie value → the key a change must carry
        self.headers = dict(HEADERS)
        if extra_script_src:  # MathJax from its CDN, when no local copy was found
            self.headers["content-security-policy"] = CSP.replace(
                "script-src 'self'", f"script-src 'self' {extra_script_src}"
            ).replace("font-src 'self' data:", f"font-src 'self' data: {extra_script_src}")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._check(scope)
        if refusal is not None:
            await self._with_headers(refusal)(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.encode(), v.encode()) for k, v in self.headers.items() if k.encode() not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _with_headers(self, response: Response) -> Response:
        for key, value in self.headers.items():
            response.headers[key] = value
        return response

    def _check(self, scope: Scope) -> Response | None:
        headers = Headers(scope=scope)
        if headers.get("host", "").lower() not in self.hosts:
            return PlainTextResponse("403: this desk answers only at its own address", status_code=403)
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in self.origins:
            return PlainTextResponse("403: a request from another site", status_code=403)
        change = scope["method"] not in ("GET", "HEAD")
        if change and origin is None:
            return PlainTextResponse("403: a change needs the desk's own page (no Origin header)", status_code=403)
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given = query.get("token")
        if not change and given is not None and _same(given, self.token):
            return self._welcome(scope, query)
        key = self._session_key(_cookie(headers.get("cookie", ""), self.cookie))
        if key is None:
            return PlainTextResponse(
                "403: open the address `summarizer review serve` printed (it holds ?token=…)", status_code=403
            )
        if change and not _same(headers.get(KEY_HEADER, ""), key):
            return PlainTextResponse(
                "403: a change needs the desk's own page: open the address `summarizer review serve` printed again",
                status_code=403,
            )
        return None

    def _session_key(self, cookie: str | None) -> str | None:
        if not cookie:
            return None
        return next((key for session, key in self.sessions.items() if _same(cookie, session)), None)

    def _welcome(self, scope: Scope, query: dict[str, str]) -> Response:
        """The token in the address once: a new session, its key handed to the page, the token off the address bar."""
        session, key = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.sessions[session] = key
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)
        path = scope["path"] if not scope["path"].startswith("//") else "/"  # never a link to another host
        rest = urlencode({k: v for k, v in query.items() if k != "token"})
        target = quote(path) + (f"?{rest}" if rest else "")
        response = HTMLResponse(WELCOME.format(key=escape(key), next=escape(target)))
        response.set_cookie(self.cookie, session, httponly=True, samesite="strict", path="/")
        return response


def addresses(host: str, port: int) -> set[str]:
    """The Host values that name the desk: ``host:port``, and ``host`` alone on port 80 (a browser leaves it out)."""
    name = (f"[{host}]" if ":" in host else host).lower()
    return {f"{name}:{port}", name} if port == 80 else {f"{name}:{port}"}


def _same(given: str, secret: str) -> bool:
    return hmac.compare_digest(given.encode(), secret.encode())


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None
