"""A loopback OpenAI-compatible chat-completions server for tests, the demo and benchmarks.

    with FakeOpenAI(latency=0.02) as server:
        settings.llm.base_url = server.base_url
        server.script(Fault.rate_limit(retry_after=0.01))   # the next request gets a 429
        server.fail_first(Fault.server_error())              # every paper's first request gets a 500
        ...
        server.hold_first_wave(8)                            # the first 8 requests wait for each other
        server.calls, server.peak_in_flight, server.requests[i].body

Speaks ``POST /v1/chat/completions`` (non-streaming) to the real ``openai``
client.  By default it answers every request with a valid Chinese summary,
tags from the prompt's vocabulary and a field id from the prompt's field list
(``default_answer``).  Faults can be queued for the next requests
(``script``), given to each paper's n-th request (``fail_first``), or
decided by any function of the request (``fault_for``).  ``dialect`` takes ``response_format`` as
a real server does (``fake_dialects``; ``json_schema=False`` is DeepSeek's 400);
``rpm`` caps requests per window with a token bucket and answers 429 with Retry-After when it is
exceeded.  Every request is recorded (headers, body, status, timing), and the peak number in flight
is tracked; ``hold_first_wave`` makes the first requests wait until that many are in flight
together, so a test of overlap does not depend on how fast the machine is.

It also speaks the Batch API as the openai SDK uses it (``batch``, a ``fake_batches.FakeBatches``;
``batch_api=False`` answers 404 there, like a provider without one): its lines are answered like online
requests (the same answer function and faults), recorded in ``batch.requests``, never in ``requests``.

Binds to 127.0.0.1 only; runs in a background thread; no third-party dependency.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from .fake_batches import FakeBatches
from .fake_dialects import PROSE_ANSWER, ignores_format, refusal
from .fake_requests import (
    Fault,
    RecordedRequest,
    default_answer,
    error_body,
    is_note_request,
    paper_title,
    prompt_text,
)
from .loopback import LoopbackServer, QuietHandler, StandIn

__all__ = ["FakeOpenAI", "Fault", "RecordedRequest", "default_answer", "paper_title"]


class _Server(LoopbackServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):  # a client that hung up (timeout, Ctrl-C): not news
            return
        super().handle_error(request, client_address)


class FakeOpenAI(StandIn):
    """The server. Thread-safe; use as a context manager or call start()/stop()."""

    server_class = _Server
    poll_s = 0.05

    def __init__(
        self,
        *,
        latency: float = 0.0,
        answer: Callable[[dict[str, Any]], dict[str, Any] | str] = default_answer,
        json_schema: bool = True,
        rpm: int | None = None,
        rpm_window_s: float = 60.0,
        fault_for: Callable[[RecordedRequest], Fault | None] | None = None,
        model: str = "fake-model",
        unsupported: frozenset[str] = frozenset(),
        batch_api: bool = True,
        dialect: str | None = None,
    ):
        """``unsupported``: request parameters refused with a 400, as OpenAI's reasoning models
        refuse ``max_tokens`` (they take ``max_completion_tokens``) and a non-default ``temperature``."""
        self.latency = latency
        self.unsupported = unsupported
        self.answer = answer
        self.json_schema = json_schema
        self.dialect = dialect  # None: "openai", "deepseek" when json_schema is False
        self.rpm = rpm
        self.rpm_window_s = rpm_window_s
        self.fault_for = fault_for
        self.model = model
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        self._queued: deque[Fault] = deque()
        self._per_paper: list[tuple[Fault, int]] = []  # (fault, n): each paper's first n requests
        self._seen: dict[str, int] = defaultdict(int)
        self._bucket = float(rpm or 0)
        self._bucket_stamp = time.monotonic()
        self._stop = threading.Event()
        self._wave: int | None = None  # hold_first_wave: requests in flight that open the wave
        self._wave_open = threading.Event()
        self._wave_open.set()
        self._wave_timeout = 0.0
        self.batch = FakeBatches(
            self._lock, lambda request: self.handle(request, batch=True), model=model, enabled=batch_api
        )

    # -- lifecycle ------------------------------------------------------------
    def handler(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    def stop(self) -> None:
        self._stop.set()
        self._wave_open.set()
        super().stop()

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    # -- scripting ------------------------------------------------------------------
    def script(self, *faults: Fault | None) -> None:
        """Faults for the next requests, in arrival order (None = answer normally)."""
        with self._lock:
            self._queued.extend(f if f is not None else Fault("none") for f in faults)

    def fail_first(self, fault: Fault, n: int = 1) -> None:
        """Each paper's first ``n`` requests (papers told apart by title) get ``fault``."""
        with self._lock:
            self._per_paper.append((fault, n))

    def hold_first_wave(self, n: int, timeout: float = 10.0) -> None:
        """The next requests wait until ``n`` are in flight together, then all go on, as does every later one.

        A client that keeps ``n`` requests in flight reaches ``peak_in_flight == n`` however slow the
        machine; one that never sends ``n`` at once holds its requests ``timeout`` seconds, and the
        test's assertion on ``peak_in_flight`` fails.
        """
        with self._lock:
            self._wave = n
            self._wave_open = threading.Event()
            self._wave_timeout = timeout

    # -- observations ---------------------------------------------------------------------
    @property
    def calls(self) -> int:
        return len(self.requests)

    def calls_by_title(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for request in self.requests:
            counts[request.title] += 1
        return dict(counts)

    def statuses(self) -> list[int]:
        return [r.status for r in self.requests]

    # -- handling -------------------------------------------------------------------------
    def _pick_fault(self, request: RecordedRequest) -> Fault | None:
        with self._lock:
            title = request.title
            nth = self._seen[title]
            self._seen[title] += 1
            if self._queued:
                fault = self._queued.popleft()
                return None if fault.kind == "none" else fault
            for fault, n in self._per_paper:
                if nth < n:
                    return fault
        return self.fault_for(request) if self.fault_for else None

    def _hold_for_wave(self) -> None:
        with self._lock:
            if self._wave is not None and self.in_flight >= self._wave:
                self._wave = None
                self._wave_open.set()
            wave_open, timeout = self._wave_open, self._wave_timeout
        if not wave_open.wait(timeout):  # the wave never came: stop holding, the test's assertion tells
            with self._lock:
                self._wave = None
                wave_open.set()

    def _over_rpm(self) -> float | None:
        """None if the request fits the RPM bucket, else seconds until it would."""
        if not self.rpm:
            return None
        with self._lock:
            now = time.monotonic()
            rate = self.rpm / self.rpm_window_s
            self._bucket = min(float(self.rpm), self._bucket + (now - self._bucket_stamp) * rate)
            self._bucket_stamp = now
            if self._bucket >= 1:
                self._bucket -= 1
                return None
            return (1 - self._bucket) / rate

    def handle(self, request: RecordedRequest, *, batch: bool = False) -> tuple[int, dict[str, str], dict[str, Any]]:
        """(status, extra headers, JSON body) for one request (a batch line: no RPM cap, no latency)."""
        if not request.path.rstrip("/").endswith("/chat/completions"):
            return 404, {}, error_body("not found", "invalid_request_error")
        if not batch:
            self._hold_for_wave()
        wait = None if batch else self._over_rpm()
        if wait is not None:
            request.fault = "rpm_cap"
            return 429, {"retry-after": f"{wait:.3f}"}, error_body("Rate limit reached for requests", "rate_limit")
        refused = next((p for p in sorted(self.unsupported) if p in request.body), None)
        if refused is not None:
            request.fault = f"unsupported_{refused}"
            return 400, {}, _unsupported(refused)
        fault = self._pick_fault(request)
        request.fault = fault.kind if fault else None
        if self.latency and not batch:
            self._stop.wait(self.latency)
        if fault is None or fault.kind in ("english", "unknown_field", "truncated", "multi_paragraph", "empty"):
            said = refusal(self.dialect or ("openai" if self.json_schema else "deepseek"), request.body)
            if said is not None:
                request.fault = request.fault or "response_format_refused"
                return said[0], {}, said[1]
            return 200, {}, self._completion(request, fault)
        return self._fault_answer(request, fault, batch=batch)

    def _fault_answer(
        self, request: RecordedRequest, fault: Fault, *, batch: bool
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        """The error answer a fault stands for."""
        kind = fault.kind
        if kind == "rate_limit":
            headers = {}
            if fault.retry_after is not None:
                headers["retry-after"] = f"{fault.retry_after:g}"
            if fault.retry_after_ms is not None:
                headers["retry-after-ms"] = str(fault.retry_after_ms)
            return 429, headers, error_body("Rate limit reached", "rate_limit_exceeded")
        if kind == "unauthorized":
            key = request.headers.get("authorization", "").removeprefix("Bearer ")
            return 401, {}, error_body(f"Incorrect API key provided: {key}", "invalid_api_key")
        if kind == "hang":
            self._stop.wait(0 if batch else fault.seconds)
            return 504, {}, error_body("gateway timeout", "timeout")
        if kind not in _FIXED_FAULTS:
            raise ValueError(f"unknown fault {kind!r}")
        status, message, code = _FIXED_FAULTS[kind]
        return status, {}, error_body(message, code)

    def _completion(self, request: RecordedRequest, fault: Fault | None) -> dict[str, Any]:
        produced = PROSE_ANSWER if ignores_format(self.dialect or "", request.body) else self.answer(request.body)
        finish = "stop"
        if isinstance(produced, str):
            content = produced
        else:
            data = dict(produced)
            kind = fault.kind if fault else None
            if kind == "english" and is_note_request(request.body):
                data["background"] = data["method"]["overview"] = "This paper studies sparse attention at scale."
            elif kind == "english":
                data["summary"] = (
                    "This paper proposes a new method that splits the problem into two stages and improves "
                    "the strongest baseline by 4.2 points on public benchmarks."
                )
            elif kind == "unknown_field":
                data["field"] = "quantum_basket_weaving"
            elif kind == "multi_paragraph":
                data["summary"] = str(data.get("summary", "")) + "\n\n第二段：作者还讨论了局限性与未来工作方向。"
            content = json.dumps(data, ensure_ascii=False)
            if kind == "truncated":
                content = content[: len(content) // 2]
                finish = "length"
            elif kind == "empty":
                content = ""
        request.content = content
        prompt_tokens = max(1, len(prompt_text(request.body)) // 2)
        completion_tokens = max(1, len(content) // 2)
        return {
            "id": f"chatcmpl-fake-{request.index}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _unsupported(param: str) -> dict[str, Any]:
    """OpenAI's own wording for a parameter a model does not take."""
    if param == "max_tokens":
        message = (
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."
        )
        code = "unsupported_parameter"
    else:
        message = (
            f"Unsupported value: '{param}' does not support this value with this model. Only the default is supported."
        )
        code = "unsupported_value"
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}


# Faults whose answer is always the same: (status, message, code).
_FIXED_FAULTS = {
    "server_error": (500, "The server had an error while processing your request", "server_error"),
    "forbidden": (403, "This model is not available to your organisation", "permission_denied"),
    "bad_request": (400, "This model's maximum context length is 8192 tokens", "context_length_exceeded"),
    "refuse_json_schema": (400, "This response_format type is unavailable now", "invalid_request_error"),
}


class _Handler(QuietHandler):
    stand_in: FakeOpenAI  # set by _make_handler: the stand-in this handler answers for

    def _api(self, method: str, raw: bytes) -> bool:
        """The Batch API's routes; False for anything else."""
        route = urlsplit(self.path).path
        if not (route.startswith("/v1/files") or route.startswith("/v1/batches")):
            return False
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, content_type, data = self.stand_in.batch.handle(method, self.path, headers, raw)
        try:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True
        return True

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        data = self.rfile.read(length) if length else b""
        if self._api("POST", data):
            return
        raw = data.decode("utf-8", "replace")
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = {}
        with self.stand_in._lock:
            request = RecordedRequest(
                index=len(self.stand_in.requests),
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body if isinstance(body, dict) else {},
                raw_body=raw,
                started=time.monotonic(),
            )
            self.stand_in.requests.append(request)
            self.stand_in.in_flight += 1
            self.stand_in.peak_in_flight = max(self.stand_in.peak_in_flight, self.stand_in.in_flight)
        try:
            status, headers, payload = self.stand_in.handle(request)
        finally:
            with self.stand_in._lock:
                self.stand_in.in_flight -= 1
        request.status = status
        request.finished = time.monotonic()
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout) and closed the connection
            self.close_connection = True

    def do_DELETE(self) -> None:
        if not self._api("DELETE", b""):
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

    def do_GET(self) -> None:
        if self._api("GET", b""):
            return
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()


def _make_handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"stand_in": server})
