"""The model's note: raw output → a checked answer → the note's sections as Markdown.

``parse_note`` is the validator the transport's re-ask loop calls (online and after a batch): the
answer's JSON against the schema (``note_schema``), every text cleaned of control characters, then
the rules per field (``core.note_rules``: Chinese, no HTML, images, code fences, links or ``$``
math, safe TeX) and the counts (2-5 key designs, 1-5 findings …).  A problem goes back to the model
in words it can act on; a count over its bound keeps the first items, with a warning.

``note_markdown`` writes the sections in the reference's order and house style; the page's header
and its 一句话总结 come from the record when the note is rendered (``core.note_markdown``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from summarizer.core import limits
from summarizer.core.errors import TextRejected
from summarizer.core.ids import parse_arxiv_id, strip_version
from summarizer.core.note_rules import HEADINGS, has_chinese, length_warnings, markup_problems, split_sections
from summarizer.core.sanitize import clean_line, clean_text
from summarizer.core.wording import validation_problems

from .answer import json_object
from .note_schema import note_answer_model

# Room kept for what the page adds to the model's sections (its header and 一句话总结): the sections
# alone stay this far under the hard cap of a whole note.
HEADER_ROOM = 1_500
# (key path, least, most) of every list the schema holds.
COUNTS = (
    ("method.key_designs", 2, 5),
    ("experiments.ablations", 0, 5),
    ("experiments.findings", 1, 5),
    ("highlights", 2, 5),
    ("limitations", 2, 5),
    ("related_work", 0, 4),
)
DESIGN_LABELS = {"what": "做什么", "how": "核心思路", "why": "设计动机"}
RATING_LABELS = {"novelty": "新颖性", "experiments": "实验充分度", "writing": "写作质量", "value": "价值"}


@dataclass
class CheckedNote:
    """A checked answer: the answer itself (what the cache keeps), its sections as Markdown, the warnings."""

    answer: dict[str, Any]
    markdown: str
    warnings: list[str] = field(default_factory=list)


def _cleaned(node: Any, *, one_line: bool = False) -> Any:
    """Every string of the answer with control characters and bidi overrides removed, trimmed."""
    if isinstance(node, str):
        return clean_line(node) if one_line else clean_text(node).strip()
    if isinstance(node, list):
        return [_cleaned(item, one_line=True) for item in node]
    if isinstance(node, dict):
        return {key: _cleaned(value, one_line=one_line) for key, value in node.items()}
    return node


def _get(data: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        data = data[part]
    return data


def _counts(data: dict[str, Any], warnings: list[str]) -> list[str]:
    problems: list[str] = []
    for path, least, most in COUNTS:
        items = _get(data, path)
        if len(items) < least:
            problems.append(f"{path}: {len(items)} items; give {least} to {most}")
        elif len(items) > most:
            warnings.append(f"{path}: {len(items)} items, kept the first {most}")
            del items[most:]
    return problems


def _texts(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(section key, key path, text) of every text the note shows."""
    method, experiments = data["method"], data["experiments"]
    out = [("background", "background", data["background"]), ("problem", "problem", data["problem"])]
    out += [("method", "method.overview", method["overview"]), ("method", "method.training", method["training"])]
    for i, design in enumerate(method["key_designs"]):
        out += [("method", f"method.key_designs[{i}].{key}", design[key]) for key in ("name", "what", "how", "why")]
    table = experiments["main_results"]
    out.append(("experiments", "experiments.main_results.caption", table["caption"]))
    out += [("experiments", "experiments.main_results.columns", cell) for cell in table["columns"]]
    for i, row in enumerate(table["rows"]):
        out += [("experiments", f"experiments.main_results.rows[{i}]", cell) for cell in row]
    for i, ablation in enumerate(experiments["ablations"]):
        out += [("experiments", f"experiments.ablations[{i}].{key}", value) for key, value in ablation.items()]
    out += [("experiments", f"experiments.findings[{i}]", text) for i, text in enumerate(experiments["findings"])]
    out += [("highlights", f"highlights[{i}].{k}", v) for i, h in enumerate(data["highlights"]) for k, v in h.items()]
    out += [("limitations", f"limitations[{i}]", text) for i, text in enumerate(data["limitations"])]
    for i, work in enumerate(data["related_work"]):
        out += [("related", f"related_work[{i}].{key}", work[key]) for key in ("name", "venue_year", "contrast")]
    for key, rating in (data.get("ratings") or {}).items():
        out.append(("ratings", f"ratings.{key}.reason", rating["reason"]))
    return out


def _shape_problems(data: dict[str, Any], warnings: list[str]) -> list[str]:
    """Required texts present, the table rectangular, arXiv ids that are ids, scores 1-5."""
    problems = [f"{path}: empty" for path in ("background", "method.overview") if not _get(data, path)]
    table = data["experiments"]["main_results"]
    if table["rows"] and not table["columns"]:
        problems.append("experiments.main_results: rows without columns")
    for i, row in enumerate(table["rows"]):
        if table["columns"] and len(row) != len(table["columns"]):
            problems.append(f"experiments.main_results.rows[{i}]: {len(row)} cells for {len(table['columns'])} columns")
    for i, work in enumerate(data["related_work"]):
        if work["arxiv_id"] and parse_arxiv_id(work["arxiv_id"]) is None:
            warnings.append(f"related_work[{i}].arxiv_id {work['arxiv_id'][:40]!r} is no arXiv id: left out")
            work["arxiv_id"] = ""
    for key, rating in (data.get("ratings") or {}).items():
        if not 1 <= rating["score"] <= 5:
            problems.append(f"ratings.{key}.score: {rating['score']}; give 1 to 5")
    return problems


def _rule_problems(data: dict[str, Any]) -> list[str]:
    """Markup per field; Chinese per section (a section of the model's with none at all is broken output)."""
    problems: list[str] = []
    chinese: dict[str, bool] = {}
    for section, path, text in _texts(data):
        problems += markup_problems(text, path)
        if text:
            chinese[section] = chinese.get(section, False) or has_chinese(text)
    problems += [
        f"{section}: no Chinese; write the note in Chinese, keeping technical terms in English"
        for section, any_chinese in chinese.items()
        if not any_chinese
    ]
    return problems


def check_note(data: dict[str, Any], ratings: bool) -> CheckedNote:
    """A parsed answer (a dict of the schema's shape) checked; ``TextRejected`` listing every problem."""
    try:
        answer = note_answer_model(ratings).model_validate(data)
    except ValidationError as exc:
        raise TextRejected(validation_problems(exc, top="answer", special=_special)) from None
    data = _cleaned(answer.model_dump())
    warnings: list[str] = []
    problems = _counts(data, warnings) + _shape_problems(data, warnings) + _rule_problems(data)
    markdown = note_markdown(data)
    if len(markdown) > limits.NOTE - HEADER_ROOM:
        problems.append(
            f"the note is {len(markdown):,} characters; at most {limits.NOTE - HEADER_ROOM:,}: shorten every section"
        )
    if problems:
        raise TextRejected(problems)
    warnings += length_warnings(split_sections(markdown), None)
    return CheckedNote(data, markdown, warnings)


def _special(error: Any, key: str) -> str | None:
    if error["type"] == "extra_forbidden":
        return f"unexpected key {key!r}: use only the schema's keys"
    if error["type"] == "missing":
        return f"the key {key!r} is missing"
    return None


def parse_note(raw: str, ratings: bool) -> CheckedNote:
    """Raw model output → a checked note, or ``TextRejected`` saying what is wrong, in words for the model."""
    return check_note(json_object(raw, "background, problem, method, experiments, highlights, …"), ratings)


# -- the sections as Markdown ---------------------------------------------------------------------------


_BLANK_LINES = re.compile(r"\n{3,}")


def _prose(text: str) -> str:
    return _BLANK_LINES.sub("\n\n", text.strip())


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _table(columns: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(c) for c in columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def _method(method: dict[str, Any]) -> list[str]:
    lines = [f"## {HEADINGS['method']}", "", "### 整体框架", _prose(method["overview"]), "", "### 关键设计", ""]
    for i, design in enumerate(method["key_designs"], start=1):
        lines += [f"{i}. **{design['name']}**"]
        # Four spaces: Python-Markdown nests a list only that deep (the reference's three make its items flat).
        lines += [f"    - {label}：{design[key]}" for key, label in DESIGN_LABELS.items()]
        lines.append("")
    if method["training"]:
        lines += ["### 损失函数 / 训练策略", _prose(method["training"]), ""]
    return lines


def _experiments(experiments: dict[str, Any]) -> list[str]:
    lines = [f"## {HEADINGS['experiments']}", ""]
    table = experiments["main_results"]
    if table["columns"]:
        caption = f"（{table['caption']}）" if table["caption"] else ""
        lines += [f"### 主实验{caption}", "", *_table(table["columns"], table["rows"]), ""]
    ablations = experiments["ablations"]
    if ablations:
        rows = [[a["setting"], a["result"], a["takeaway"]] for a in ablations]
        lines += ["### 消融实验", "", *_table(["配置", "结果", "说明"], rows), ""]
    lines += ["### 关键发现", *(f"- {finding}" for finding in experiments["findings"]), ""]
    return lines


def _related(work: dict[str, Any]) -> str:
    """``- **vs Name** (Venue Year, arXiv:ID): contrast``, as the reference writes a comparison."""
    where = [work["venue_year"]] if work["venue_year"] else []
    if work["arxiv_id"]:
        where.append(f"arXiv:{strip_version(work['arxiv_id'])}")
    said = " (" + ", ".join(where) + ")" if where else ""
    return f"- **vs {work['name']}**{said}: {work['contrast']}"


def note_markdown(data: dict[str, Any]) -> str:
    """A checked answer's sections, from 研究背景与动机 on, in the reference's order and house style."""
    lines = [f"## {HEADINGS['background']}", _prose(data["background"]), ""]
    if data["problem"]:
        lines += [f"## {HEADINGS['problem']}", _prose(data["problem"]), ""]
    lines += _method(data["method"]) + _experiments(data["experiments"])
    lines += [f"## {HEADINGS['highlights']}", *(f"- **{h['title']}**：{h['detail']}" for h in data["highlights"]), ""]
    lines += [f"## {HEADINGS['limitations']}", *(f"- {item}" for item in data["limitations"]), ""]
    if data["related_work"]:
        lines += [f"## {HEADINGS['related']}", *(_related(w) for w in data["related_work"]), ""]
    if data.get("ratings"):
        stars = {key: "⭐" * r["score"] for key, r in data["ratings"].items()}
        lines += [f"## {HEADINGS['ratings']}"]
        lines += [f"- {label}: {stars[key]} {data['ratings'][key]['reason']}" for key, label in RATING_LABELS.items()]
    return "\n".join(lines).strip() + "\n"
