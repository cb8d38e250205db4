"""The desk's gate: the right Host, no foreign Origin, and the token (cookie after the first visit).

A pure ASGI middleware, so nothing reaches a route (or a log) before it passed.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse, Response
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


class Gate:
    def __init__(self, app: ASGIApp, *, host: str, port: int, token: str, extra_script_src: str = ""):
        self.app = app
        self.token = token
        self.hosts = {f"{host}:{port}", f"[{host}]:{port}"}
        self.origin = f"http://{host}:{port}" if ":" not in host else f"http://[{host}]:{port}"
        self.cookie = f"summarizer_desk_{port}"
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
        if headers.get("host", "") not in self.hosts:
            return PlainTextResponse("403: this desk answers only at its own address", status_code=403)
        origin = headers.get("origin")
        if origin is not None and origin != self.origin:
            return PlainTextResponse("403: a request from another site", status_code=403)
        if scope["method"] not in ("GET", "HEAD") and origin is None:
            return PlainTextResponse("403: a change needs the desk's own page (no Origin header)", status_code=403)
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given = query.get("token")
        if given is not None and hmac.compare_digest(given.encode(), self.token.encode()):
            return self._welcome(scope, query)
        cookie = _cookie(headers.get("cookie", ""), self.cookie)
        if cookie is not None and hmac.compare_digest(cookie.encode(), self.token.encode()):
            return None
        return PlainTextResponse(
            "403: open the address `summarizer review serve` printed (it holds ?token=…)", status_code=403
        )

    def _welcome(self, scope: Scope, query: dict[str, str]) -> Response:
        """The token in the URL once: set the cookie and drop the token from the address bar."""
        rest = urlencode({k: v for k, v in query.items() if k != "token"})
        response = RedirectResponse(scope["path"] + (f"?{rest}" if rest else ""), status_code=303)
        response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
        return response


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key == name:
            return value
    return None
