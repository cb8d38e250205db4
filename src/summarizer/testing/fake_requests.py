"""What the loopback provider knows of a request: faults to answer with, the recorded request, the paper
its prompt names, the default answer, and the JSON shapes of its replies (``fake_openai``, ``fake_batches``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any


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


def prompt_text(body: dict[str, Any]) -> str:
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


def json_reply(status: int, payload: dict[str, Any]) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(payload, ensure_ascii=False).encode("utf-8")


def error_body(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "param": None, "code": code}}
