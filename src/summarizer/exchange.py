"""JSONL import and export: summaries written elsewhere, and summaries taken elsewhere.

One paper a line::

    {"venue", "title", "summary", "tags", "field", "status"?, "id"?, "url"?,
     "arxiv_id"?, "authors"?, "abstract"?, "note"?, "pending"?}

Every line is checked before any record is touched and every problem is
reported, each with its line number and field.  By default an import is all
or nothing; with ``skip_invalid`` the good lines go in and the others are
written, unchanged plus an ``"error"`` key, to a rejected file.

Imported text is human text (README, "Human text is judged as human text"):
hard errors only for what cannot be published safely or placed, everything
else is a warning kept with the version.  An imported version never replaces
an approved or human one: on such a paper it waits as a pending draft,
whatever status the line asks for.  A line whose text any version already
holds adds nothing, so importing an export of the same records changes no byte.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from .checks import (
    MAX_ABSTRACT_CHARS,
    MAX_AUTHORS,
    MAX_NOTE_CHARS,
    MAX_TITLE_CHARS,
    MAX_URL_CHARS,
    SummaryRejected,
    check_human_summary,
)
from .config import Settings
from .errors import ImportFileError, UsageError
from .fsutil import atomic_write_text
from .ids import is_safe_paper_id, normalize_title, paper_id, parse_arxiv_id, strip_version
from .report import Report
from .store import Origin, Record, Status, Store, Version
from .texguard import unsafe_tex_commands
from .textsafe import clean_line, clean_text
from .validation import validation_problems

EXPORT_KEYS = (
    "venue", "id", "title", "summary", "tags", "field", "status",
    "arxiv_id", "url", "authors", "abstract", "note",
)  # fmt: skip
IGNORED_KEYS = ("error",)  # a rejected file's reason: a fixed rejected file imports as it is
SHOWN_CHARS = 60
MAX_WARNINGS_SHOWN = 20


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


SOURCE_KEYS = ("source_type", "source_id", "tier")  # exported when the record came from a venue source
MAX_SOURCE_CHARS = 200  # what a source's id is cut to when fetched


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
    # Where the paper came from (export writes them).  Import keeps them on a record that has none,
    # so an export loaded into an empty project still says where each paper came from; a record
    # `fetch` has met keeps what its source said.
    source_type: str | None = None
    source_id: str | None = None
    tier: str | None = None

    @field_validator(*SOURCE_KEYS)
    @classmethod
    def _provenance(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = clean_line(value)
        if len(value) > MAX_SOURCE_CHARS:
            raise ValueError(f"{len(value)} characters (at most {MAX_SOURCE_CHARS})")
        return value or None

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        value = clean_line(value)
        if not value:
            raise ValueError("the title is empty")
        if len(value) > MAX_TITLE_CHARS:
            raise ValueError(f"{len(value)} characters (at most {MAX_TITLE_CHARS})")
        unsafe = unsafe_tex_commands(value)
        if unsafe:
            raise ValueError(f"unsafe TeX {', '.join(unsafe)}")
        return value

    @field_validator("authors")
    @classmethod
    def _authors(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        names = [name for name in map(clean_line, value) if name]
        if len(names) > MAX_AUTHORS:
            raise ValueError(f"{len(names)} names (at most {MAX_AUTHORS})")
        long = next((name for name in names if len(name) > MAX_TITLE_CHARS), None)
        if long is not None:
            raise ValueError(f"a name of {len(long)} characters (at most {MAX_TITLE_CHARS})")
        return names

    @field_validator("abstract", "note")
    @classmethod
    def _multiline(cls, value: str | None, info: Any) -> str | None:
        if value is None:
            return None
        value = clean_text(value).strip()
        limit = MAX_ABSTRACT_CHARS if info.field_name == "abstract" else MAX_NOTE_CHARS
        if len(value) > limit:
            raise ValueError(f"{len(value)} characters (at most {limit})")
        return value

    @field_validator("arxiv_id")
    @classmethod
    def _arxiv_id(cls, value: str | None) -> str | None:
        if value in (None, ""):
            return None
        parsed = parse_arxiv_id(value)
        if parsed is None:
            raise ValueError(f"not an arXiv id: {shown(value)}")
        return parsed

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
        if value in (None, ""):
            return None
        value = value.strip()
        if len(value) > MAX_URL_CHARS or not re.match(r"^https?://\S+$", value, re.IGNORECASE):
            raise ValueError(f"not an http(s) URL: {shown(value)}")
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
class CheckedLine:
    """A valid line, its summaries as checked (and the text as written, to find a version that holds it)."""

    number: int
    line: ImportLine
    raw: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    pending_warnings: list[str] = field(default_factory=list)


@dataclass
class ParsedFile:
    good: list[CheckedLine] = field(default_factory=list)
    bad: list[tuple[int, str, str]] = field(default_factory=list)  # (line number, line as written, problem)
    total: int = 0


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    pending: int = 0  # lines that wait as pending drafts: the paper has an approved or human version
    rejected: int = 0
    rejected_path: Path | None = None
    warnings: list[str] = field(default_factory=list)
    warned_lines: int = 0

    def report(self, path: Path) -> Report:
        """``import FILE: N created, N updated, N unchanged`` with the warnings (each, or their count if many)."""
        report = Report("import", str(path), per_paper=False)
        for key in ("created", "updated", "unchanged"):
            report.count(key, getattr(self, key))
        if self.pending:
            report.tail += f" ({self.pending} wait as pending drafts: the paper has an approved or human version)"
        if self.rejected:
            report.tail += f"; {self.rejected} rejected, written with their reasons to {self.rejected_path}"
        if len(self.warnings) <= MAX_WARNINGS_SHOWN:
            report.warnings = list(self.warnings)
        else:
            report.warn(
                f"{len(self.warnings)} warnings on {self.warned_lines} lines, kept with the versions "
                "(see: summarizer review list VENUE)"
            )
        return report


class ImportProblems(ImportFileError):
    """Some lines are bad: ``problems`` lists every one (``FILE:LINE: field: rule``); nothing was imported."""

    def __init__(self, file: str, problems: list[str], total: int):
        self.problems = problems
        verb = "has" if len(problems) == 1 else "have"
        super().__init__(
            file,
            None,
            f"{len(problems)} of {total} lines {verb} problems (listed above); "
            "fix them, or import the others with --skip-invalid",
        )


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


class _LineRejected(SummaryRejected):
    """A bad line; ``line`` is the parsed line when its keys were readable (to find duplicates still)."""

    def __init__(self, problems: list[str], line: ImportLine | None = None):
        self.line = line
        super().__init__(problems)


def _read_object(raw: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise _LineRejected([f"not valid JSON ({exc.msg})"]) from None
    if not isinstance(data, dict):
        raise _LineRejected(["each line must be a JSON object"])
    return data


def _check_line(number: int, data: dict[str, Any], settings: Settings, venues: set[str]) -> CheckedLine:
    """Validate one line; _LineRejected lists every problem it has, each naming its field."""
    fields = {k: v for k, v in data.items() if k not in IGNORED_KEYS}
    try:
        line = ImportLine.model_validate(fields)
    except ValidationError as exc:
        raise _LineRejected(validation_problems(exc, top="line")) from None
    problems: list[str] = []
    if line.venue not in venues:
        problems.append(f"venue: unknown venue {shown(line.venue)} (add it to config.yaml)")
    checked = CheckedLine(number, line, data)
    try:
        human = check_human_summary(line.summary, line.tags, line.field, settings)
        line.summary, line.tags, checked.warnings = human.summary, human.tags, human.warnings
    except SummaryRejected as exc:
        problems += exc.problems
    if line.pending is not None:
        try:
            human = check_human_summary(line.pending.summary, line.pending.tags, line.pending.field, settings)
            line.pending.summary, line.pending.tags = human.summary, human.tags
            checked.pending_warnings = human.warnings
        except SummaryRejected as exc:
            problems += [f"pending.{p}" for p in exc.problems]
    if problems:
        raise _LineRejected(problems, line)
    return checked


class _Papers:
    """The papers seen so far in the file: the same paper twice in one venue is one record."""

    def __init__(self, store: Store):
        self.titles = _TitleIndex(store)
        self.seen: dict[tuple[str, str, str], int] = {}

    def duplicate(self, number: int, line: ImportLine) -> str | None:
        """The problem when an earlier line holds this paper; else remember the line and return None."""
        if line.id is None and line.arxiv_id is None:
            line.id = self.titles.find(line.venue, line.title)  # the paper fetched from arXiv, not a twin
        keys = [(line.venue, "record", line.record_id())]
        if line.arxiv_id:
            keys.append((line.venue, "arxiv", strip_version(line.arxiv_id)))
        else:
            keys.append((line.venue, "title", normalize_title(line.title)))
        first = next((self.seen[key] for key in keys if key in self.seen), None)
        if first is not None:
            return f"the same paper as line {first} ({line.venue}/{line.record_id()}): one record per paper"
        self.seen.update(dict.fromkeys(keys, number))
        return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")  # a BOM, as Excel and Windows tools write it, is fine
    except FileNotFoundError:
        raise ImportFileError(str(path), None, "file not found") from None
    except UnicodeDecodeError:
        raise ImportFileError(str(path), None, "not UTF-8 text") from None
    except OSError as exc:
        raise ImportFileError(str(path), None, f"cannot read it ({exc.strerror})") from None


def parse_file(path: Path, settings: Settings, store: Store) -> ParsedFile:
    """Check every line of the file: the good ones, and every bad one with all its problems."""
    venues = {v.id for v in settings.venues}
    papers = _Papers(store)
    parsed = ParsedFile()
    for number, raw in enumerate(_read_text(path).splitlines(), start=1):
        if not raw.strip():
            continue
        parsed.total += 1
        checked: CheckedLine | None = None
        try:
            checked = _check_line(number, _read_object(raw), settings, venues)
            line: ImportLine | None = checked.line
            problems: list[str] = []
        except _LineRejected as exc:
            line, problems = exc.line, list(exc.problems)
        duplicate = papers.duplicate(number, line) if line is not None else None
        if duplicate:
            problems.append(duplicate)
        if problems or checked is None:
            parsed.bad.append((number, raw, "; ".join(problems)))
        else:
            parsed.good.append(checked)
    return parsed


def _write_rejected(parsed: ParsedFile, target: Path) -> None:
    """Each rejected line as written, plus an ``"error"`` key (a line that is no JSON object goes under ``"text"``)."""
    out = []
    for number, raw, problem in parsed.bad:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            data = None
        row = dict(data) if isinstance(data, dict) else {"text": raw}
        row["error"] = f"line {number}: {problem}"
        out.append(json.dumps(row, ensure_ascii=False) + "\n")
    atomic_write_text(target, "".join(out))


def rejected_path_for(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".jsonl") + ".rejected.jsonl")


@dataclass
class ImportPlan:
    """A checked file: what ``apply_import`` writes once the caller holds the locks of ``venues``."""

    path: Path
    parsed: ParsedFile
    result: ImportResult

    @property
    def venues(self) -> list[str]:
        return sorted({checked.line.venue for checked in self.parsed.good})


def check_import(
    path: Path,
    settings: Settings,
    store: Store,
    *,
    skip_invalid: bool = False,
    rejected_path: Path | None = None,
) -> ImportPlan:
    """Check every line; nothing is imported yet.

    Any bad line raises ImportProblems unless ``skip_invalid``: then the bad lines go
    to ``rejected_path`` (default ``FILE.rejected.jsonl``) and the plan holds the rest.
    """
    target = rejected_path or rejected_path_for(path)
    if skip_invalid and target.resolve() == path.resolve():
        raise UsageError(f"--rejected {target} is the file being imported: give another path")
    parsed = parse_file(path, settings, store)
    if parsed.bad and not skip_invalid:
        problems = [f"{path}:{number}: {problem}" for number, _raw, problem in parsed.bad]
        raise ImportProblems(str(path), problems, parsed.total)
    result = ImportResult(rejected=len(parsed.bad))
    if parsed.bad:
        result.rejected_path = target
        _write_rejected(parsed, result.rejected_path)
    return ImportPlan(path, parsed, result)


def apply_import(plan: ImportPlan, store: Store) -> ImportResult:
    """Write the plan's good lines, all or nothing; the caller holds the locks of ``plan.venues``."""
    result = plan.result
    with store.all_or_nothing():
        for checked in plan.parsed.good:
            if _import_line(checked, store, result) and checked.warnings:
                result.warned_lines += 1
                result.warnings += [f"{plan.path}:{checked.number}: {w}" for w in checked.warnings]
    return result


def _same_text(version: Version, summaries: set[str], tags: list[list[str]], field_id: str) -> bool:
    return version.summary in summaries and version.tags in tags and version.field == field_id


def _ensure_version(
    record: Record, checked: tuple[str, list[str], str], raw: dict[str, Any], warnings: list[str]
) -> tuple[Version, bool]:
    """The version holding this text (as checked, or exactly as written); added (origin import) when none does."""
    summary, tags, field_id = checked
    raw_tags = raw.get("tags")
    summaries = {summary, raw["summary"]} if isinstance(raw.get("summary"), str) else {summary}
    tag_lists = [tags, raw_tags] if isinstance(raw_tags, list) else [tags]
    for version in reversed(record.versions):
        if _same_text(version, summaries, tag_lists, field_id):
            return version, False
    origin: Origin = "import"
    return record.add_version(summary, tags, field_id, origin, warnings=warnings), True


def _set(record: Record, attr: str, value: object, normal: Any) -> None:
    """Set a metadata field unless the record already holds the same text (cleaned the same way)."""
    old = getattr(record, attr)
    if old is None or normal(old) != value:
        setattr(record, attr, value)


def _apply_import_metadata(record: Record, line: ImportLine) -> None:
    _set(record, "title", line.title, clean_line)
    if line.url is not None:
        record.url = line.url
    if line.arxiv_id is not None:
        record.arxiv_id = line.arxiv_id
    if line.authors is not None:
        _set(record, "authors", line.authors, lambda names: [n for n in map(clean_line, names) if n])
    if line.abstract is not None:
        _set(record, "abstract", line.abstract, lambda text: clean_text(text).strip())
    if line.note is not None:
        _set(record, "note", line.note or None, lambda text: clean_text(text).strip() or None)
    if record.source_type is None and line.source_type is not None:
        record.source_type, record.source_id, record.tier = line.source_type, line.source_id, line.tier


def _apply_status(record: Record, status: Status, version: Version, added: bool, is_new: bool) -> None:
    """The line's status, on a paper with no approved or human version (any other gets a pending draft)."""
    if status == "approved":
        record.approve(version.number)
    elif status == "rejected":
        record.status = "rejected"
    elif added or is_new:
        record.status = "draft"


def _import_line(checked: CheckedLine, store: Store, result: ImportResult) -> bool:
    """Apply one checked line; True when it added a version."""
    line = checked.line
    pid = line.record_id()
    existing = store.get(line.venue, pid)
    record = existing or Record(venue=line.venue, id=pid, title=line.title)
    protected = existing is not None and (existing.approved is not None or existing.has_human_version)
    _apply_import_metadata(record, line)
    version, added = _ensure_version(record, (line.summary, line.tags, line.field), checked.raw, checked.warnings)
    if not protected:
        _apply_status(record, line.status, version, added, existing is None)
    if line.pending is not None:
        pending = (line.pending.summary, line.pending.tags, line.pending.field)
        raw_pending = checked.raw.get("pending")
        _, added_pending = _ensure_version(
            record, pending, raw_pending if isinstance(raw_pending, dict) else {}, checked.pending_warnings
        )
        added = added or added_pending
    written = store.save(record)
    if existing is None:
        result.created += 1
    elif written:
        result.updated += 1
        if protected and added:
            result.pending += 1
    else:
        result.unchanged += 1
    return added


def export_line(record: Record) -> dict[str, object] | None:
    """The import-format line for a record (its published version, and a pending draft); None without a summary."""
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
    pending = record.current if record.has_pending_draft else None
    if pending is not None:
        line["pending"] = {"summary": pending.summary, "tags": pending.tags, "field": pending.field}
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
