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
decided by any function of the request (``fault_for``).  ``json_schema=False``
makes it refuse ``response_format: json_schema`` with a 400 like DeepSeek;
``rpm`` caps requests per window with a token bucket and answers 429 with
Retry-After when it is exceeded.  Every request is recorded (headers, body,
status, timing), and the peak number in flight is tracked; ``hold_first_wave``
makes the first requests wait until that many are in flight together, so a
test of overlap does not depend on how fast the machine is.

It also speaks the Batch API as the openai SDK uses it (``batch_api=False``
answers 404 there, like a provider without one): ``POST /v1/files``
(multipart, purpose ``batch``), ``GET /v1/files/{id}/content``,
``POST /v1/batches``, ``GET /v1/batches[/{id}]`` and ``POST
/v1/batches/{id}/cancel``.  A batch moves ``validating → in_progress →
finalizing → completed``, one step per retrieve; its lines are answered
like online requests (the same answer function and faults, recorded in
``batch_requests`` with ``batch_id`` set, never in ``requests``), successes
into the output file and non-200 answers into the error file.
``batch_paused`` holds batches in ``in_progress``; ``batch_step`` answers
that many lines per retrieve; ``batch_expire_after_steps`` expires a batch
after that many steps (unanswered lines get ``batch_expired``); a cancelled
batch keeps the lines answered so far; ``batch_window_s`` sets ``expires_at``.

Binds to 127.0.0.1 only; runs in a background thread; no third-party dependency.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .loopback import LoopbackServer, QuietHandler, StandIn

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
    batch_id: str | None = None  # set for a line of a batch

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


class _Server(LoopbackServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

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
        self._wave: int | None = None  # hold_first_wave: requests in flight that open the wave
        self._wave_open = threading.Event()
        self._wave_open.set()
        self._wave_timeout = 0.0
        # The Batch API.
        self.batch_api = batch_api
        self.batch_paused = False
        self.batch_step: int | None = None
        self.batch_expire_after_steps: int | None = None
        self.batch_window_s = 86400  # expires_at = created_at + this (negative: a window long gone)
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_requests: list[RecordedRequest] = []
        self.api_calls: list[tuple[str, str]] = []  # (method, path) of every files/batches request
        self._batch_work: dict[str, _BatchWork] = {}

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
            return 404, {}, _error("not found", "invalid_request_error")
        if not batch:
            self._hold_for_wave()
        wait = None if batch else self._over_rpm()
        if wait is not None:
            request.fault = "rpm_cap"
            return 429, {"retry-after": f"{wait:.3f}"}, _error("Rate limit reached for requests", "rate_limit")
        refused = next((p for p in sorted(self.unsupported) if p in request.body), None)
        if refused is not None:
            request.fault = f"unsupported_{refused}"
            return 400, {}, _unsupported(refused)
        fault = self._pick_fault(request)
        request.fault = fault.kind if fault else None
        if self.latency and not batch:
            self._stop.wait(self.latency)
        if fault is None or fault.kind in ("english", "unknown_field", "truncated", "multi_paragraph", "empty"):
            if not self.json_schema and request.response_format == "json_schema":
                request.fault = request.fault or "json_schema_refused"
                return 400, {}, _error("This response_format type is unavailable now", "invalid_request_error")
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
            return 429, headers, _error("Rate limit reached", "rate_limit_exceeded")
        if kind == "unauthorized":
            key = request.headers.get("authorization", "").removeprefix("Bearer ")
            return 401, {}, _error(f"Incorrect API key provided: {key}", "invalid_api_key")
        if kind == "hang":
            self._stop.wait(0 if batch else fault.seconds)
            return 504, {}, _error("gateway timeout", "timeout")
        if kind not in _FIXED_FAULTS:
            raise ValueError(f"unknown fault {kind!r}")
        status, message, code = _FIXED_FAULTS[kind]
        return status, {}, _error(message, code)

    # -- the Batch API -----------------------------------------------------------------------
    def handle_api(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, str, bytes]:
        """(status, content type, body) for a ``/files`` or ``/batches`` request."""
        with self._lock:
            self.api_calls.append((method, path))
            if not self.batch_api:
                return _json(404, _error(f"Invalid URL ({method} {urlsplit(path).path})", "invalid_request_error"))
            parts = urlsplit(path).path.strip("/").split("/")[1:]  # after "v1"
            query = {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}
            try:
                return self._route(method, parts, query, headers, raw)
            except KeyError:
                return _json(404, _error("No such object", "invalid_request_error"))

    def _route(
        self, method: str, parts: list[str], query: dict[str, str], headers: dict[str, str], raw: bytes
    ) -> tuple[int, str, bytes]:
        if method == "POST" and parts == ["files"]:
            return _json(200, self._upload(headers.get("content-type", ""), raw))
        if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            return 200, "application/octet-stream", self.files[parts[1]]["data"]
        if method == "POST" and parts == ["batches"]:
            return self._create_batch(json.loads(raw or b"{}"))
        if method == "GET" and parts == ["batches"]:
            return _json(200, self._list_batches(int(query.get("limit", 20)), query.get("after")))
        if method == "GET" and len(parts) == 2 and parts[0] == "batches":
            batch = self.batches[parts[1]]
            self._advance(batch)
            return _json(200, batch)
        if method == "POST" and len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel":
            batch = self.batches[parts[1]]
            if batch["status"] in ("validating", "in_progress", "finalizing"):
                batch["status"], batch["cancelling_at"] = "cancelling", int(time.time())
            return _json(200, batch)
        return _json(404, _error("not found", "invalid_request_error"))

    def _upload(self, content_type: str, raw: bytes) -> dict[str, Any]:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + raw
        )
        fields: dict[str, Any] = {}
        filename = "upload"
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            filename = part.get_filename() or filename
            fields[str(name)] = part.get_payload(decode=True)
        return self._add_file(fields.get("file") or b"", filename, (fields.get("purpose") or b"").decode())

    def _add_file(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        file_id = f"file-{len(self.files):04d}"
        now = int(time.time())
        obj = {
            "id": file_id, "object": "file", "bytes": len(data), "created_at": now, "filename": filename,
            "purpose": purpose, "status": "processed", "expires_at": now + 30 * 86400, "status_details": None,
        }  # fmt: skip
        self.files[file_id] = {"data": data, "object": obj}
        return obj

    def _create_batch(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        file_id = str(body.get("input_file_id"))
        if file_id not in self.files:
            return _json(400, _error(f"No file with id {file_id}", "invalid_request_error"))
        batch_id = f"batch_{len(self.batches):04d}"
        now = int(time.time())
        lines = self.files[file_id]["data"].decode("utf-8").splitlines()
        batch = {
            "id": batch_id, "object": "batch", "endpoint": body.get("endpoint"), "model": self.model,
            "errors": None, "input_file_id": file_id, "completion_window": body.get("completion_window"),
            "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": now,
            "in_progress_at": None, "expires_at": now + self.batch_window_s, "finalizing_at": None,
            "completed_at": None, "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"), "usage": None,
        }  # fmt: skip
        self.batches[batch_id] = batch
        self._batch_work[batch_id] = _BatchWork(lines=lines)
        return _json(200, batch)

    def _list_batches(self, limit: int, after: str | None) -> dict[str, Any]:
        ordered = sorted(self.batches.values(), key=lambda b: b["id"], reverse=True)  # newest first
        if after is not None:
            ordered = [b for b in ordered if b["id"] < after]
        page = ordered[:limit]
        return {
            "object": "list",
            "data": page,
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
            "has_more": len(ordered) > limit,
        }

    def _advance(self, batch: dict[str, Any]) -> None:
        """One lifecycle step per retrieve."""
        work = self._batch_work[batch["id"]]
        now = int(time.time())
        status = batch["status"]
        if status == "validating":
            problem = _invalid_batch(work.lines)
            if problem is not None:
                batch.update(status="failed", failed_at=now, errors={"object": "list", "data": [problem]})
            else:
                batch.update(status="in_progress", in_progress_at=now)
        elif status == "in_progress" and not self.batch_paused:
            work.steps += 1
            end = len(work.lines) if self.batch_step is None else work.done + self.batch_step
            self._answer_lines(batch, work, end)
            if work.done >= len(work.lines):
                batch.update(status="finalizing", finalizing_at=now)
            elif self.batch_expire_after_steps is not None and work.steps >= self.batch_expire_after_steps:
                self._close(batch, work, "expired", "batch_expired")
        elif status == "finalizing":
            self._close(batch, work, "completed", "")
        elif status == "cancelling":
            self._close(batch, work, "cancelled", "batch_cancelled")

    def _answer_lines(self, batch: dict[str, Any], work: _BatchWork, end: int) -> None:
        for line in work.lines[work.done : end]:
            item = json.loads(line)
            body = item.get("body") if isinstance(item.get("body"), dict) else {}
            request = RecordedRequest(
                index=len(self.batch_requests), path=str(item.get("url")), headers={}, body=body,
                raw_body=json.dumps(body, ensure_ascii=False), started=time.monotonic(), batch_id=batch["id"],
            )  # fmt: skip
            self.batch_requests.append(request)
            self._lock.release()  # handle() takes the lock itself
            try:
                status, _headers, payload = self.handle(request, batch=True)
            finally:
                self._lock.acquire()
            request.status, request.finished = status, time.monotonic()
            response = {"status_code": status, "request_id": f"req_{request.index}", "body": payload}
            out = {"id": f"batch_req_{request.index}", "custom_id": item.get("custom_id"), "response": response}
            (work.output if status == 200 else work.errors).append({**out, "error": None})
            batch["request_counts"]["completed" if status == 200 else "failed"] += 1
            work.done += 1

    def _close(self, batch: dict[str, Any], work: _BatchWork, status: str, unfinished_code: str) -> None:
        """The final state: output and error files written (unanswered lines as errors with ``unfinished_code``)."""
        for line in work.lines[work.done :]:
            custom_id = json.loads(line).get("custom_id")
            message = f"This request was not executed before the batch was {status}."
            error = {"code": unfinished_code, "message": message}
            work.errors.append({"id": None, "custom_id": custom_id, "response": None, "error": error})
            batch["request_counts"]["failed"] += 1
        work.done = len(work.lines)
        for key, rows in (("output_file_id", work.output[::-1]), ("error_file_id", work.errors)):  # any order
            if rows:
                data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
                batch[key] = self._add_file(data, f"{batch['id']}_{key}.jsonl", "batch_output")["id"]
        batch.update(status=status, **{f"{status}_at": int(time.time())})

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


@dataclass
class _BatchWork:
    lines: list[str]
    done: int = 0
    steps: int = 0
    output: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)


def _invalid_batch(lines: list[str]) -> dict[str, Any] | None:
    """The first reason OpenAI's validation would fail this input file, as a batch error."""
    if not lines:
        return {"code": "empty_file", "line": None, "message": "The input file is empty.", "param": None}
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            item = None
        if not isinstance(item, dict) or item.get("method") != "POST" or not isinstance(item.get("body"), dict):
            return {"code": "invalid_json_line", "line": number, "message": "Invalid request line.", "param": None}
        custom_id = str(item.get("custom_id"))
        if custom_id in seen:
            message = f"The custom_id {custom_id} is duplicated."
            return {"code": "duplicate_custom_id", "line": number, "message": message, "param": None}
        seen.add(custom_id)
    return None


def _json(status: int, payload: dict[str, Any]) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(payload, ensure_ascii=False).encode("utf-8")


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
        status, content_type, data = self.stand_in.handle_api(method, self.path, headers, raw)
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

    def do_GET(self) -> None:
        if self._api("GET", b""):
            return
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()


def _make_handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"stand_in": server})
