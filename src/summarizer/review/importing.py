"""JSONL import: summaries written elsewhere, checked line by line, then applied all together.

Every line is checked before any record is touched and every problem is
reported, each with its line number and field.  By default an import is all
or nothing; with ``skip_invalid`` the good lines go in and the others are
written, unchanged plus an ``"error"`` key, to a rejected file.

An imported version never replaces an approved or human one: on such a paper it
waits as a pending draft, whatever status the line asks for.  A line whose text
any version already holds adds nothing, so importing an export of the same
records changes no byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from summarizer.core.config import Settings
from summarizer.core.errors import ImportFileError, ImportProblems, UsageError
from summarizer.core.fsutil import atomic_create_text
from summarizer.core.ids import normalize_title, strip_version
from summarizer.core.records import Origin, Record, Status, Version
from summarizer.core.report import Report, plural
from summarizer.core.sanitize import clean_line, clean_text
from summarizer.core.store import Store

from .import_lines import CheckedLine, ImportLine, LineRejected, check_line, read_line_object
from .note_import import apply_notes_line

MAX_WARNINGS_SHOWN = 20


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
            waits = "waits as a pending draft" if self.pending == 1 else "wait as pending drafts"
            report.tail += f" ({self.pending} {waits}: the paper has an approved or human version)"
        if self.rejected:
            report.tail += f"; {self.rejected} rejected, written with their reasons to {self.rejected_path}"
        if len(self.warnings) <= MAX_WARNINGS_SHOWN:
            report.warnings = list(self.warnings)
        else:
            report.warn(
                f"{len(self.warnings)} warnings on {plural(self.warned_lines, 'line')}, kept with the versions "
                "(see: summarizer review list VENUE)"
            )
        return report


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


def _read_lines(path: Path) -> list[tuple[int, str, str | None]]:
    """(line number, line, why it cannot be read) for each line of the file.

    Lines end at ``\n`` only: U+2028 and U+2029 are text inside a line (an abstract may hold them,
    and export writes them as they are).  A line that is not UTF-8 is its own problem, with its
    number, so one bad byte does not refuse the whole file.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise ImportFileError(str(path), None, "file not found") from exc
    except OSError as exc:
        raise ImportFileError(str(path), None, f"cannot read it ({exc.strerror})") from exc
    data = data.removeprefix(b"\xef\xbb\xbf")  # a BOM, as Excel and Windows tools write it, is fine
    lines: list[tuple[int, str, str | None]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        try:
            lines.append((number, raw.decode("utf-8"), None))
        except UnicodeDecodeError as exc:
            problem = f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
            lines.append((number, raw.decode("utf-8", errors="replace"), problem))
    return lines


def parse_file(path: Path, settings: Settings, store: Store) -> ParsedFile:
    """Check every line of the file: the good ones, and every bad one with all its problems."""
    venues = {v.id for v in settings.venues}
    papers = _Papers(store)
    parsed = ParsedFile()
    for number, raw, unreadable in _read_lines(path):
        if not raw.strip():
            continue
        parsed.total += 1
        if unreadable is not None:
            parsed.bad.append((number, raw, unreadable))
            continue
        checked: CheckedLine | None = None
        try:
            checked = check_line(number, read_line_object(raw), settings, venues)
            line: ImportLine | None = checked.line
            problems: list[str] = []
        except LineRejected as exc:
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
    atomic_create_text(target, "".join(out))


def rejected_path_for(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".jsonl") + ".rejected.jsonl")


def _free_rejected_path(path: Path, named: Path | None) -> Path:
    """Where this run writes its rejected lines: never over a file it did not create.

    A path the user named must not exist yet; the default name gets a number when it does
    (``FILE.rejected.2.jsonl``), so a rejected file fixed by hand is never overwritten.
    """
    if named is not None:
        if named.exists() or named.is_symlink():
            raise UsageError(f"--rejected {named} already exists: give a new path, or move it away")
        return named
    first = rejected_path_for(path)
    candidate, n = first, 1
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = first.with_name(first.name.removesuffix(".jsonl") + f".{n}.jsonl")
    return candidate


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
    if skip_invalid and rejected_path is not None and rejected_path.resolve() == path.resolve():
        raise UsageError(f"--rejected {rejected_path} is the file being imported: give another path")
    parsed = parse_file(path, settings, store)
    if parsed.bad and not skip_invalid:
        problems = [f"{path}:{number}: {problem}" for number, _raw, problem in parsed.bad]
        raise ImportProblems(str(path), problems, parsed.total)
    result = ImportResult(rejected=len(parsed.bad))
    if parsed.bad:
        result.rejected_path = _free_rejected_path(path, rejected_path)
        _write_rejected(parsed, result.rejected_path)
    return ImportPlan(path, parsed, result)


def apply_import(plan: ImportPlan, store: Store) -> ImportResult:
    """Write the plan's good lines, all or nothing; the caller holds the locks of ``plan.venues``."""
    result = plan.result
    with store.all_or_nothing():
        for checked in plan.parsed.good:
            warnings = checked.warnings + checked.note_warnings
            if _import_line(checked, store, result) and warnings:
                result.warned_lines += 1
                result.warnings += [f"{plan.path}:{checked.number}: {w}" for w in warnings]
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
    for version in reversed(record.summaries.versions):
        if _same_text(version, summaries, tag_lists, field_id):
            return version, False
    origin: Origin = "import"
    return record.summaries.add_version(summary, tags, field_id, origin, warnings=warnings), True


def _set(model: BaseModel, attr: str, value: object, normal: Any) -> None:
    """Set a field (of the record, or of its summaries) unless it already holds the same text (cleaned the same way)."""
    old = getattr(model, attr)
    if old is None or normal(old) != value:
        setattr(model, attr, value)


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
        _set(record.summaries, "review_note", line.note or None, lambda text: clean_text(text).strip() or None)
    if record.source_type is None and line.source_type is not None:
        record.source_type, record.source_id, record.tier = line.source_type, line.source_id, line.tier


def _apply_status(record: Record, status: Status, version: Version, added: bool, is_new: bool) -> None:
    """The line's status, on a paper with no approved or human version (any other gets a pending draft)."""
    if status == "approved":
        record.summaries.approve(version.number)
    elif status == "rejected":
        record.summaries.status = "rejected"
    elif added or is_new:
        record.summaries.status = "draft"


def _import_line(checked: CheckedLine, store: Store, result: ImportResult) -> bool:
    """Apply one checked line; True when it added a version."""
    line = checked.line
    paper_id = line.record_id()
    existing = store.get(line.venue, paper_id)
    record = existing or Record(venue=line.venue, id=paper_id, title=line.title)
    protected = existing is not None and (
        existing.summaries.approved is not None or existing.summaries.has_human_version
    )
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
    if line.notes is not None:
        added = apply_notes_line(record, line.notes, checked.note_warnings, is_new=existing is None) or added
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
