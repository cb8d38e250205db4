"""Turn papernotes-style notes (NOTES/VENUE/FIELD/<slug>.md) into JSONL lines for `summarizer eval`.

    python notes_to_reference.py NOTES_DIR config.yaml VENUE > reference.jsonl
    python notes_to_reference.py NOTES_DIR config.yaml VENUE --records > records.jsonl

A reference line per note: its title and arXiv id, the folder it is filed under as `field`, the
note's own 领域 line mapped onto a field of config.yaml (by id or name) as `field_check`, its
关键词 as `keywords`, the first line of its 一句话总结 as `summary` (the digest text) and the whole
一句话总结 as `note_summary`.  Every line gets the VENUE named (eval scores one venue at a time).

`--records` writes import lines instead (`summarizer import`): the digest text as an approved
summary and the rest of the note as the abstract, so the suspicion checks compare each one-liner
with the note it summarises.  A second note of a paper already written is left out there.

Adapt the patterns to your notes; `tests/evaluate/test_real_reference.py` runs this on real ones.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

ABSTRACT_MAX = 20_000  # what an import line's abstract may hold
ARXIV = re.compile(r"\b(\d{4}\.\d{4,5})(v\d+)?\b")
SECTION = re.compile(r"^## 一句话总结[ \t]*\n(.*?)(?=^#|^---|\Z)", re.M | re.S)


def header(text: str) -> dict[str, Any]:
    """The note's metadata: YAML front matter, else its bold `**key**: value` lines."""
    if text.startswith("---\n"):
        front = yaml.safe_load(text.split("---\n", 2)[1]) or {}
        return {
            "title": front.get("title"),
            "arxiv": str(front.get("arxiv") or ""),
            "领域": front.get("domain") or "",
            "关键词": front.get("keywords") or [],
        }
    found = {key: value.strip() for key, value in re.findall(r"\*\*(会议|arXiv|领域|关键词)\*\*[:：]\s*(.*)", text)}
    title = re.search(r"^# (.+)$", text, re.M)
    return {**found, "title": title.group(1).strip() if title else None}


def keywords(value: Any) -> list[str]:
    words = value if isinstance(value, list) else re.split(r"[,，、]", str(value))
    return [str(w).strip() for w in words if str(w).strip()]


def squash(text: str) -> str:
    return re.sub(r"[\s/]+", "", text).casefold()


def field_of(domain: str, fields: list[dict[str, Any]]) -> str | None:
    """The configured field a 领域 line names first (by id or name, spaces and slashes aside)."""
    names = {squash(str(f["id"])): f["id"] for f in fields}
    names |= {squash(str(f.get("name") or f["id"])): f["id"] for f in fields}
    for piece in re.split(r"\s+/\s+|[／]", str(domain)):
        if squash(piece) in names:
            return str(names[squash(piece)])
    return None


def note_line(path: Path, fields: list[dict[str, Any]], venue: str) -> dict[str, Any] | None:
    text = path.read_text(encoding="utf-8")
    meta = header(text)
    section = SECTION.search(text)
    if not section or not meta.get("title"):
        return None
    one_liner = section.group(1).strip()
    arxiv = ARXIV.search(str(meta.get("arXiv") or meta.get("arxiv") or ""))
    line: dict[str, Any] = {
        "venue": venue,
        "title": meta["title"],
        "summary": one_liner.splitlines()[0].strip(),
        "field": path.parent.name,
        "field_check": field_of(meta.get("领域", ""), fields),
        "keywords": keywords(meta.get("关键词", "")),
        "note_summary": one_liner,
    }
    if arxiv:
        line["arxiv_id"] = arxiv.group(1)
    line["rest"] = (text[: section.start()] + text[section.end() :]).strip()
    return line


def as_record(line: dict[str, Any]) -> dict[str, Any]:
    keep = {key: line[key] for key in ("venue", "title", "summary", "field", "arxiv_id") if key in line}
    return {**keep, "abstract": line["rest"][:ABSTRACT_MAX].strip(), "status": "approved"}


def main(notes: Path, config: Path, venue: str, records: bool) -> None:
    fields = yaml.safe_load(config.read_text(encoding="utf-8"))["fields"]
    seen: set[str] = set()
    for path in sorted(notes.glob("*/*/*.md")):
        line = note_line(path, fields, venue)
        if line is None:
            continue
        if records:
            key = line.get("arxiv_id") or line["title"].casefold()
            if key in seen:
                continue
            seen.add(key)
            print(json.dumps(as_record(line), ensure_ascii=False))
        else:
            line.pop("rest")
            print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--records"]
    main(Path(args[0]), Path(args[1]), args[2], "--records" in sys.argv)
