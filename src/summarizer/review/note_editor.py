"""Editing a paper's note in ``$EDITOR``: its Markdown sections, checked as human text, saved as a new version.

As for summaries (``editor``): the editor is the caller's, the record is read without the lock and
the result saved under it only if the note did not change meanwhile, and a person's words that
cannot be saved are kept in a file, never lost.  The comment at the top (and any ``ERROR`` lines
the check adds) is removed before the text is checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Unpack

from summarizer.core.config import Settings
from summarizer.core.errors import UsageError
from summarizer.core.note_rules import HEADINGS, check_human_note
from summarizer.core.report import Done
from summarizer.core.sanitize import clean_line
from summarizer.core.store import Store

from .editor import Edit, EditorOptions, keep_unsaved_text, run_editor
from .note_actions import save_note_edit

NOTE_EDIT_HELP = """\
<!-- summarizer: the note of {title}
     Edit its sections (## headings) and save to keep it as a new version (origin: human); close it unchanged
     to cancel.  The page's header and its {summary} come from the paper's record and its approved
     summary, unless the note has a ## {summary} section of its own.  This comment is not saved. -->
"""
# What the editor's text starts with and the check removes again: the help comment, ERROR lines.
_OURS = re.compile(r"\A(?:<!-- (?:summarizer|ERROR):.*?-->\n)+", re.DOTALL)

# A note to start from when the paper has none: the reference's sections, empty.
BLANK_NOTE = "".join(
    f"## {HEADINGS[key]}\n\n" for key in ("background", "method", "experiments", "highlights", "limitations")
)


@dataclass
class NoteEdit:
    """What the editor saved of a note, and which version it started from."""

    markdown: str
    base_version: int | None
    warnings: list[str] = dataclass_field(default_factory=list)


def _editor_text(title: str, markdown: str) -> str:
    help_text = NOTE_EDIT_HELP.format(title=clean_line(title).replace("--", "- -"), summary=HEADINGS["summary"])
    return help_text + markdown


def _edited_markdown(edited: str) -> str:
    return _OURS.sub("", edited)


def _with_errors(edited: str, problems: list[str]) -> str:
    errors = "".join(f"<!-- ERROR: {p.replace('--', '- -')} -->\n" for p in problems)
    return errors + edited


def edit_note_in_editor(
    settings: Settings, store: Store, venue_id: str, paper_id: str, **options: Unpack[EditorOptions]
) -> NoteEdit | None:
    """Open ``editor`` on the paper's newest note (a blank one when it has none); None when nothing changed.

    Read without the venue's lock; save the result under it with :func:`save_note_editor_result`.
    Invalid input reopens the editor with the problems on top; giving up keeps the text in a file.
    """
    record = store.load(venue_id, paper_id)
    current = record.notes.current

    def check(edited: str) -> NoteEdit:
        checked = check_human_note(_edited_markdown(edited), current.header if current else None)
        return NoteEdit(checked.markdown, current.number if current else None, checked.warnings)

    def with_errors(edited: str, problems: list[str]) -> str:
        return _with_errors(_edited_markdown(edited), problems)

    text = _editor_text(record.title, current.markdown if current else BLANK_NOTE)
    return run_editor(settings, venue_id, paper_id, Edit(text, check, with_errors, _edited_markdown), **options)


def save_note_editor_result(settings: Settings, store: Store, venue_id: str, paper_id: str, result: NoteEdit) -> Done:
    """Save what the editor produced; call locked.  A note that changed meanwhile is not overwritten:
    the edited text is kept in a file and the error names it."""
    record = store.load(venue_id, paper_id)
    now = record.notes.current.number if record.notes.current else None
    if now != result.base_version:
        path = keep_unsaved_text(settings, venue_id, paper_id, result.markdown)
        raise UsageError(
            f"the note of {venue_id}/{paper_id} changed while you were editing (now version {now}); "
            f"your text is kept in {path}; run summarizer review notes edit {venue_id}/{paper_id} again"
        )
    return save_note_edit(store, record, result.markdown, found=result.warnings)
