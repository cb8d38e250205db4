"""A loopback OpenAI-compatible chat-completions server for tests, the demo and benchmarks.

    with FakeOpenAI(latency=0.02) as server:
        settings.llm.base_url = server.base_url
        server.script(Fault.rate_limit(retry_after=0.01))   # the next request gets a 429
        server.fail_first(Fault.server_error())              # every paper's first request gets a 500
        ...
        server.calls, server.peak_in_flight, server.requests[i].body

Speaks ``POST /v1/chat/completions`` (non-streaming) to the real ``openai``
client.  By default it answers every request with a valid Chinese summary,
tags from the prompt's vocabulary and a field id from the prompt's field list
(``default_answer``).  Faults can be queued for the next requests
(``script``), given to each paper's n-th request (``fail_first``), or
decided by any function of the request (``fault_for``).  ``json_schema=False``
makes it refuse ``response_format: json_schema`` with a 400 like DeepSeek;
``rpm`` caps requests per window with a token bucket and answers 429 with
Retry-After when it is exceeded.  Every request is recorded (headers, body,
status, timing), and the peak number in flight is tracked.

Binds to 127.0.0.1 only; runs in a background thread; no third-party dependency.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeOpenAI", "Fault", "RecordedRequest", "default_answer", "paper_title"]


@dataclass(frozen=True)
class Fault:
    """One scripted misbehaviour for one request."""

    kind: str
    retry_after: float | None = None  # seconds, for rate_limit
    retry_after_ms: int | None = None
    seconds: float = 0.0  # for hang

    @classmethod
    def rate_limit(cls, retry_after: float | None = 0.01, retry_after_ms: int | None = None) -> Fault:
        return cls("rate_limit", retry_after=retry_after, retry_after_ms=retry_after_ms)

    @classmethod
    def server_error(cls) -> Fault:
        return cls("server_error")

    @classmethod
    def truncated(cls) -> Fault:
        """Half a JSON object, finish_reason "length"."""
        return cls("truncated")

    @classmethod
    def english(cls) -> Fault:
        """A well-formed answer whose summary is English only."""
        return cls("english")

    @classmethod
    def unknown_field(cls) -> Fault:
        return cls("unknown_field")

    @classmethod
    def multi_paragraph(cls) -> Fault:
        return cls("multi_paragraph")

    @classmethod
    def empty(cls) -> Fault:
        return cls("empty")

    @classmethod
    def unauthorized(cls) -> Fault:
        """401, with a body that echoes the key back (the worst a provider could do)."""
        return cls("unauthorized")

    @classmethod
    def forbidden(cls) -> Fault:
        return cls("forbidden")

    @classmethod
    def bad_request(cls) -> Fault:
        """A 400 unrelated to structured output (e.g. context too long)."""
        return cls("bad_request")

    @classmethod
    def hang(cls, seconds: float = 2.0) -> Fault:
        """Answer nothing for ``seconds``: the client's timeout fires first."""
        return cls("hang", seconds=seconds)

    @classmethod
    def refuse_json_schema(cls) -> Fault:
        """400 "This response_format type is unavailable now" (DeepSeek's words), whatever was asked."""
        return cls("refuse_json_schema")


@dataclass
class RecordedRequest:
    index: int
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    raw_body: str
    started: float
    finished: float = 0.0
    status: int = 0
    fault: str | None = None
    content: str | None = None  # what the server answered as the message content

    @property
    def title(self) -> str:
        return paper_title(self.body)

    @property
    def response_format(self) -> str | None:
        fmt = self.body.get("response_format")
        return fmt.get("type") if isinstance(fmt, dict) else None


def _user_text(body: dict[str, Any]) -> str:
    messages = body.get("messages") or []
    users = [m.get("content") or "" for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return users[0] if users else ""


def _all_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages") or [] if isinstance(m, dict))


_TITLE = re.compile(r"^\s*(?:标题|Title)\s*[:：]\s*(.+?)\s*$", re.MULTILINE)
_FIELD_LINE = re.compile(r"^\s*-\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*[:：]", re.MULTILINE)
_VOCAB = re.compile(r"^\s*标签词表[^:：\n]*[:：]\s*(.+?)\s*$", re.MULTILINE)


def paper_title(body: dict[str, Any]) -> str:
    """The paper's title as the prompt gives it (the first user message's 标题： line)."""
    match = _TITLE.search(_user_text(body))
    return match.group(1) if match else ""


def _field_ids(body: dict[str, Any]) -> list[str]:
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        try:
            enum = fmt["json_schema"]["schema"]["properties"]["field"]["enum"]
            if enum:
                return [str(x) for x in enum]
        except (KeyError, TypeError):
            pass
    return _FIELD_LINE.findall(_user_text(body))


def default_answer(body: dict[str, Any]) -> dict[str, Any]:
    """A valid answer built from the prompt: Chinese summary naming the title, vocabulary tags, a listed field."""
    text = _user_text(body)
    title = paper_title(body) or "这篇论文"
    ids = _field_ids(body) or ["unknown"]
    lowered = text.lower()
    # Pick the field whose id words appear in the paper text most often; else the first.
    scores = [sum(lowered.count(word) for word in fid.lower().split("_") if len(word) > 2) for fid in ids]
    field_id = ids[max(range(len(ids)), key=lambda i: scores[i])] if any(scores) else ids[0]
    vocab_match = _VOCAB.search(text)
    vocab = [w.strip() for w in re.split(r"[、,，]", vocab_match.group(1))] if vocab_match else []
    tags = [w for w in vocab if w and w in text.split("标签词表")[0]][:2] or (vocab[:1] or ["机器学习"])
    summary = (
        f"本文提出「{title}」中的新方法：作者把问题分解为表示学习与 inference 两个阶段，"
        "先用轻量的 encoder 提取关键结构，再以 \\(O(n\\log n)\\) 的代价完成推断，"
        "在多个公开基准上相对最强 baseline 平均提升 4.2 个点，同时训练开销降低 \\(2\\times\\)。"
    )
    return {"summary": summary, "tags": tags, "field": field_id}


class FakeOpenAI:
    """The server. Thread-safe; use as a context manager or call start()/stop()."""

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
    ):
        """``unsupported``: request parameters refused with a 400, as OpenAI's reasoning models
        refuse ``max_tokens`` (they take ``max_completion_tokens``) and a non-default ``temperature``."""
        self.latency = latency
        self.unsupported = unsupported
        self.answer = answer
        self.json_schema = json_schema
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
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------
    def start(self) -> FakeOpenAI:
        handler = _make_handler(self)
        self._server = _Server(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    # -- scripting ------------------------------------------------------------------
    def script(self, *faults: Fault | None) -> None:
        """Faults for the next requests, in arrival order (None = answer normally)."""
        with self._lock:
            self._queued.extend(f if f is not None else Fault("none") for f in faults)

    def fail_first(self, fault: Fault, n: int = 1) -> None:
        """Each paper's first ``n`` requests (papers told apart by title) get ``fault``."""
        with self._lock:
            self._per_paper.append((fault, n))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queued.clear()
            self._per_paper.clear()
            self._seen.clear()
            self.peak_in_flight = 0

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

    def handle(self, request: RecordedRequest) -> tuple[int, dict[str, str], dict[str, Any]]:
        """(status, extra headers, JSON body) for one request."""
        if not request.path.rstrip("/").endswith("/chat/completions"):
            return 404, {}, _error("not found", "invalid_request_error")
        wait = self._over_rpm()
        if wait is not None:
            request.fault = "rpm_cap"
            return 429, {"retry-after": f"{wait:.3f}"}, _error("Rate limit reached for requests", "rate_limit")
        refused = next((p for p in sorted(self.unsupported) if p in request.body), None)
        if refused is not None:
            request.fault = f"unsupported_{refused}"
            return 400, {}, _unsupported(refused)
        fault = self._pick_fault(request)
        request.fault = fault.kind if fault else None
        if self.latency:
            self._stop.wait(self.latency)
        if fault is None or fault.kind in ("english", "unknown_field", "truncated", "multi_paragraph", "empty"):
            if not self.json_schema and request.response_format == "json_schema":
                request.fault = request.fault or "json_schema_refused"
                return 400, {}, _error("This response_format type is unavailable now", "invalid_request_error")
            return 200, {}, self._completion(request, fault)
        kind = fault.kind
        if kind == "rate_limit":
            headers = {}
            if fault.retry_after is not None:
                headers["retry-after"] = f"{fault.retry_after:g}"
            if fault.retry_after_ms is not None:
                headers["retry-after-ms"] = str(fault.retry_after_ms)
            return 429, headers, _error("Rate limit reached", "rate_limit_exceeded")
        if kind == "server_error":
            return 500, {}, _error("The server had an error while processing your request", "server_error")
        if kind == "unauthorized":
            key = request.headers.get("authorization", "").removeprefix("Bearer ")
            return 401, {}, _error(f"Incorrect API key provided: {key}", "invalid_api_key")
        if kind == "forbidden":
            return 403, {}, _error("This model is not available to your organisation", "permission_denied")
        if kind == "bad_request":
            return 400, {}, _error("This model's maximum context length is 8192 tokens", "context_length_exceeded")
        if kind == "refuse_json_schema":
            return 400, {}, _error("This response_format type is unavailable now", "invalid_request_error")
        if kind == "hang":
            self._stop.wait(fault.seconds)
            return 504, {}, _error("gateway timeout", "timeout")
        raise ValueError(f"unknown fault {kind!r}")

    def _completion(self, request: RecordedRequest, fault: Fault | None) -> dict[str, Any]:
        produced = self.answer(request.body)
        finish = "stop"
        if isinstance(produced, str):
            content = produced
        else:
            data = dict(produced)
            kind = fault.kind if fault else None
            if kind == "english":
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
        prompt_tokens = max(1, len(_all_text(request.body)) // 2)
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


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 makes a burst of connections wait a SYN retry (1 s)
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], OSError):  # a client that hung up (timeout, Ctrl-C): not news
            return
        super().handle_error(request, client_address)


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "param": None, "code": code}}


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


def _make_handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes: with Nagle on, the body waits for the client's
        # delayed ACK (~40 ms on Linux) on a kept-alive connection. Real providers set TCP_NODELAY.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            try:
                body = json.loads(raw) if raw else {}
            except json.JSONDecodeError:
                body = {}
            with server._lock:
                request = RecordedRequest(
                    index=len(server.requests),
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body if isinstance(body, dict) else {},
                    raw_body=raw,
                    started=time.monotonic(),
                )
                server.requests.append(request)
                server.in_flight += 1
                server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
            try:
                status, headers, payload = server.handle(request)
            finally:
                with server._lock:
                    server.in_flight -= 1
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

        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

    return Handler
