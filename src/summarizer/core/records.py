"""The record of one paper, as stored in ``outputs/records/<VENUE>/<ID>.json``: its metadata, what
fetch found, failures and usage, and its two kinds of reviewed text held the same way: ``summaries``
(every summary version and their review state) and ``notes`` (every note version and theirs).

``store.Store`` reads and writes these files; this module is only their shape.  A record without a
note is written without the ``notes`` key; records written before notes read as papers without one.
Records of schema 1 kept a summary's versions and review state flat on the record: they are read into
``summaries`` (``_summaries_of_schema_1``) and written back as schema 2 when next saved.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from . import limits
from .errors import NothingToApprove
from .ids import strip_version
from .usage import Usage

SCHEMA_VERSION = 2
READABLE_SCHEMAS = (1, 2)  # schema 1: a summary's review state flat on the record
_SUMMARY_KEYS = ("versions", "status", "approved_version", "review_note")

Origin = Literal["llm", "human", "import"]
Status = Literal["draft", "approved", "rejected"]
Stage = Literal["fetch", "summarize", "notes"]
MathStyle = Literal["tex", "dollar"]  # math written as \( … \) (the site's), or as $ … $ (imported notes)


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Version(_Model):
    number: int
    summary: str
    tags: list[str]
    field: str
    origin: Origin
    created_at: str = Field(default_factory=now_iso)
    model: str | None = None
    prompt_hash: str | None = None
    feedback: str | None = None
    warnings: list[str] = Field(default_factory=list)
    # The paper-level warnings (numbers not in the paper, …) were found when it was stored: showing
    # it needs no second read of the paper.  False for edits, imports and older versions.
    checked: bool = False

    def same_content(self, summary: str, tags: list[str], field: str) -> bool:
        return self.summary == summary and self.tags == tags and self.field == field


class NoteVersion(_Model):
    """One version of a paper's note: its sections as Markdown, from the first ``##`` heading on.

    The page's header (title, 会议, arXiv, 代码, 领域, 关键词) is built from the record when the note is
    rendered (``core.note_markdown.render``), and so is its 一句话总结 (the approved summary), unless the
    note holds its own: an imported note keeps its header (``header``) and every section as written.
    """

    number: int
    markdown: str
    origin: Origin
    header: str | None = None  # an imported note's own header, as written (title, bold lines, front matter)
    math: MathStyle = "tex"
    created_at: str = Field(default_factory=now_iso)
    model: str | None = None
    prompt_hash: str | None = None
    feedback: str | None = None
    warnings: list[str] = Field(default_factory=list)
    checked: bool = False  # the paper-level warnings were found when it was stored (as for summaries)

    def same_content(self, markdown: str, header: str | None, math: MathStyle) -> bool:
        return self.markdown == markdown and self.header == header and self.math == math


class _Numbered(Protocol):
    number: int
    origin: Origin


V = TypeVar("V", bound=_Numbered)


class Reviewed(Generic[V]):
    """Versions under review: the newest, the approved one, a pending draft (summaries and notes alike)."""

    if TYPE_CHECKING:
        versions: list[V]
        status: Status
        approved_version: int | None
        review_note: str | None

    @property
    def current(self) -> V | None:
        """The newest version: what a reviewer sees and edits."""
        return self.versions[-1] if self.versions else None

    @property
    def approved(self) -> V | None:
        if self.status != "approved" or self.approved_version is None:
            return None
        return self.version(self.approved_version)

    def version(self, number: int) -> V | None:
        return next((v for v in self.versions if v.number == number), None)

    @property
    def has_pending_draft(self) -> bool:
        """Approved, with a newer version waiting for review."""
        current = self.current
        return self.approved is not None and current is not None and current.number != self.approved_version

    @property
    def needs_review(self) -> bool:
        return self.current is not None and (self.status == "draft" or self.has_pending_draft)

    @property
    def has_human_version(self) -> bool:
        return any(v.origin == "human" for v in self.versions)

    def _next_number(self) -> int:
        return (self.versions[-1].number + 1) if self.versions else 1

    def approve(self, number: int | None = None, *, what: str = "version") -> None:
        """The version ``number`` (default: the newest) approved; ``NothingToApprove`` names ``what`` is missing."""
        target = self.version(number) if number is not None else self.current
        if target is None:
            raise NothingToApprove(f"no {what} to approve")
        self.status = "approved"
        self.approved_version = target.number


class Summaries(_Model, Reviewed[Version]):
    """A paper's summary: every version, and its review state."""

    versions: list[Version] = Field(default_factory=list)
    status: Status = "draft"
    approved_version: int | None = None
    review_note: str | None = None  # the reviewer's reason for a rejection (`review reject --reason`)

    def add_version(self, summary: str, tags: list[str], field: str, origin: Origin, **extra: Any) -> Version:
        version = Version(number=self._next_number(), summary=summary, tags=tags, field=field, origin=origin, **extra)
        self.versions.append(version)
        return version


class Notes(_Model, Reviewed[NoteVersion]):
    """A paper's note: every version, and its own review state (a summary's approval is not a note's)."""

    versions: list[NoteVersion] = Field(default_factory=list)
    status: Status = "draft"
    approved_version: int | None = None
    review_note: str | None = None  # the reviewer's reason for a rejection
    code_url: str | None = None  # the code's URL as the source or the paper's own text gives it (never the model)

    @property
    def empty(self) -> bool:
        return self == _NO_NOTES

    def add_version(self, markdown: str, origin: Origin, **extra: Any) -> NoteVersion:
        version = NoteVersion(number=self._next_number(), markdown=markdown, origin=origin, **extra)
        self.versions.append(version)
        return version


_NO_NOTES = Notes()


class Failure(_Model):
    stage: Stage
    reason: str
    at: str = Field(default_factory=now_iso)
    attempts: int | None = None
    raw_output: str | None = None


class FetchState(_Model):
    pdf_url: str | None = None
    pdf_sha256: str | None = None
    text_path: str | None = None  # relative to the cache folder
    abstract_only: bool = False  # the PDF failed: summarise from the arXiv abstract
    fetched_at: str | None = None
    arxiv_checked_at: str | None = None  # when a source's `match_arxiv` looked for the paper on arXiv


class Record(_Model):
    schema_version: int = SCHEMA_VERSION
    venue: str
    id: str
    title: str
    authors: list[str] = Field(default_factory=list)
    url: str | None = None
    arxiv_id: str | None = None
    abstract: str | None = None
    categories: list[str] = Field(default_factory=list)
    comment: str | None = None
    source_entry: str | None = None  # the venue-list line this paper came from
    source_type: str | None = None  # the venue's source that listed it: openreview, acl_anthology, list …
    source_id: str | None = None  # the paper's id at that source (OpenReview note id, Anthology id …)
    tier: str | None = None  # oral, spotlight, poster, findings, long … when the source says
    venue_label: str | None = None  # the source's own words for the decision ("ICLR 2026 Oral")
    source_missing_since: str | None = None  # the paper left the source's list then (kept, never deleted)
    fetch: FetchState = Field(default_factory=FetchState)
    failures: dict[Stage, Failure] = Field(default_factory=dict)
    summaries: Summaries = Field(default_factory=Summaries)
    usage: Usage = Field(default_factory=Usage)
    notes: Notes = Field(default_factory=Notes)

    @model_serializer(mode="wrap")
    def _without_empty_notes(self, handler: Any) -> Any:
        """No ``notes`` key until the paper has a note."""
        data = handler(self)
        if isinstance(data, dict) and self.notes.empty:
            data.pop("notes", None)
        return data

    @model_validator(mode="before")
    @classmethod
    def _summaries_of_schema_1(cls, data: Any) -> Any:
        """A schema-1 record kept its summary's versions and review state flat (the reviewer's reason once as
        ``note``): they are read into ``summaries``, and the record is schema 2 from then on."""
        if not isinstance(data, dict) or "summaries" in data:
            return data
        data = {("review_note" if key == "note" and "review_note" not in data else key): v for key, v in data.items()}
        summaries = {key: data.pop(key) for key in _SUMMARY_KEYS if key in data}
        return {**data, "schema_version": SCHEMA_VERSION, "summaries": summaries}

    # -- links and failures --------------------------------------------------
    @property
    def link(self) -> str | None:
        """The arXiv abs page when the paper has an arXiv id, else its own URL."""
        if self.arxiv_id:
            return f"https://arxiv.org/abs/{strip_version(self.arxiv_id)}"
        return self.url or None

    def fail(self, stage: Stage, reason: str, **extra: object) -> None:
        raw = extra.get("raw_output")
        if isinstance(raw, str) and len(raw) > limits.RAW_OUTPUT:  # a runaway answer is kept, not in full
            extra["raw_output"] = raw[: limits.RAW_OUTPUT] + f"…[cut: {len(raw) - limits.RAW_OUTPUT} more characters]"
        failure = Failure(stage=stage, reason=reason, **extra)
        previous = self.failures.get(stage)
        if previous is not None and previous.model_dump(exclude={"at"}) == failure.model_dump(exclude={"at"}):
            return  # the same failure again: keep its first time, so the file does not change
        self.failures[stage] = failure

    def clear_failure(self, stage: Stage) -> None:
        self.failures.pop(stage, None)
