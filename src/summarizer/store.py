"""Records: one JSON file per paper at ``outputs/records/<VENUE>/<ID>.json``.

The store owns every read and write of a record.  Writes are atomic and
skipped when nothing changed, so re-running a stage leaves files untouched.
A record keeps every summary version ever written; nothing is overwritten.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config import SAFE_ID
from .errors import FileSystemError, NothingToApprove, RecordError, UsageError, clip
from .fsutil import WriteBatch, write_if_changed
from .ids import is_safe_paper_id, strip_version
from .validation import validation_message

SCHEMA_VERSION = 1

Origin = Literal["llm", "human", "import"]
Status = Literal["draft", "approved", "rejected"]
Stage = Literal["fetch", "summarize"]


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


class Usage(_Model):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd = round(self.cost_usd + other.cost_usd, 8)


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
    versions: list[Version] = Field(default_factory=list)
    status: Status = "draft"
    approved_version: int | None = None
    note: str | None = None
    usage: Usage = Field(default_factory=Usage)

    # -- versions ----------------------------------------------------------
    @property
    def current(self) -> Version | None:
        """The newest version: what a reviewer sees and edits."""
        return self.versions[-1] if self.versions else None

    @property
    def approved(self) -> Version | None:
        if self.status != "approved" or self.approved_version is None:
            return None
        return self.version(self.approved_version)

    def version(self, number: int) -> Version | None:
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

    def add_version(self, summary: str, tags: list[str], field: str, origin: Origin, **extra: object) -> Version:
        version = Version(
            number=(self.versions[-1].number + 1) if self.versions else 1,
            summary=summary,
            tags=tags,
            field=field,
            origin=origin,
            **extra,
        )
        self.versions.append(version)
        return version

    def approve(self, number: int | None = None) -> None:
        target = self.version(number) if number is not None else self.current
        if target is None:
            raise NothingToApprove(f"{self.venue}/{self.id} has no summary to approve")
        self.status = "approved"
        self.approved_version = target.number

    # -- links and failures --------------------------------------------------
    @property
    def link(self) -> str | None:
        """The arXiv abs page when the paper has an arXiv id, else its own URL."""
        if self.arxiv_id:
            return f"https://arxiv.org/abs/{strip_version(self.arxiv_id)}"
        return self.url or None

    def fail(self, stage: Stage, reason: str, **extra: object) -> None:
        failure = Failure(stage=stage, reason=reason, **extra)
        previous = self.failures.get(stage)
        if previous is not None and previous.model_dump(exclude={"at"}) == failure.model_dump(exclude={"at"}):
            return  # the same failure again: keep its first time, so the file does not change
        self.failures[stage] = failure

    def clear_failure(self, stage: Stage) -> None:
        self.failures.pop(stage, None)


class Store:
    """Every record of ``outputs/records/``.

    A record's path is its identity: venue and id come from the path, a file
    whose content names another venue or id is refused, and no write lands
    outside ``outputs/records/<VENUE>/``.  A corrupt or unreadable record
    blocks only itself: ``records()`` skips it, remembers it in ``corrupt``
    (warning once through ``warn``), and ``save`` never writes over it.
    """

    def __init__(self, outputs_dir: Path, *, warn: Callable[[str], None] | None = None):
        self.outputs_dir = outputs_dir
        self.root = outputs_dir / "records"
        self.corrupt: dict[Path, str] = {}  # path → why it cannot be read
        self._warn = warn
        self._batch: WriteBatch | None = None

    def venue_dir(self, venue: str) -> Path:
        if not SAFE_ID.match(venue):
            raise UsageError(f"not a valid venue id: {clip(venue)!r} (letters, digits, '.', '_' or '-')")
        return self.root / venue

    def path(self, venue: str, paper_id: str) -> Path:
        if not is_safe_paper_id(paper_id):
            raise UsageError(f"not a valid paper id: {clip(paper_id)!r}")
        return self.venue_dir(venue) / f"{paper_id}.json"

    def get(self, venue: str, paper_id: str) -> Record | None:
        path = self.path(venue, paper_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise FileSystemError(path, exc) from None
        return self._parse(path, data)

    def load(self, venue: str, paper_id: str) -> Record:
        record = self.get(venue, paper_id)
        if record is None:
            raise UsageError(f"no record {clip(venue)}/{clip(paper_id)} (see: summarizer review list {clip(venue)})")
        return record

    def save(self, record: Record) -> bool:
        """Write the record atomically; False when the file already held exactly this, or is corrupt (kept)."""
        path = self._writable(self.path(record.venue, record.id))
        if path in self.corrupt:
            return False  # never written over: its warning was given when it was found
        data = (record.model_dump_json(indent=2) + "\n").encode("utf-8")
        if self._batch is not None:
            return self._batch.write_if_changed(path, data)
        return write_if_changed(path, data)

    @contextlib.contextmanager
    def all_or_nothing(self) -> Iterator[None]:
        """Saves inside land together when the block ends, or not at all if it raises.

        For bulk writes (an import of thousands of records): one disk sync for all of them
        instead of one per file.  Reads inside the block still see the files as they were.
        """
        if self._batch is not None:
            yield
            return
        self._batch = WriteBatch()
        try:
            yield
        except BaseException:
            self._batch.discard()
            raise
        else:
            self._batch.commit()
        finally:
            self._batch = None

    def delete(self, venue: str, paper_id: str) -> None:
        """Remove a record that never held a summary (e.g. a list line resolved under another id)."""
        path = self._writable(self.path(venue, paper_id))
        if path not in self.corrupt:
            path.unlink(missing_ok=True)

    def records(self, venue: str) -> list[Record]:
        """The venue's readable records, by id; corrupt ones are skipped and remembered in ``corrupt``."""
        folder = self.venue_dir(venue)
        if not folder.is_dir():
            return []
        good = []
        for path in sorted(folder.glob("*.json")):
            try:
                good.append(self._parse(path, path.read_bytes()))
                self.corrupt.pop(path, None)  # repaired since (a long-lived store: the review desk)
            except RecordError as exc:
                self._found_corrupt(path, str(exc))
            except OSError as exc:
                self._found_corrupt(path, f"{path}: cannot be read ({exc.strerror or exc})")
        return good

    def corrupt_in(self, venue: str) -> list[Path]:
        return sorted(p for p in self.corrupt if p.parent.name == venue)

    def venues(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and SAFE_ID.match(p.name))

    def _found_corrupt(self, path: Path, reason: str) -> None:
        if path in self.corrupt:
            return
        self.corrupt[path] = reason
        if self._warn is not None:
            self._warn(f"skipped a corrupt record: {reason}; repair it or move it away (nothing writes over it)")

    def _writable(self, path: Path) -> Path:
        """``path``, refused unless it really lies in its venue folder: no link leads a write elsewhere."""
        expected = self.root.resolve() / path.parent.name / path.name
        if path.resolve() != expected:
            raise RecordError(
                f"{path}: leads to {path.resolve()}, outside {self.root}/{path.parent.name}/; "
                "not written (replace the link or folder link with the record itself)"
            )
        return path

    @staticmethod
    def _parse(path: Path, data: bytes) -> Record:
        try:
            raw = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecordError(f"{path}: not valid JSON ({exc})") from None
        version = raw.get("schema_version") if isinstance(raw, dict) else None
        if version != SCHEMA_VERSION:
            raise RecordError(f"{path}: schema version {version!r}, this summarizer reads {SCHEMA_VERSION}")
        try:
            record = Record.model_validate(raw)
        except ValidationError as exc:
            raise RecordError(f"{path}: {validation_message(exc, top='record')}") from None
        if (record.venue, record.id) != (path.parent.name, path.stem):
            raise RecordError(
                f"{path}: holds {clip(record.venue)}/{clip(record.id)}, but its path makes it "
                f'{path.parent.name}/{path.stem} (a record\'s path is its identity): fix "venue"/"id" in the file'
            )
        return record
