"""One line of a JSONL import file, checked: its keys (``ImportLine``), its text (human text), its venue.

One paper a line::

    {"venue", "title", "summary", "tags", "field", "status"?, "id"?, "url"?,
     "arxiv_id"?, "authors"?, "abstract"?, "note"?, "pending"?, "source_type"?, "source_id"?, "tier"?,
     "notes"?: {"markdown", "header"?, "math"?, "status"?, "note"?, "code_url"?, "pending"?}}

``notes`` is the paper's per-paper note as ``export`` writes it: its published version's Markdown
(and an imported note's own header), its review status and note, a pending draft.

Imported text is human text: hard errors only for what cannot be published safely or placed,
everything else is a warning kept with the version.  Every bound and rule is
``core.bounds``'s check, the one a fetched record is fitted to, so an export always imports again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from summarizer.core import limits
from summarizer.core.bounds import check_arxiv_id, check_names, check_oneline, check_text, check_title, check_url
from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected
from summarizer.core.ids import is_safe_paper_id, parse_arxiv_id, record_id, strip_version
from summarizer.core.note_rules import check_human_note
from summarizer.core.rules import check_human_summary
from summarizer.core.wording import validation_problems

IGNORED_KEYS = ("error",)  # a rejected file's reason: a fixed rejected file imports as it is


SHOWN_CHARS = limits.SHOWN_VALUE


def shown(value: object) -> str:
    """A value from the file as quoted in a message: cut to a readable length, controls escaped."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


class PendingLine(BaseModel):
    """A newer version waiting for review on an approved paper (what export writes, so nothing is lost)."""

    model_config = ConfigDict(extra="forbid")

    summary: str
    tags: list[str] = []
    field: str


class NoteText(BaseModel):
    """One note version's text: its sections, an imported note's own header, its math style."""

    model_config = ConfigDict(extra="forbid")

    markdown: str
    header: str | None = None
    math: Literal["tex", "dollar"] = "tex"


class NotesLine(NoteText):
    """The paper's note: its published (else newest) version, its review state, a pending draft."""

    status: Literal["draft", "approved", "rejected"] = "draft"
    note: str | None = None
    code_url: str | None = None
    pending: NoteText | None = None

    @field_validator("note")
    @classmethod
    def _review_note(cls, value: str | None) -> str | None:
        return check_text(value, limits.REVIEW_NOTE)

    @field_validator("code_url")
    @classmethod
    def _code_url(cls, value: str | None) -> str | None:
        return check_url(value)


SOURCE_KEYS = ("source_type", "source_id", "tier")  # exported when the record came from a venue source


class ImportLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    venue: str
    title: str
    summary: str
    tags: list[str] = []
    field: str
    status: Literal["draft", "approved", "rejected"] = "draft"
    id: str | None = None
    url: str | None = None
    arxiv_id: str | None = None
    authors: list[str] | None = None
    abstract: str | None = None
    note: str | None = None
    pending: PendingLine | None = None
    notes: NotesLine | None = None
    # Where the paper came from (export writes them).  Import keeps them on a record that has none,
    # so an export loaded into an empty project still says where each paper came from; a record
    # `fetch` has met keeps what its source said.
    source_type: str | None = None
    source_id: str | None = None
    tier: str | None = None

    @field_validator(*SOURCE_KEYS)
    @classmethod
    def _provenance(cls, value: str | None) -> str | None:
        return check_oneline(value, limits.SOURCE_ID)

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return check_title(value)

    @field_validator("authors")
    @classmethod
    def _authors(cls, value: list[str] | None) -> list[str] | None:
        return check_names(value)

    @field_validator("abstract", "note")
    @classmethod
    def _multiline(cls, value: str | None, info: Any) -> str | None:
        return check_text(value, limits.ABSTRACT if info.field_name == "abstract" else limits.REVIEW_NOTE)

    @field_validator("arxiv_id")
    @classmethod
    def _arxiv_id(cls, value: str | None) -> str | None:
        return check_arxiv_id(value)

    @field_validator("id")
    @classmethod
    def _id(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        if not is_safe_paper_id(value):
            raise ValueError(f"not a usable id (letters, digits, '.', '_', '-'): {shown(value)}")
        return value

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        return check_url(value)

    @model_validator(mode="after")
    def _arxiv_url_is_an_arxiv_id(self) -> ImportLine:
        # An arXiv abs/pdf URL says the paper's id; the link is derived from the id, not stored.
        from_url = parse_arxiv_id(self.url) if self.url else None
        if from_url and (self.arxiv_id is None or strip_version(from_url) == strip_version(self.arxiv_id)):
            self.arxiv_id = self.arxiv_id or from_url
            self.url = None
        return self

    def record_id(self) -> str:
        return self.id or record_id(arxiv_id=self.arxiv_id, title=self.title)


@dataclass
class CheckedLine:
    """A valid line, its summaries as checked (and the text as written, to find a version that holds it)."""

    number: int
    line: ImportLine
    raw: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    pending_warnings: list[str] = field(default_factory=list)
    note_warnings: list[str] = field(default_factory=list)


class LineRejected(TextRejected):
    """A bad line; ``line`` is the parsed line when its keys were readable (to find duplicates still)."""

    def __init__(self, problems: list[str], line: ImportLine | None = None):
        self.line = line
        super().__init__(problems)


def read_line_object(raw: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LineRejected([f"not valid JSON ({exc.msg})"]) from None
    if not isinstance(data, dict):
        raise LineRejected(["each line must be a JSON object"])
    return data


def check_line(number: int, data: dict[str, Any], settings: Settings, venues: set[str]) -> CheckedLine:
    """Validate one line; LineRejected lists every problem it has, each naming its field."""
    fields = {k: v for k, v in data.items() if k not in IGNORED_KEYS}
    try:
        line = ImportLine.model_validate(fields)
    except ValidationError as exc:
        raise LineRejected(validation_problems(exc, top="line")) from None
    problems: list[str] = []
    if line.venue not in venues:
        problems.append(f"venue: unknown venue {shown(line.venue)} (add it to config.yaml)")
    checked = CheckedLine(number, line, data)
    try:
        human = check_human_summary(line.summary, line.tags, line.field, settings)
        line.summary, line.tags, checked.warnings = human.summary, human.tags, human.warnings
    except TextRejected as exc:
        problems += exc.problems
    if line.pending is not None:
        try:
            human = check_human_summary(line.pending.summary, line.pending.tags, line.pending.field, settings)
            line.pending.summary, line.pending.tags = human.summary, human.tags
            checked.pending_warnings = human.warnings
        except TextRejected as exc:
            problems += [f"pending.{p}" for p in exc.problems]
    if line.notes is not None:
        problems += _check_notes(line.notes, checked)
    if problems:
        raise LineRejected(problems, line)
    return checked


def _check_notes(notes: NotesLine, checked: CheckedLine) -> list[str]:
    """The line's note (and its pending draft) as human text: each problem under ``notes.``."""
    problems: list[str] = []
    for where, text in (("notes", notes), ("notes.pending", notes.pending)):
        if text is None:
            continue
        try:
            human = check_human_note(text.markdown, text.header)
        except TextRejected as exc:
            problems += [f"{where}.{p}" for p in exc.problems]
            continue
        text.markdown, text.header = human.markdown, human.header
        checked.note_warnings += [f"{where}: {w}" for w in human.warnings]
    return problems
