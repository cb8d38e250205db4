"""What the desk's pages and routes share: a change's JSON body (bounded, 413 past the limit) and the
answer to it, the record an address names, numbers from the address, the two versions a diff compares,
and the links a record may put in a page."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from summarizer.core.errors import SummarizerError
from summarizer.core.records import Record

from .desk import Desk, Outcome


def int_param(value: str | None, default: int) -> int:
    try:
        return int(value or "")
    except ValueError:
        return default


def web_url(url: str | None) -> str:
    """Only http(s) links from a record reach an href: never javascript: or data:."""
    return url if url and re.match(r"https?://", url, re.IGNORECASE) else ""


def pick_versions(
    request: Request, numbers: list[int], newest_against: int | None = None
) -> tuple[int | None, int | None]:
    """The two versions to compare: ?a=&b= when both exist, else ``newest_against`` (or the previous) and the newest."""
    try:
        a, b = int(request.query_params.get("a", "")), int(request.query_params.get("b", ""))
        if a in numbers and b in numbers:
            return a, b
    except ValueError:
        pass
    if len(numbers) < 2:
        return None, None
    if newest_against in numbers and newest_against != numbers[-1]:
        return newest_against, numbers[-1]
    return numbers[-2], numbers[-1]


async def json_body(request: Request, limit: int, nothing: str, advice: str) -> dict[str, Any] | Response:
    """The body's JSON object, or the JSON error the page shows: over ``limit`` bytes, a 413 that says so.

    Past the limit the body is read (up to 8 times the limit) but not kept.
    """
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        # A cross-site form cannot send JSON without asking first.
        return JSONResponse({"error": f"{nothing}: expected a JSON request"}, status_code=400)
    body, size = bytearray(), 0
    async for chunk in request.stream():
        size += len(chunk)
        if size <= limit:
            body += chunk
        elif size > 8 * limit:
            break
    if size > limit:
        message = f"{nothing}: the request is over the desk's {limit // 1024} KB limit; {advice}"
        return JSONResponse({"error": message}, status_code=413)
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return JSONResponse({"error": f"{nothing}: expected a JSON object"}, status_code=400)
    return data


async def answered(
    request: Request, limit: int, nothing: str, advice: str, act: Callable[[dict[str, Any]], Outcome]
) -> Response:
    """A change's JSON body given to ``act`` (in a thread: it reads and writes records), its outcome as JSON."""
    data = await json_body(request, limit, nothing, advice)
    if isinstance(data, Response):
        return data
    outcome = await run_in_threadpool(act, data)
    return JSONResponse(outcome.body, status_code=outcome.status)


def approve_items(approve_many: Callable[[list[Any]], Outcome]) -> Callable[[dict[str, Any]], Outcome]:
    """A bulk approve's body (``{"items": [...]}``) given to ``approve_many``; anything else refused."""

    def act(data: dict[str, Any]) -> Outcome:
        items = data.get("items")
        if not isinstance(items, list):
            return Outcome(400, {"error": 'nothing approved: expected {"items": [...]}'})
        return approve_many(items)

    return act


async def requested_record(desk: Desk, request: Request) -> Record | Response:
    """The record the address names (``/…/{venue}/{paper}``) among the desk's venues, else a 404."""
    try:
        venue, paper = desk.split(f"{request.path_params['venue']}/{request.path_params['paper']}")
        return await run_in_threadpool(desk.store.load, venue, paper)
    except SummarizerError as exc:
        return PlainTextResponse(str(exc), status_code=404)
