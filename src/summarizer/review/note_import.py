"""Importing notes written elsewhere: a folder of reference-style note files, each matched to its paper.

The folder holds ``VENUE/FIELD/<slug>.md`` files (any depth), read by ``note_files``.  Each file is
matched to a record by its arXiv id, then by its title (normalised), in the venue its first folder
names when config.yaml has it, else in any configured venue.  A title two records share is
*ambiguous*: the file's folder (``VENUE/FIELD/``) decides when one of them is filed under that field,
else the file is refused, naming both.  A file that is not a note (``index.md``, ``TODO.md``) is
skipped and counted, not failed: the exit code says only what could not be imported.

The note is kept as written: its header (``NoteVersion.header``) and its sections
(``NoteVersion.markdown``), whose concatenation is the file's text (line endings made ``\\n``, a BOM
dropped), with its ``$ … $`` math and tables, except what the import mends and says: control
characters (lost TeX backslashes restored, others removed) and relative links (``note_links``: to the
paper pages they mean, else text).  It is human text: refused only for what cannot be published
safely (``core.note_rules.check_human_note``), warned about otherwise.

As with JSONL imports: a version any note version of the paper already holds adds nothing (importing
the same folder twice changes no byte), and an imported note never replaces an approved or human
note; it waits as a pending draft.  Two files for the same paper never mix on one page: one is the
paper's note, each other one a note of its own on a page of its own (``note_companions``), reported.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected, UsageError
from summarizer.core.ids import normalize_title, strip_version
from summarizer.core.note_markdown import summary_version
from summarizer.core.note_rules import CheckedNote
from summarizer.core.records import NoteVersion, Record
from summarizer.core.report import Report
from summarizer.core.store import Store

from .import_lines import NotesLine, NoteText
from .note_companions import Candidate, companion_of, note_first
from .note_files import Identity, NotANote, read_note
from .note_links import Page, Rewriter

MAX_WARNINGS_SHOWN = 20
MAX_LINKS_SHOWN = 20
MAX_SKIPPED_SHOWN = 10


@dataclass
class NoteFile:
    """One note file, read and checked: where it goes, and what is stored."""

    path: str  # relative to the imported folder, as reports name it
    venue: str
    paper_id: str
    note: CheckedNote
    identity: Identity = field(default_factory=Identity)
    folder_field: str | None = None  # the FIELD of VENUE/FIELD/<slug>.md


@dataclass
class NotesPlan:
    folder: Path
    settings: Settings
    papers: _Papers
    files: list[NoteFile] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not imported)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why it is not a note)

    @property
    def venues(self) -> list[str]:
        return sorted({f.venue for f in self.files})


class Ambiguous(LookupError):
    """A title more than one record has: ``keys`` names them (``VENUE/ID``)."""

    def __init__(self, keys: list[str]):
        super().__init__(", ".join(keys))
        self.keys = keys


class _Papers:
    """The configured venues' records by arXiv id and by normalised title, and each one's page."""

    def __init__(self, settings: Settings, store: Store):
        self.venues = [v.id for v in settings.venues]
        self.by_arxiv: dict[str, dict[str, str]] = {}
        self.by_title: dict[str, dict[str, list[str]]] = {}
        self.fields: dict[tuple[str, str], str | None] = {}
        for venue in self.venues:
            records = store.records(venue)
            self.by_arxiv[venue] = {strip_version(r.arxiv_id): r.id for r in records if r.arxiv_id}
            titles: dict[str, list[str]] = {}
            for record in records:
                titles.setdefault(normalize_title(record.title), []).append(record.id)
                summary = summary_version(record)
                self.fields[(venue, record.id)] = summary.field if summary else None
            self.by_title[venue] = titles

    def find(
        self, folder_venue: str | None, arxiv: str | None, title: str | None, folder_field: str | None = None
    ) -> tuple[str, str] | None:
        """(venue, paper id) of the paper; None when there is none; ``Ambiguous`` when its title is several's."""
        venues = [folder_venue] if folder_venue in self.venues else self.venues
        if arxiv is not None:
            for venue in venues:
                found = self.by_arxiv[venue].get(strip_version(arxiv))
                if found is not None:
                    return venue, found
        if not title:
            return None
        key = normalize_title(title)
        matches = [(v, paper_id) for v in venues for paper_id in self.by_title[v].get(key, [])]
        if len(matches) > 1:
            filed_here = [m for m in matches if folder_field is not None and self.fields.get(m) == folder_field]
            if len(filed_here) != 1:
                raise Ambiguous([f"{v}/{paper_id}" for v, paper_id in matches])
            matches = filed_here
        return matches[0] if matches else None

    def page(self, venue: str, paper_id: str) -> Page | None:
        field_id = self.fields.get((venue, paper_id))
        return Page(venue, field_id, paper_id) if field_id else None

    def find_page(self, arxiv: str | None, title: str | None) -> Page | None:
        """A link's paper, by arXiv id or by a title only one record has (any venue)."""
        try:
            found = self.find(None, arxiv, title)
        except Ambiguous:
            return None
        return self.page(*found) if found else None


def _check_file(plan: NotesPlan, path: Path) -> None:
    shown = path.relative_to(plan.folder).as_posix()
    try:
        read = read_note(path)
    except NotANote as exc:
        plan.skipped.append((shown, str(exc)))
        return
    except OSError as exc:
        plan.failures.append((shown, f"cannot read it ({exc.strerror or exc})"))
        return
    except ValueError as exc:  # TextRejected is one: the note's own problems
        problems = exc.problems if isinstance(exc, TextRejected) else [str(exc)]
        plan.failures.append((shown, "; ".join(problems)))
        return
    parts = path.relative_to(plan.folder).parts
    venue, folder_field = (parts[0] if len(parts) > 1 else None), (parts[1] if len(parts) > 2 else None)
    identity = read.identity
    try:
        found = plan.papers.find(venue, identity.arxiv, identity.title, folder_field)
    except Ambiguous as exc:
        plan.failures.append((shown, f"ambiguous: its title is the title of {' and '.join(exc.keys)}; "
                              "add its **arXiv** line, or file it under its paper's field"))  # fmt: skip
        return
    if found is None:
        arxiv, title = identity.arxiv, identity.title
        said = f"arXiv {arxiv}" if arxiv else f"title {title!r}" if title else "no arXiv id or title"
        plan.failures.append((shown, f"no record of this paper ({said}): fetch or import the venue's papers first"))
        return
    plan.files.append(NoteFile(shown, found[0], found[1], read.note, identity, folder_field))


def check_notes(folder: Path, settings: Settings, store: Store) -> NotesPlan:
    """Read, check and match every ``*.md`` file under ``folder``; nothing is written yet."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder of note files")
    plan = NotesPlan(folder, settings, _Papers(settings, store))
    for path in note_files(folder):
        if path.is_symlink() or not path.is_file():
            shown = path.relative_to(folder).as_posix()
            plan.failures.append((shown, "a symbolic link or not a regular file: not followed (copy the note in)"))
            continue
        _check_file(plan, path)
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


def _import_one(record: Record, note: CheckedNote) -> bool:
    """Add ``note`` to ``record`` unless a version holds it already; True when one was added."""
    if any(v.same_content(note.markdown, note.header, "dollar") for v in record.notes.versions):
        return False
    protected = record.notes.approved is not None or record.notes.has_human_version
    record.notes.add_version(note.markdown, "import", header=note.header, math="dollar", warnings=note.warnings)
    if not protected:
        record.notes.status = "draft"  # a rejected note whose paper gets a new imported note is back in review
    return True


def _candidate(f: NoteFile) -> Candidate:
    return Candidate(f.path, f.identity, f.folder_field, f.note.markdown)


def _placed(plan: NotesPlan, store: Store, report: Report) -> list[tuple[Record, NoteFile]]:
    """Each file with the record it is the note of: a paper's other files become companions, reported."""
    by_paper: dict[tuple[str, str], list[NoteFile]] = {}
    for note_file in plan.files:
        by_paper.setdefault((note_file.venue, note_file.paper_id), []).append(note_file)
    placed: list[tuple[Record, NoteFile]] = []
    taken: dict[str, set[str]] = {}
    for (venue, paper_id), files in by_paper.items():
        record = store.load(venue, paper_id)
        if len(files) == 1:
            placed.append((record, files[0]))
            continue
        by_path = {f.path: f for f in files}
        first, *others = (by_path[c.path] for c in note_first(record, [_candidate(f) for f in files]))
        placed.append((record, first))
        ids = taken.setdefault(venue, {r.id for r in store.records(venue)})
        for other in others:
            companion, warnings = companion_of(plan.settings, store, record, _candidate(other), ids)
            store.save(companion)
            summary = summary_version(companion)
            field_id = plan.papers.fields[(venue, companion.id)] = summary.field if summary else None
            where = f"{venue}/{field_id}/{companion.id}" if field_id else f"{venue}/{companion.id} (no page yet)"
            report.warn(
                f"{venue}/{paper_id}: {len(files)} files are this paper: {first.path} is its note; {other.path} is "
                f"a note of its own, {where} (to drop it: summarizer review reject {venue}/{companion.id} --reason …)"
            )
            report.warnings += [f"{other.path}: {w}" for w in warnings]
            placed.append((companion, other))
    return placed


def _with_links(rewriter: Rewriter, note_file: NoteFile) -> tuple[CheckedNote, list[str]]:
    note = note_file.note
    markdown, done = rewriter.rewrite(note.markdown, note_file.path)
    header, done_header = rewriter.rewrite(note.header, note_file.path) if note.header else (note.header, [])
    if not done and not done_header:
        return note, []
    said = [f"{len(done) + len(done_header)} relative link(s) rewritten to paper pages or made text"]
    return CheckedNote(markdown, header, said + note.warnings), done_header + done


def apply_notes(plan: NotesPlan, store: Store) -> Report:
    """Store the plan's notes, all together; the caller holds the locks of ``plan.venues``."""
    report = Report("import", str(plan.folder), per_paper=False)
    report.counts = {"notes imported": 0, "unchanged": 0}
    warnings: list[str] = []
    links: list[str] = []
    with store.all_or_nothing():
        placed = _placed(plan, store, report)
        pages = {f.path: plan.papers.page(record.venue, record.id) for record, f in placed}
        rewriter = Rewriter({path: page for path, page in pages.items() if page}, plan.papers.find_page)
        for record, note_file in placed:
            note, done = _with_links(rewriter, note_file)
            added = _import_one(record, note)
            store.save(record)
            report.count("notes imported" if added else "unchanged")
            if added:  # a note imported before: its links and warnings were said then
                links += done
                warnings += [f"{note_file.path}: {w}" for w in note.warnings]
    _finish(report, plan, warnings, links)
    return report


def _finish(report: Report, plan: NotesPlan, warnings: list[str], links: list[str]) -> None:
    """The report's counts and lines past the notes: links rewritten, files skipped, warnings, failures."""
    if links:
        report.count("links rewritten", len(links))
        report.details += [f"  {line}" for line in links[:MAX_LINKS_SHOWN]]
        if len(links) > MAX_LINKS_SHOWN:
            report.details.append(f"  … and {len(links) - MAX_LINKS_SHOWN} more links")
    if plan.skipped:
        report.count("skipped (not notes)", len(plan.skipped))
        report.details += [f"  skipped {path}: {why}" for path, why in plan.skipped[:MAX_SKIPPED_SHOWN]]
        if len(plan.skipped) > MAX_SKIPPED_SHOWN:
            report.details.append(f"  … and {len(plan.skipped) - MAX_SKIPPED_SHOWN} more files that are not notes")
    if len(warnings) <= MAX_WARNINGS_SHOWN:
        report.warnings += warnings
    else:
        report.warn(f"{len(warnings)} warnings, kept with the notes (see: summarizer review notes list VENUE)")
    for shown, reason in plan.failures:
        report.fail(shown, reason)


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
