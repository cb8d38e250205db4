"""JSONL import and export: summaries written elsewhere, and summaries taken elsewhere.

One paper a line::

    {"venue", "title", "summary", "tags", "field", "status"?, "id"?, "url"?,
     "arxiv_id"?, "authors"?, "abstract"?, "note"?}

An import is all or nothing: every line is checked before any record is
touched, and a bad line is reported with its number.  Importing into an
existing record adds a version (origin ``import``) and keeps the history;
importing the same file twice changes nothing.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .checks import MAX_TAGS, SummaryRejected, check_summary
from .config import Settings
from .errors import ImportFileError
from .ids import is_safe_paper_id, normalize_title, paper_id, parse_arxiv_id, strip_version
from .store import Record, Status, Store

EXPORT_KEYS = (
    "venue", "id", "title", "summary", "tags", "field", "status",
    "arxiv_id", "url", "authors", "abstract", "note",
)  # fmt: skip
SOURCE_KEYS = ("source_type", "source_id", "tier")  # exported when the record came from a venue source


class ImportLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    venue: str
    title: str = Field(min_length=1)
    summary: str
    tags: list[str]
    field: str
    status: Literal["draft", "approved", "rejected"] = "draft"
    id: str | None = None
    url: str | None = None
    arxiv_id: str | None = None
    authors: list[str] | None = None
    abstract: str | None = None
    note: str | None = None
    # Where the paper came from (export writes them; import accepts and ignores them: the source says).
    source_type: str | None = None
    source_id: str | None = None
    tier: str | None = None

    @field_validator("title")
    @classmethod
    def _title_one_line(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("the title is empty")
        return value

    @field_validator("arxiv_id")
    @classmethod
    def _arxiv_id(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        parsed = parse_arxiv_id(value)
        if parsed is None:
            raise ValueError(f"not an arXiv id: {value!r}")
        return parsed

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not is_safe_paper_id(value):
            raise ValueError(f"not a usable id (letters, digits, '.', '_', '-'): {value!r}")
        return value

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        value = value.strip()
        if not re.match(r"^https?://\S+$", value, re.IGNORECASE):
            raise ValueError(f"not an http(s) URL: {value!r}")
        return value

    @model_validator(mode="after")
    def _arxiv_url_is_an_arxiv_id(self) -> ImportLine:
        # An arXiv abs/pdf URL says the paper's id; the link is derived from the id, not stored.
        from_url = parse_arxiv_id(self.url) if self.url else None
        if from_url and (self.arxiv_id is None or strip_version(from_url) == strip_version(self.arxiv_id)):
            self.arxiv_id = self.arxiv_id or from_url
            self.url = None
        return self

    def record_id(self) -> str:
        return self.id or paper_id(arxiv_id=self.arxiv_id, title=self.title)


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"{self.created} created, {self.updated} updated, {self.unchanged} unchanged"


class _TitleIndex:
    """Existing records by normalised title, per venue: a line without ids finds its paper by title."""

    def __init__(self, store: Store):
        self.store = store
        self._by_venue: dict[str, dict[str, list[str]]] = {}

    def find(self, venue: str, title: str) -> str | None:
        index = self._by_venue.get(venue)
        if index is None:
            index = {}
            for record in self.store.records(venue):
                index.setdefault(normalize_title(record.title), []).append(record.id)
            self._by_venue[venue] = index
        ids = index.get(normalize_title(title), [])
        return ids[0] if len(ids) == 1 else None


def _parse_file(
    path: Path, settings: Settings, titles: _TitleIndex, warnings: list[str]
) -> list[tuple[int, ImportLine]]:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM, as Excel and Windows tools write it, is fine
    except FileNotFoundError:
        raise ImportFileError(str(path), None, "file not found") from None
    except UnicodeDecodeError:
        raise ImportFileError(str(path), None, "not UTF-8 text") from None
    lines: list[tuple[int, ImportLine]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ImportFileError(str(path), number, f"not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise ImportFileError(str(path), number, "each line must be a JSON object")
        try:
            line = ImportLine.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first["loc"])
            message = (
                "unknown key" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
            )
            raise ImportFileError(str(path), number, f"{key}: {message}") from None
        if line.venue not in {v.id for v in settings.venues}:
            raise ImportFileError(str(path), number, f"venue: unknown venue {line.venue!r} (add it to config.yaml)")
        try:
            checked = check_summary(line.summary, line.tags, line.field, settings)
        except SummaryRejected as exc:
            raise ImportFileError(str(path), number, str(exc)) from None
        line.summary, line.tags = checked.summary, checked.tags
        if line.id is None and line.arxiv_id is None:
            line.id = titles.find(line.venue, line.title)  # the paper fetched from arXiv, not a twin
        warnings.extend(f"{path}:{number}: {w}" for w in checked.warnings if w.endswith(f"the first {MAX_TAGS}"))
        paper = (line.venue, line.record_id())
        if paper in seen:
            raise ImportFileError(str(path), number, f"the same paper as line {seen[paper]} ({paper[0]}/{paper[1]})")
        seen[paper] = number
        lines.append((number, line))
    return lines


def _apply_metadata(record: Record, line: ImportLine) -> None:
    record.title = line.title
    if line.url is not None:
        record.url = line.url or None
    if line.arxiv_id is not None:
        record.arxiv_id = line.arxiv_id
    if line.authors is not None:
        record.authors = line.authors
    if line.abstract is not None:
        record.abstract = line.abstract
    if line.note is not None:
        record.note = line.note or None


def _apply_status(record: Record, status: Status, added_version: bool) -> None:
    if status == "approved":
        record.approve()
    elif status == "rejected":
        record.status = "rejected"
    elif added_version and record.status != "approved":
        # A draft never demotes an approved record: its text waits as a pending draft.
        record.status = "draft"


def import_jsonl(path: Path, settings: Settings, store: Store) -> ImportResult:
    """Check every line, then apply them all while holding each venue's lock."""
    result = ImportResult()
    lines = _parse_file(path, settings, _TitleIndex(store), result.warnings)
    with contextlib.ExitStack() as locks:
        for venue in sorted({line.venue for _, line in lines}):
            locks.enter_context(store.lock(venue))
        for _number, line in lines:
            _import_line(line, store, result)
    return result


def _import_line(line: ImportLine, store: Store, result: ImportResult) -> None:
    pid = line.record_id()
    existing = store.get(line.venue, pid)
    record = existing or Record(venue=line.venue, id=pid, title=line.title)
    _apply_metadata(record, line)
    current = record.current
    added = current is None or not current.same_content(line.summary, line.tags, line.field)
    if added:
        record.add_version(line.summary, line.tags, line.field, "import")
    if existing is None:
        record.status = line.status
        if line.status == "approved":
            record.approve()
    else:
        _apply_status(record, line.status, added)
    written = store.save(record)
    if existing is None:
        result.created += 1
    elif written:
        result.updated += 1
    else:
        result.unchanged += 1


def export_line(record: Record) -> dict[str, object] | None:
    """The import-format line for a record; None when it has no summary yet."""
    version = record.approved or record.current
    if version is None:
        return None
    values: dict[str, object] = {
        "venue": record.venue,
        "id": record.id,
        "title": record.title,
        "summary": version.summary,
        "tags": version.tags,
        "field": version.field,
        "status": record.status,
        "arxiv_id": record.arxiv_id,
        "url": record.url or record.link,
        "authors": record.authors,
        "abstract": record.abstract,
        "note": record.note,
    }
    line = {key: values[key] for key in EXPORT_KEYS}
    if record.source_type:
        line.update({key: getattr(record, key) for key in SOURCE_KEYS})
    return line


def export_jsonl(venue: str, store: Store, sink: IO[str]) -> tuple[int, int]:
    """Write the venue's records, sorted by id; returns (written, skipped without a summary)."""
    written = skipped = 0
    for record in store.records(venue):
        line = export_line(record)
        if line is None:
            skipped += 1
            continue
        sink.write(json.dumps(line, ensure_ascii=False) + "\n")
        written += 1
    return written, skipped
