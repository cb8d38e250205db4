"""Two note files for one paper: one is the paper's note, the other a note of its own, on a page of its own.

The reference site filed some papers twice (the same arXiv id under two fields, or a second write-up
whose generator gave it another paper's id), and showed each file as a page.  Here a page's title,
description and tags come from its record, and its note's header and body from one file: mixing two
files on one page is what this prevents.  Of the files that match one record, the one whose title is
the record's (then: filed under the record's field; then: first in path order) is the record's note.
Each other file becomes a record of its own in the same venue (a *companion*): its title and tags
from its own header, its summary from its own 一句话总结 (else the paper's), filed under its folder's
field when config.yaml has it (else the paper's), approved when the paper is, with the paper's
authors but no arXiv id or URL of its own: one record per arXiv id stays the rule, and an export of it
imports again as itself (an arXiv URL in a line would make it the paper).  Its note's own header links
the paper on arXiv.  Its id is
the file's name (as the reference's address was), made unique; the file's path is kept as its
``source_id``, so importing the folder again finds the same companion and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected
from summarizer.core.ids import SAFE_PAPER_ID, normalize_title, slugify
from summarizer.core.limits import TAGS
from summarizer.core.note_markdown import summary_version
from summarizer.core.note_rules import split_sections
from summarizer.core.records import Record
from summarizer.core.rules import CheckedSummary, check_human_summary
from summarizer.core.store import Store

from .note_files import Identity

SOURCE_TYPE = "note"  # a companion's source_type: the note file it was made from is its source_id


@dataclass
class Candidate:
    """What choosing among one paper's files needs of each: its path, its header's title, its folder's field."""

    path: str
    identity: Identity
    folder_field: str | None
    markdown: str


def note_first(record: Record, files: list[Candidate]) -> list[Candidate]:
    """The files of one record, the one that is its note first (its title, its field, path order)."""
    title = normalize_title(record.title)
    summary = summary_version(record)
    field = summary.field if summary else None

    def rank(c: Candidate) -> tuple[bool, bool, str]:
        same_title = c.identity.title is not None and normalize_title(c.identity.title) == title
        return (not same_title, c.folder_field != field, c.path)

    return sorted(files, key=rank)


def companion_of(
    settings: Settings, store: Store, record: Record, file: Candidate, taken: set[str]
) -> tuple[Record, list[str]]:
    """The record ``file`` is the note of: the one made from it before, else a new one; (record, warnings)."""
    for other in store.records(record.venue):
        if other.source_type == SOURCE_TYPE and other.source_id == file.path:
            return other, []
    paper_id = _free_id(PurePosixPath(file.path).stem, taken)
    taken.add(paper_id)
    companion = Record(
        venue=record.venue,
        id=paper_id,
        title=file.identity.title or record.title,
        authors=list(record.authors),
        tier=record.tier,
        source_type=SOURCE_TYPE,
        source_id=file.path,
    )
    checked, warnings = _summary(settings, record, file)
    if checked is not None:
        companion.summaries.add_version(
            checked.summary, checked.tags, checked.field, "import", warnings=checked.warnings
        )
        if record.summaries.approved is not None:
            companion.summaries.approve()
    return companion, warnings


def _free_id(stem: str, taken: set[str]) -> str:
    base = stem if SAFE_PAPER_ID.match(stem) and len(stem) <= 100 else slugify(stem)
    candidate, n = base, 2
    while candidate in taken or candidate.casefold() == "index":
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _summary(settings: Settings, record: Record, file: Candidate) -> tuple[CheckedSummary | None, list[str]]:
    """The companion's summary: its own 一句话总结 and keywords, else the paper's; (summary, warnings)."""
    paper = summary_version(record)
    field = file.folder_field if settings.field(file.folder_field or "") else (paper.field if paper else None)
    if field is None:
        return None, ["no summary (the paper has none, nor a field): it gets no page until it has one"]
    warnings: list[str] = []
    tags = file.identity.keywords or (list(paper.tags) if paper else [])
    if len(tags) > TAGS:
        warnings.append(f"{len(tags)} keywords: the first {TAGS} kept as its tags")
        tags = tags[:TAGS]
    own = next((s.body for s in split_sections(file.markdown) if s.key == "summary" and s.body.strip()), None)
    for text in (own, paper.summary if paper else None):
        if text:
            try:
                return check_human_summary(text, tags, field, settings), warnings
            except TextRejected as exc:
                warnings.append(f"its 一句话总结 is not a summary ({'; '.join(exc.problems)}): the paper's is used")
                tags = list(paper.tags) if paper else []
    return None, [*warnings, "no summary: it gets no page until it has one"]
