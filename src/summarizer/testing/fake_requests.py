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
    """A valid answer built from the prompt: Chinese summary naming the title, vocabulary tags, a listed field.

    A request for a note gets ``default_note``.
    """
    if is_note_request(body):
        return default_note(body)
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


# -- per-paper notes ---------------------------------------------------------------------------------

NOTE_SCHEMA = "paper_note"
_PAPER = re.compile(r"<paper>(.*?)</paper>", re.DOTALL)
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])|(?<![\w.])\d{2,}(?:%)?(?![\w.])")


def is_note_request(body: dict[str, Any]) -> bool:
    """A request for a per-paper note (its schema's name, or the note prompt's words in json_object mode)."""
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("name") == NOTE_SCHEMA
    return "精读笔记" in _user_text(body)


def _wants_ratings(body: dict[str, Any]) -> bool:
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        return "ratings" in (schema.get("properties") or {})
    return "ratings" in _user_text(body)


def paper_numbers(body: dict[str, Any], most: int = 3) -> list[str]:
    """Numbers the paper in the prompt reports (decimals, or integers of two digits or more), as written."""
    fenced = _PAPER.search(_user_text(body))
    found: list[str] = []
    for match in _DECIMAL.finditer(fenced.group(1) if fenced else ""):
        if match.group() not in found:
            found.append(match.group())
    return found[:most]


_DESIGN = {
    "name": "分层稀疏注意力",
    "what": "把注意力分解为局部窗口与少量全局 token 两部分，只在必要处计算完整的注意力。",
    "how": "局部部分在固定窗口内计算，全局部分由可学习的路由挑选关键 token，整体复杂度为 \\(O(n\\log n)\\)。",
    "why": "长序列中大部分注意力集中在少数位置，稠密计算浪费了大量算力。",
}
_NOTE_REST = {
    "problem": "能否在不损失下游效果的前提下，用可学习的稀疏注意力替换预训练中的稠密注意力？",
    "method": {
        "overview": "模型保持标准 Transformer 结构，只把每层的注意力替换为分层稀疏注意力：先做局部窗口注意力，"
        "再由路由模块挑选全局 token 做补充，两部分输出相加后进入前馈层。",
        "key_designs": [_DESIGN, {**_DESIGN, "name": "可学习路由"}, {**_DESIGN, "name": "共享 KV cache"}],
        "training": "与稠密基线使用相同的数据与超参数，路由模块与主干一起端到端训练，不引入额外损失项。",
    },
    "highlights": [
        {"title": "简单可替换", "detail": "只改注意力层，其余结构与训练流程保持不变，易于落地。"},
        {"title": "可学习的稀疏模式", "detail": "不依赖手工设计，路由模块自动发现关键位置。"},
    ],
    "limitations": ["只在预训练阶段验证，未覆盖指令微调与长上下文推理。", "路由模块带来额外的实现复杂度。"],
    "related_work": [
        {
            "name": "Longformer",
            "venue_year": "",
            "arxiv_id": "",
            "contrast": "Longformer 使用固定的稀疏模式，本文的模式是学出来的。",
        }
    ],
}


def default_note(body: dict[str, Any]) -> dict[str, Any]:
    """A valid note built from the prompt: Chinese sections naming the title, a table of the paper's own numbers."""
    title = paper_title(body) or "这篇论文"
    numbers = paper_numbers(body)
    note: dict[str, Any] = json.loads(json.dumps(_NOTE_REST, ensure_ascii=False))  # a copy the caller may change
    note["background"] = (
        f"1. **领域现状**：「{title}」所在方向中，Transformer 的注意力计算随序列长度平方增长，"
        "预训练的大部分算力花在注意力上。\n2. **现有痛点**：已有的稀疏注意力方法要么依赖手工设计的模式，"
        "要么在下游任务上明显掉点，难以直接替换稠密注意力。\n3. **切入角度**：作者观察到注意力分布高度集中，"
        "于是让模型自己学习哪些位置值得完整计算。"
    )
    note["experiments"] = {
        "main_results": {
            "caption": "论文报告的主要结果",
            "columns": ["设置", "结果"] if numbers else [],
            "rows": [[f"设置 {i + 1}", number] for i, number in enumerate(numbers)],
        },
        "ablations": [{"setting": "去掉全局 token", "result": "效果下降", "takeaway": "全局信息不可或缺"}],
        "findings": ["稀疏注意力在预训练中可以替换稠密注意力。", "计算量明显下降。", "路由模块学到了有意义的模式。"],
    }
    if _wants_ratings(body):
        rating = {"score": 4, "reason": "方法简单有效，实验覆盖主要设置。"}
        note["ratings"] = {key: dict(rating) for key in ("novelty", "experiments", "writing", "value")}
    return note
