"""The loopback provider's Batch API (``fake_openai.FakeOpenAI.batch``), as the openai SDK speaks it.

``POST /v1/files`` (multipart, purpose ``batch``), ``GET /v1/files/{id}/content``, ``DELETE /v1/files/{id}``,
``POST /v1/batches``, ``GET /v1/batches[/{id}]`` and ``POST /v1/batches/{id}/cancel``.  A batch moves ``validating →
in_progress → finalizing → completed``, one step per retrieve; each line is answered by the provider's
own answer function (``answer``), recorded in ``requests`` with ``batch_id`` set.  ``paused`` holds
batches in ``in_progress``; ``step`` answers that many lines per retrieve; ``expire_after_steps``
expires a batch after that many steps; ``window_s`` sets ``expires_at``; ``enabled=False`` answers
404, like a provider without a batch endpoint; ``delete_file`` drops a file as a provider does after its
retention period (its content is then a 404).  Files are split into lines on ``\n`` only, as JSONL is.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fake_requests import RecordedRequest, error_body, json_reply

# One request's answer: (status, headers, JSON body).
Answer = Callable[[RecordedRequest], tuple[int, dict[str, str], dict[str, Any]]]


@dataclass
class BatchWork:
    lines: list[str]
    done: int = 0
    steps: int = 0
    output: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)


def invalid_batch(lines: list[str]) -> dict[str, Any] | None:
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


class FakeBatches:
    """Files and batches; thread-safe under the provider's lock."""

    def __init__(self, lock: threading.Lock, answer: Answer, *, model: str, enabled: bool = True):
        self._lock = lock
        self._answer = answer
        self.model = model
        self.enabled = enabled
        self.paused = False
        self.step: int | None = None
        self.expire_after_steps: int | None = None
        self.window_s = 86400  # expires_at = created_at + this (negative: a window long gone)
        self.files: dict[str, dict[str, Any]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.requests: list[RecordedRequest] = []
        self.api_calls: list[tuple[str, str]] = []  # (method, path) of every files/batches request
        self._work: dict[str, BatchWork] = {}

    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, str, bytes]:
        """(status, content type, body) for a ``/files`` or ``/batches`` request."""
        with self._lock:
            self.api_calls.append((method, path))
            if not self.enabled:
                return json_reply(
                    404, error_body(f"Invalid URL ({method} {urlsplit(path).path})", "invalid_request_error")
                )
            parts = urlsplit(path).path.strip("/").split("/")[1:]  # after "v1"
            query = {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}
            try:
                return self._route(method, parts, query, headers, raw)
            except KeyError:
                return json_reply(404, error_body("No such object", "invalid_request_error"))

    def _route(
        self, method: str, parts: list[str], query: dict[str, str], headers: dict[str, str], raw: bytes
    ) -> tuple[int, str, bytes]:
        if method == "POST" and parts == ["files"]:
            return json_reply(200, self._upload(headers.get("content-type", ""), raw))
        if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            return 200, "application/octet-stream", self.files[parts[1]]["data"]
        if method == "DELETE" and len(parts) == 2 and parts[0] == "files":
            del self.files[parts[1]]
            return json_reply(200, {"id": parts[1], "object": "file", "deleted": True})
        if method == "POST" and parts == ["batches"]:
            return self._create_batch(json.loads(raw or b"{}"))
        if method == "GET" and parts == ["batches"]:
            return json_reply(200, self._list_batches(int(query.get("limit", 20)), query.get("after")))
        if method == "GET" and len(parts) == 2 and parts[0] == "batches":
            batch = self.batches[parts[1]]
            self._advance(batch)
            return json_reply(200, batch)
        if method == "POST" and len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel":
            batch = self.batches[parts[1]]
            if batch["status"] in ("validating", "in_progress", "finalizing"):
                batch["status"], batch["cancelling_at"] = "cancelling", int(time.time())
            return json_reply(200, batch)
        return json_reply(404, error_body("not found", "invalid_request_error"))

    def delete_file(self, file_id: str) -> None:
        """The file is gone, as a provider deletes one after its retention period."""
        with self._lock:
            del self.files[file_id]

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
            return json_reply(400, error_body(f"No file with id {file_id}", "invalid_request_error"))
        batch_id = f"batch_{len(self.batches):04d}"
        now = int(time.time())
        lines = self.files[file_id]["data"].decode("utf-8").split("\n")  # JSONL: U+2028 is inside a line
        lines = lines[:-1] if lines and not lines[-1] else lines
        batch = {
            "id": batch_id, "object": "batch", "endpoint": body.get("endpoint"), "model": self.model,
            "errors": None, "input_file_id": file_id, "completion_window": body.get("completion_window"),
            "status": "validating", "output_file_id": None, "error_file_id": None, "created_at": now,
            "in_progress_at": None, "expires_at": now + self.window_s, "finalizing_at": None,
            "completed_at": None, "failed_at": None, "expired_at": None, "cancelling_at": None, "cancelled_at": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"), "usage": None,
        }  # fmt: skip
        self.batches[batch_id] = batch
        self._work[batch_id] = BatchWork(lines=lines)
        return json_reply(200, batch)

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
        work = self._work[batch["id"]]
        now = int(time.time())
        status = batch["status"]
        if status == "validating":
            problem = invalid_batch(work.lines)
            if problem is not None:
                batch.update(status="failed", failed_at=now, errors={"object": "list", "data": [problem]})
            else:
                batch.update(status="in_progress", in_progress_at=now)
        elif status == "in_progress" and not self.paused:
            work.steps += 1
            end = len(work.lines) if self.step is None else work.done + self.step
            self._answer_lines(batch, work, end)
            if work.done >= len(work.lines):
                batch.update(status="finalizing", finalizing_at=now)
            elif self.expire_after_steps is not None and work.steps >= self.expire_after_steps:
                self._close(batch, work, "expired", "batch_expired")
        elif status == "finalizing":
            self._close(batch, work, "completed", "")
        elif status == "cancelling":
            self._close(batch, work, "cancelled", "batch_cancelled")

    def _answer_lines(self, batch: dict[str, Any], work: BatchWork, end: int) -> None:
        for line in work.lines[work.done : end]:
            item = json.loads(line)
            body = item.get("body") if isinstance(item.get("body"), dict) else {}
            request = RecordedRequest(
                index=len(self.requests), path=str(item.get("url")), headers={}, body=body,
                raw_body=json.dumps(body, ensure_ascii=False), started=time.monotonic(), batch_id=batch["id"],
            )  # fmt: skip
            self.requests.append(request)
            self._lock.release()  # handle() takes the lock itself
            try:
                status, _headers, payload = self._answer(request)
            finally:
                self._lock.acquire()
            request.status, request.finished = status, time.monotonic()
            response = {"status_code": status, "request_id": f"req_{request.index}", "body": payload}
            out = {"id": f"batch_req_{request.index}", "custom_id": item.get("custom_id"), "response": response}
            (work.output if status == 200 else work.errors).append({**out, "error": None})
            batch["request_counts"]["completed" if status == 200 else "failed"] += 1
            work.done += 1

    def _close(self, batch: dict[str, Any], work: BatchWork, status: str, unfinished_code: str) -> None:
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
