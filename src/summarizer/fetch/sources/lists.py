"""The ``list`` source: a venue's papers as a file (``.txt``: one arXiv id, arXiv abs/pdf URL or
title a line, ``#`` comments; ``.csv``/``.jsonl`` with the columns ``title, arxiv_id, url, pdf_url``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from summarizer.core.errors import UsageError
from summarizer.core.ids import parse_arxiv_id

from .base import Entry

# -- venue lists --------------------------------------------------------------------


_COMMENT = re.compile(r"(?:^|\s)#.*$")
# Looks like someone meant an arXiv id ("2501.129", "hep-th/99", "arXiv:2501.12948v") but it is not one.
_ID_LIKE = re.compile(r"^(?:arxiv:\s*)?(?:[a-z-]+(?:\.[a-z]{2})?/)?\d[\d.]*(?:v\d*)?$|^\d{4}\.\w{1,6}$", re.I)


def parse_line(text: str) -> Entry:
    """An entry from one line of a ``.txt`` list (comment already removed)."""
    found = parse_arxiv_id(text)
    if found:
        is_url = text.startswith(("http://", "https://"))
        return Entry(line=text, arxiv_id=found, url=text if is_url else None)
    if _ID_LIKE.match(text):
        return Entry(line=text, problem=f"malformed arXiv id {text!r}")
    if re.match(r"^https?://", text, re.I):
        if "arxiv.org" in text.lower():
            return Entry(line=text, problem=f"not an arXiv abs or pdf URL: {text}")
        return Entry(line=text, problem="a URL that is not an arXiv link: give the paper's arXiv id or title")
    return Entry(line=text, title=text)


def entry_from_fields(line: str, fields: dict[str, Any]) -> Entry:
    """An entry from a CSV row or JSONL object with ``title, arxiv_id, url, pdf_url``."""

    def get(key: str) -> str | None:
        value = fields.get(key)
        if value is None:
            return None
        value = str(value).strip()
        return value or None

    title, raw_id, url, pdf_url = get("title"), get("arxiv_id"), get("url"), get("pdf_url")
    found = None
    if raw_id:
        found = parse_arxiv_id(raw_id)
        if not found:
            return Entry(line=line, title=title, problem=f"malformed arXiv id {raw_id!r}")
    for candidate in (url, pdf_url):
        if not found and candidate:
            found = parse_arxiv_id(candidate)
    if not found and not title:
        return Entry(line=line, problem="the row has neither an arXiv id nor a title")
    return Entry(line=line, arxiv_id=found, title=title, url=url, pdf_url=pdf_url)


def read_list(path: Path) -> list[Entry]:
    """The entries of a ``.txt``, ``.csv`` or ``.jsonl`` venue list, in file order."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the venue list {path}: {exc}") from exc
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv_entries(path, text)
    if suffix == ".jsonl":
        return [_jsonl_entry(line) for line in (raw.strip() for raw in _lines(text)) if line]
    lines = (_COMMENT.sub("", raw).strip() for raw in _lines(text))
    return [parse_line(line) for line in lines if line]


def _lines(text: str) -> list[str]:
    """Lines end at ``\n`` (a ``\r`` before it dropped): U+2028 and U+2029 in a title are text, as in JSON."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _csv_entries(path: Path, text: str) -> list[Entry]:
    reader = csv.DictReader(io.StringIO(text))
    columns = {(c or "").strip().lower() for c in reader.fieldnames or []}
    if not columns & {"title", "arxiv_id", "url", "pdf_url"}:
        raise UsageError(f"{path}: a CSV list needs a header with title, arxiv_id, url or pdf_url")
    entries: list[Entry] = []
    for row in reader:
        fields = {(k or "").strip().lower(): v for k, v in row.items()}
        if not any((v or "").strip() for v in fields.values() if isinstance(v, str)):
            continue
        buffer = io.StringIO()
        csv.writer(buffer).writerow([row.get(k) or "" for k in reader.fieldnames or []])
        entries.append(entry_from_fields(buffer.getvalue().strip(), fields))
    return entries


def _jsonl_entry(line: str) -> Entry:
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        return Entry(line=line, problem="not valid JSON")
    if not isinstance(data, dict):
        return Entry(line=line, problem="a JSONL line must be an object with title, arxiv_id, …")
    return entry_from_fields(line, data)
