"""Editing a summary in ``$EDITOR``: the text as YAML, checked as human text, saved as a new version.

The editor itself is the caller's (the CLI passes one that opens ``$EDITOR``): this module only
builds the text, checks what comes back, and keeps a person's words in a file whenever they cannot
be saved, so no typed text is ever lost.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Generic, NotRequired, TypedDict, TypeVar, Unpack

import yaml

from summarizer.core.config import Settings
from summarizer.core.errors import TextRejected, UsageError
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.records import Record, now_iso
from summarizer.core.report import Done
from summarizer.core.rules import CheckedSummary, check_human_summary
from summarizer.core.sanitize import clean_line
from summarizer.core.store import Store

from .actions import TAG_SEPARATORS, save_edit

# Opens an editor on a text; the edited text, or None when it was closed without saving.
Editor = Callable[[str], "str | None"]

EDITOR_ROUNDS = 5  # invalid saves before the editor gives up (and keeps the text in a file)
R = TypeVar("R")


EDIT_HELP = """\
# Edit the summary, tags and field of: {title}
# Save and close to keep it as a new version (origin: human); leave it unchanged to cancel.
# field: one of {fields}
"""


TAGS_TYPE_ERROR = "tags must be a list, e.g. [LLM, 推理]"


@dataclass
class SummaryEdit:
    """What the editor saved of a summary, and which version it started from."""

    summary: str
    tags: list[str]
    field: str
    base_version: int | None
    warnings: list[str] = dataclass_field(default_factory=list)  # found while checking (e.g. lines joined), kept


def _tags_from_yaml(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):  # `tags: LLM` or `tags: LLM, 推理`
        return [t for t in (part.strip() for part in TAG_SEPARATORS.split(value)) if t]
    if isinstance(value, list) and all(isinstance(t, str | int | float) and not isinstance(t, bool) for t in value):
        return [str(t) for t in value]
    raise TextRejected([TAGS_TYPE_ERROR])


def _parse_edited(edited: str, settings: Settings) -> CheckedSummary:
    """The saved editor text, checked as human text; TextRejected lists every problem."""
    try:
        data = yaml.safe_load(edited)
    except yaml.YAMLError as exc:
        raise TextRejected([f"not valid YAML: {str(exc).splitlines()[0]}"]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise TextRejected(["expected the keys summary, tags and field"])
    problems: list[str] = []
    summary, field = data.get("summary"), data.get("field")
    summary = "" if summary is None else summary  # an empty key: the check names what is missing
    field = "" if field is None else field
    if not isinstance(summary, str):
        problems.append("summary must be text (one paragraph on one line), not a number or a list")
    if not isinstance(field, str):
        problems.append("field must be one field id (text), e.g. " + (settings.field_ids() or ["llm_pretraining"])[0])
    try:
        tags = _tags_from_yaml(data.get("tags"))
    except TextRejected as exc:
        problems.extend(exc.problems)
        tags = []
    if problems or not isinstance(summary, str) or not isinstance(field, str):
        raise TextRejected(problems)
    return check_human_summary(summary, tags, field, settings)


def _with_errors(edited: str, problems: list[str]) -> str:
    kept = "\n".join(line for line in edited.splitlines() if not line.startswith("# ERROR"))
    return "".join(f"# ERROR: {p}\n" for p in problems) + kept + "\n"


def keep_unsaved_text(settings: Settings, venue_id: str, paper_id: str, text: str) -> Path:
    """Save an edit that could not be stored, so no typed text is lost; returns where it went."""
    name = f"{venue_id}_{paper_id}_{now_iso().replace(':', '')}.yaml"
    for folder in (settings.outputs_dir / "unsaved-edits", Path(tempfile.gettempdir())):
        try:
            atomic_write_text(folder / name, text)
            return folder / name
        except OSError:
            continue
    raise UsageError(f"could not save your text anywhere; here it is:\n{text}")


class EditorOptions(TypedDict):
    """How the editor is opened: ``editor`` opens it; ``tell`` says a problem while the person is at the terminal."""

    editor: Editor
    tell: NotRequired[Callable[[str], None]]


@dataclass
class Edit(Generic[R]):
    """One kind of text in the editor (a summary, a note): what it opens on, and what is made of what comes back."""

    text: str
    check: Callable[[str], R]  # the edited text, checked (TextRejected lists every problem)
    with_errors: Callable[[str, list[str]], str]  # the edited text again, with the problems on top
    typed: Callable[[str], str] = str  # a person's own words in an editor text: what a file keeps when unsaved


def run_editor(
    settings: Settings, venue_id: str, paper_id: str, edit: Edit[R], **options: Unpack[EditorOptions]
) -> R | None:
    """Open the editor on ``edit.text`` until what comes back passes ``edit.check``; None when nothing changed.

    Invalid input reopens the editor with the problems noted at the top (and said through ``tell``);
    closing it without saving, or EDITOR_ROUNDS invalid saves, keeps the text in a file whose path the
    raised UsageError names.
    """
    editor, tell = options["editor"], options.get("tell", lambda _: None)
    text = edit.text
    problems: list[str] = []
    for _round in range(EDITOR_ROUNDS):
        edited = editor(text)
        if edited is None or edited == text:
            if not problems:
                return None  # closed before anything was typed: nothing to keep
            path = keep_unsaved_text(settings, venue_id, paper_id, edit.typed(text))
            raise UsageError(f"edit cancelled, nothing saved ({'; '.join(problems)}); your text is in {path}")
        try:
            return edit.check(edited)
        except TextRejected as exc:
            problems = exc.problems
            tell("not saved: " + "; ".join(problems))
            text = edit.with_errors(edited, problems)
    path = keep_unsaved_text(settings, venue_id, paper_id, edit.typed(text))
    raise UsageError(f"edit not saved after {EDITOR_ROUNDS} tries ({'; '.join(problems)}); your text is in {path}")


def edit_in_editor(
    settings: Settings, store: Store, venue_id: str, paper_id: str, **options: Unpack[EditorOptions]
) -> SummaryEdit | None:
    """Open ``editor`` on the paper's current summary, tags and field; None when the editor changed nothing.

    Reads the record without the venue's lock: a person may keep the editor open for a long time.  Save
    the result under the lock with :func:`save_editor_result`.  Invalid input: see :func:`run_editor`.
    """
    record = store.load(venue_id, paper_id)
    number = record.summaries.current.number if record.summaries.current else None

    def check(edited: str) -> SummaryEdit:
        checked = _parse_edited(edited, settings)
        return SummaryEdit(checked.summary, checked.tags, checked.field, number, checked.warnings)

    edit = Edit(_editor_text(settings, record), check, _with_errors)
    return run_editor(settings, venue_id, paper_id, edit, **options)


def _editor_text(settings: Settings, record: Record) -> str:
    """The current summary, tags and field as YAML, under a comment that says what to do."""
    current = record.summaries.current
    body = yaml.safe_dump(
        {
            "summary": current.summary if current else "",
            "tags": list(current.tags) if current else [],
            "field": current.field if current else "",
        },
        allow_unicode=True,
        sort_keys=False,
        width=10_000,
    )
    # One line, controls removed: an old record's title must not break out of the comment.
    return EDIT_HELP.format(title=clean_line(record.title), fields=", ".join(settings.field_ids())) + body


def save_editor_result(settings: Settings, store: Store, venue_id: str, paper_id: str, result: SummaryEdit) -> Done:
    """Save what the editor produced; call with the venue's lock held.

    When the paper got a new version while the editor was open (a regen, another
    editor), nothing is saved and the error carries the edited text, so it is not lost.
    """
    record = store.load(venue_id, paper_id)
    now = record.summaries.current.number if record.summaries.current else None
    if now != result.base_version:
        kept = yaml.safe_dump(
            {"summary": result.summary, "tags": result.tags, "field": result.field}, allow_unicode=True, width=10_000
        )
        path = keep_unsaved_text(settings, venue_id, paper_id, kept)
        raise UsageError(
            f"{venue_id}/{paper_id} changed while you were editing (now version {now}); "
            f"your text: {result.summary} (tags: {', '.join(result.tags)}; field: {result.field}), kept in {path}; "
            f"run summarizer review edit {venue_id}/{paper_id} again"
        )
    return save_edit(
        settings, store, record, summary=result.summary, tags=result.tags, field=result.field, found=result.warnings
    )
