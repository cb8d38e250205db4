"""What the model answers for a paper's note: its sections as JSON, under a strict schema.

Every key is required and no other is allowed, so a ``json_schema`` provider enforces the shape;
optional parts are empty (``""`` or ``[]``).  Counts (2-5 key designs …) and lengths are checked
after parsing (``note_answer``), where a problem can be worded for the model's re-ask.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from pydantic import BaseModel, ConfigDict

SCHEMA_NAME = "paper_note"
# Bump when the schema or its parsing changes: cached answers of the old shape stop matching.
NOTE_SCHEMA_VERSION = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KeyDesign(_Strict):
    name: str
    what: str
    how: str
    why: str


class Method(_Strict):
    overview: str
    key_designs: list[KeyDesign]
    training: str


class ResultTable(_Strict):
    caption: str
    columns: list[str]
    rows: list[list[str]]


class Ablation(_Strict):
    setting: str
    result: str
    takeaway: str


class Experiments(_Strict):
    main_results: ResultTable
    ablations: list[Ablation]
    findings: list[str]


class Highlight(_Strict):
    title: str
    detail: str


class RelatedWork(_Strict):
    name: str
    venue_year: str
    arxiv_id: str
    contrast: str


class Rating(_Strict):
    score: int
    reason: str


class Ratings(_Strict):
    novelty: Rating
    experiments: Rating
    writing: Rating
    value: Rating


class NoteAnswer(_Strict):
    background: str
    problem: str
    method: Method
    experiments: Experiments
    highlights: list[Highlight]
    limitations: list[str]
    related_work: list[RelatedWork]


class RatedNoteAnswer(NoteAnswer):
    ratings: Ratings


def note_answer_model(ratings: bool) -> type[NoteAnswer]:
    return RatedNoteAnswer if ratings else NoteAnswer


# Said to the model in the schema itself (json_schema mode) and in the system prompt (json_object mode).
DESCRIPTIONS = {
    "background": "研究背景与动机：领域现状、现有方法的不足、本文的切入点（中文，可分点）",
    "problem": "核心问题：一两句话说清本文要解决的问题；没有单独的核心问题时为空字符串",
    "overview": "整体框架：方法的输入、主要模块与流程",
    "key_designs": "2-5 个关键设计",
    "training": "损失函数与训练策略；论文没有训练（如纯分析、免训练方法）时为空字符串",
    "main_results": "主实验结果表：列名与每行单元格，数字照抄论文；论文没有定量结果时 columns 与 rows 都为空",
    "ablations": "至多 5 个消融实验；没有时为空数组",
    "findings": "1-5 条关键发现",
    "highlights": "2-5 个亮点与洞察",
    "limitations": "2-5 条局限性或可改进方向",
    "related_work": "0-4 个与相关工作的对比；arxiv_id 只在论文给出时填写，否则为空字符串",
    "ratings": "每项 1-5 分，并用一句话说明理由",
}


def response_schema(ratings: bool) -> dict[str, Any]:
    return json.loads(_schema_json(ratings))


@functools.lru_cache(maxsize=2)
def _schema_json(ratings: bool) -> str:
    """A strict JSON schema: every object closed, every key required, no titles, defaults or bounds."""
    schema = note_answer_model(ratings).model_json_schema()

    def clean(node: Any) -> Any:
        if isinstance(node, list):
            return [clean(v) for v in node]
        if not isinstance(node, dict):
            return node
        properties = node.get("properties")
        node = {k: clean(v) for k, v in node.items() if k not in ("title", "default", "properties")}
        if isinstance(properties, dict):  # a property may be called "title": only the keyword goes
            node["properties"] = {key: clean(prop) for key, prop in properties.items()}
        if node.get("type") == "object" and "properties" in node:
            node["additionalProperties"] = False
            node["required"] = list(node["properties"])
            for key, prop in node["properties"].items():
                if key in DESCRIPTIONS and isinstance(prop, dict) and "$ref" not in prop:
                    prop["description"] = DESCRIPTIONS[key]
        return node

    return json.dumps(clean(schema), ensure_ascii=False)


def schema_note(ratings: bool) -> str:
    """The schema in the system prompt, for a provider that takes only json_object (and so cannot enforce it)."""
    return "输出的 JSON 对象必须符合这个 JSON Schema：\n" + _schema_json(ratings)
