"""Importing notes written elsewhere: a folder of reference-style note files, each matched to its paper.

The folder holds ``VENUE/FIELD/<slug>.md`` files (any depth): a ``# Title`` and bold metadata lines
(``**arXiv**: [2506.02998](…)``), or YAML front matter (``arxiv:``, ``title:``), then ``##`` sections.
Each file is matched to a record by its arXiv id, then by its title (normalised; a title two records
share matches neither), in the venue its first folder names when config.yaml has it, else in any
configured venue.  The note is kept as written: its header (``NoteVersion.header``) and its sections
(``NoteVersion.markdown``), whose concatenation is the file's text (line endings made ``\\n``, a BOM
dropped), with its ``$ … $`` math and tables.  It is human text: refused only for what cannot be
published safely (``core.note_rules.check_human_note``), warned about otherwise.

As with JSONL imports: a version any note version of the paper already holds adds nothing (importing
the same folder twice changes no byte), and an imported note never replaces an approved or human
note; it waits as a pending draft.  Two files for the same paper are both kept, as two versions in
path order, and reported.  The front matter is read line by line (``key: value``), never as YAML.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from summarizer.core import limits
from summarizer.core.config import Settings
from summarizer.core.errors import SummaryRejected, UsageError
from summarizer.core.ids import normalize_title, parse_arxiv_id, strip_version
from summarizer.core.note_rules import CheckedNote, check_human_note, without_code
from summarizer.core.records import NoteVersion, Record
from summarizer.core.report import Report
from summarizer.core.store import Store

from .import_lines import NotesLine, NoteText

_FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---[ \t]*\n", re.DOTALL)
_FRONT_KEY = re.compile(r"^(title|arxiv)\s*:\s*(.*?)\s*$", re.MULTILINE | re.IGNORECASE)
_TITLE_LINE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_ARXIV_LINE = re.compile(r"^\*\*arXiv\*\*\s*[:：]\s*(.+)$", re.MULTILINE | re.IGNORECASE)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_SECTION_START = re.compile(r"^##[ \t]", re.MULTILINE)
MAX_WARNINGS_SHOWN = 20


@dataclass
class NoteFile:
    """One note file, read and checked: where it goes, and what is stored."""

    path: str  # relative to the imported folder, as reports name it
    venue: str
    paper_id: str
    note: CheckedNote


@dataclass
class NotesPlan:
    folder: Path
    files: list[NoteFile] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not imported)

    @property
    def venues(self) -> list[str]:
        return sorted({f.venue for f in self.files})


def split_note(text: str) -> tuple[str, str]:
    """(header, sections): the text before the first ``## `` heading outside code, and the rest, as written."""
    masked = without_code(text)
    match = _SECTION_START.search(masked)
    if match is None:
        return text, ""
    return text[: match.start()], text[match.start() :]


def _unquoted(value: str) -> str:
    return value.strip().strip("\"'").strip()


def note_identity(header: str) -> tuple[str | None, str | None]:
    """(arXiv id, title) a note's header gives (bold lines or front matter); None for what it lacks."""
    arxiv: str | None = None
    title: str | None = None
    front = _FRONT_MATTER.match(header)
    if front is not None:
        for key, value in _FRONT_KEY.findall(front.group(1)):
            if key.lower() == "arxiv":
                arxiv = parse_arxiv_id(_unquoted(value))
            else:
                title = _unquoted(value) or None
    line = _ARXIV_LINE.search(header)
    if arxiv is None and line is not None:
        target = _LINK_TARGET.search(line.group(1))
        arxiv = parse_arxiv_id(target.group(1) if target else line.group(1).strip())
    heading = _TITLE_LINE.search(header[front.end() :] if front else header)
    return arxiv, (title or (heading.group(1).strip() if heading else None))


class _Papers:
    """The configured venues' records by arXiv id and by normalised title (a shared title matches none)."""

    def __init__(self, settings: Settings, store: Store):
        self.venues = [v.id for v in settings.venues]
        self.by_arxiv: dict[str, dict[str, str]] = {}
        self.by_title: dict[str, dict[str, list[str]]] = {}
        for venue in self.venues:
            records = store.records(venue)
            self.by_arxiv[venue] = {strip_version(r.arxiv_id): r.id for r in records if r.arxiv_id}
            titles: dict[str, list[str]] = {}
            for record in records:
                titles.setdefault(normalize_title(record.title), []).append(record.id)
            self.by_title[venue] = titles

    def find(self, folder_venue: str | None, arxiv: str | None, title: str | None) -> tuple[str, str] | None:
        venues = [folder_venue] if folder_venue in self.venues else self.venues
        if arxiv is not None:
            for venue in venues:
                found = self.by_arxiv[venue].get(strip_version(arxiv))
                if found is not None:
                    return venue, found
        if title:
            matches = [(v, ids[0]) for v in venues if len(ids := self.by_title[v].get(normalize_title(title), [])) == 1]
            if len(matches) == 1:
                return matches[0]
        return None


def _read(path: Path) -> str:
    """A note file's text (UTF-8, a BOM dropped, line endings ``\\n``); ``ValueError`` saying why not."""
    with path.open("rb") as handle:
        data = handle.read(limits.NOTE_FILE + 1)
    if len(data) > limits.NOTE_FILE:
        raise ValueError(f"over {limits.NOTE_FILE:,} bytes (a note is at most {limits.NOTE:,} characters)")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _check_file(plan: NotesPlan, papers: _Papers, path: Path) -> None:
    shown = path.relative_to(plan.folder).as_posix()
    try:
        header, markdown = split_note(_read(path))
        note = check_human_note(markdown, header)
    except OSError as exc:
        plan.failures.append((shown, f"cannot read it ({exc.strerror or exc})"))
        return
    except ValueError as exc:  # SummaryRejected is one: the note's own problems
        problems = exc.problems if isinstance(exc, SummaryRejected) else [str(exc)]
        plan.failures.append((shown, "; ".join(problems)))
        return
    arxiv, title = note_identity(header)
    parts = path.relative_to(plan.folder).parts
    found = papers.find(parts[0] if len(parts) > 1 else None, arxiv, title)
    if found is None:
        said = f"arXiv {arxiv}" if arxiv else f"title {title!r}" if title else "no arXiv id or title"
        plan.failures.append((shown, f"no record of this paper ({said}): fetch or import the venue's papers first"))
        return
    plan.files.append(NoteFile(shown, found[0], found[1], note))


def check_notes(folder: Path, settings: Settings, store: Store) -> NotesPlan:
    """Read, check and match every ``*.md`` file under ``folder``; nothing is written yet."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder of note files")
    plan = NotesPlan(folder)
    papers = _Papers(settings, store)
    for path in note_files(folder):
        if path.is_symlink() or not path.is_file():
            shown = path.relative_to(folder).as_posix()
            plan.failures.append((shown, "a symbolic link or not a regular file: not followed (copy the note in)"))
            continue
        _check_file(plan, papers, path)
    return plan


def note_files(folder: Path) -> list[Path]:
    """Every ``*.md`` below ``folder``, in name order; links to folders are not followed out of it."""
    found = [
        Path(parent, name)
        for parent, _folders, names in os.walk(folder)  # a link to a folder is listed, not entered
        for name in names
        if name.endswith(".md")
    ]
    return sorted(found)


def _import_one(record: Record, note_file: NoteFile) -> bool:
    """Add the file's note to ``record`` unless a version holds it already; True when one was added."""
    note = note_file.note
    if any(v.same_content(note.markdown, note.header, "dollar") for v in record.notes.versions):
        return False
    protected = record.notes.approved is not None or record.notes.has_human_version
    record.notes.add_version(note.markdown, "import", header=note.header, math="dollar", warnings=note.warnings)
    if not protected:
        record.notes.status = "draft"  # a rejected note whose paper gets a new imported note is back in review
    return True


def apply_notes(plan: NotesPlan, store: Store) -> Report:
    """Store the plan's notes, all together; the caller holds the locks of ``plan.venues``."""
    report = Report("import", str(plan.folder), per_paper=False)
    by_paper: dict[tuple[str, str], list[NoteFile]] = {}
    for note_file in plan.files:
        by_paper.setdefault((note_file.venue, note_file.paper_id), []).append(note_file)
    warnings: list[str] = []
    with store.all_or_nothing():
        for (venue, paper_id), files in by_paper.items():
            record = store.load(venue, paper_id)
            added = [f for f in files if _import_one(record, f)]
            store.save(record)
            report.count("notes imported", len(added))
            report.count("unchanged", len(files) - len(added))
            if len(files) > 1:
                names = ", ".join(f.path for f in files)
                report.warn(f"{venue}/{paper_id}: {len(files)} files are this paper ({names}): each kept as a version")
            warnings += [f"{f.path}: {w}" for f in added for w in f.note.warnings]
    if len(warnings) <= MAX_WARNINGS_SHOWN:
        report.warnings += warnings
    else:
        report.warn(f"{len(warnings)} warnings, kept with the notes (see: summarizer review notes list VENUE)")
    for shown, reason in plan.failures:
        report.fail(shown, reason)
    return report


# -- a note in a JSONL line (``export`` writes it) ----------------------------------------------------------


def _ensure_note(record: Record, text: NoteText, warnings: list[str]) -> tuple[NoteVersion, bool]:
    """The note version holding this text; added (origin import) when none does.  (version, added)"""
    for version in reversed(record.notes.versions):
        if version.same_content(text.markdown, text.header, text.math):
            return version, False
    added = record.notes.add_version(text.markdown, "import", header=text.header, math=text.math, warnings=warnings)
    return added, True


def apply_notes_line(record: Record, line: NotesLine, warnings: list[str], *, is_new: bool) -> bool:
    """A JSONL line's note on ``record``, as a summary's line is applied; True when a version was added.

    The line's status applies to a paper whose note has no approved or human version; on any other
    the imported note waits as a pending draft.  Importing an export of the same records changes nothing.
    """
    notes = record.notes
    protected = notes.approved is not None or notes.has_human_version
    version, added = _ensure_note(record, line, [w for w in warnings if not w.startswith("notes.pending")])
    if not protected:
        if line.status == "approved":
            notes.approve(version.number)
        elif line.status == "rejected":
            notes.status = "rejected"
        elif added or is_new:
            notes.status = "draft"
        if line.note is not None:
            notes.review_note = line.note or None
    if notes.code_url is None and line.code_url is not None:
        notes.code_url = line.code_url
    if line.pending is not None:
        pending_warnings = [w for w in warnings if w.startswith("notes.pending")]
        added = _ensure_note(record, line.pending, pending_warnings)[1] or added
    return added
