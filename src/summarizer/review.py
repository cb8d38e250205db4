"""Review stage: the editor's desk — list, show, approve, reject, edit, regenerate.

Machine output is a draft until a person approves it.  Every change is a new
version in the record, so no command ever loses an approved or human-edited
summary: an edit or a regeneration of an approved paper waits as a *pending
draft* while the approved version stays published; `review list --status draft` lists it as approved*.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path

import click
import yaml

from .checks import MAX_NOTE_CHARS, CheckedSummary, SummaryRejected, check_human_summary
from .config import Settings
from .errors import NothingToApprove, UsageError
from .fsutil import atomic_write_text
from .report import usage_line
from .store import Record, Store, Version, now_iso
from .textsafe import clean_line, clean_text

EDITOR_ROUNDS = 5  # invalid saves before the editor gives up (and keeps the text in a file)


def status_label(record: Record) -> str:
    if not record.versions:
        return "unsummarized"
    return "approved*" if record.has_pending_draft else record.status


def _matches(record: Record, status: str | None) -> bool:
    if status is None:
        return True
    if status == "draft":
        return record.needs_review
    return record.versions != [] and record.status == status


def listed(store: Store, venue: str, *, status: str | None) -> list[Record]:
    """The venue's papers for ``review list`` (under ``status``: draft = waiting for review)."""
    return [r for r in store.records(venue) if _matches(r, status)]


def listed_version(record: Record, status: str | None) -> Version | None:
    """Under --status approved the published version, else the newest (what a reviewer acts on)."""
    if status == "approved" and record.approved is not None:
        return record.approved
    return record.current


@dataclass
class Done:
    """What a review action did, in the editor's words: the CLI prints ``lines``, the desk answers with them."""

    lines: list[str] = dataclass_field(default_factory=list)
    changed: bool = True


def approvable(store: Store, venue: str, paper_ids: list[str]) -> list[Record]:
    """Load the named papers and check each has a summary to approve; change nothing.

    Raises UsageError (no such paper) or NothingToApprove at the first paper that does not exist or has no summary, so
    a caller that checks every ref first approves all of them or none.
    """
    records: list[Record] = []
    for pid in dict.fromkeys(paper_ids):  # a ref given twice is approved once
        record = store.load(venue, pid)
        if record.current is None:
            raise NothingToApprove(
                f"{venue}/{pid} has no summary to approve (see: summarizer review show {venue}/{pid})"
            )
        records.append(record)
    return records


def approve_records(store: Store, venue: str, records: list[Record]) -> Done:
    done = Done()
    for record in records:
        record.approve()
        store.save(record)
        done.lines.append(f"approved {venue}/{record.id} (version {record.approved_version})")
    return done


def approve(settings: Settings, store: Store, venue: str, paper_ids: list[str] | None) -> Done:
    """Approve the named papers' current versions, or (None) every paper waiting for review.

    Every named paper is loaded and checked before any is saved: one bad id approves nothing.
    """
    if paper_ids is None:
        records = [r for r in store.records(venue) if r.needs_review]
    else:
        records = approvable(store, venue, paper_ids)
    done = approve_records(store, venue, records)
    if paper_ids is None:
        done.lines.append(f"{len(records)} papers approved in {venue}")
    return done


def reject(settings: Settings, store: Store, venue: str, paper_id: str, *, note: str) -> Done:
    note = clean_text(note).strip()
    if len(note) > MAX_NOTE_CHARS:
        raise UsageError(f"--note: {len(note)} characters (at most {MAX_NOTE_CHARS}); shorten it")
    record = store.load(venue, paper_id)
    record.status = "rejected"
    record.note = note or None
    store.save(record)
    return Done([f"rejected {venue}/{paper_id}: it stays off the site and summarize skips it"])


EDIT_HELP = """\
# Edit the summary, tags and field of: {title}
# Save and close to keep it as a new version (origin: human); leave it unchanged to cancel.
# field: one of {fields}
"""


TAG_SEPARATORS = re.compile(r"[,，、]")
TAGS_TYPE_ERROR = "tags must be a list, e.g. [LLM, 推理]"


@dataclass
class EditorResult:
    """What the editor saved, and which version it started from."""

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
    raise SummaryRejected([TAGS_TYPE_ERROR])


def _parse_edited(edited: str, settings: Settings) -> CheckedSummary:
    """The saved editor text, checked as human text; SummaryRejected lists every problem."""
    try:
        data = yaml.safe_load(edited)
    except yaml.YAMLError as exc:
        raise SummaryRejected([f"not valid YAML: {str(exc).splitlines()[0]}"]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SummaryRejected(["expected the keys summary, tags and field"])
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
    except SummaryRejected as exc:
        problems.extend(exc.problems)
        tags = []
    if problems or not isinstance(summary, str) or not isinstance(field, str):
        raise SummaryRejected(problems)
    return check_human_summary(summary, tags, field, settings)


def _run_editor(text: str) -> str | None:
    try:
        return click.edit(text, extension=".yaml", require_save=True)
    except click.ClickException as exc:  # the editor is missing or exited non-zero
        raise UsageError(
            f"could not run the editor ({exc.format_message()}): set $EDITOR, or use --summary/--tags/--field"
        ) from None


def _with_errors(edited: str, problems: list[str]) -> str:
    kept = "\n".join(line for line in edited.splitlines() if not line.startswith("# ERROR"))
    return "".join(f"# ERROR: {p}\n" for p in problems) + kept + "\n"


def keep_unsaved_text(settings: Settings, venue: str, paper_id: str, text: str) -> Path:
    """Save an edit that could not be stored, so no typed text is lost; returns where it went."""
    name = f"{venue}_{paper_id}_{now_iso().replace(':', '')}.yaml"
    for folder in (settings.outputs_dir / "unsaved-edits", Path(tempfile.gettempdir())):
        try:
            atomic_write_text(folder / name, text)
            return folder / name
        except OSError:
            continue
    raise UsageError(f"could not save your text anywhere; here it is:\n{text}")


def edit_in_editor(
    settings: Settings, store: Store, venue: str, paper_id: str, *, tell: Callable[[str], None] = lambda _: None
) -> EditorResult | None:
    """Open $EDITOR on the paper's current summary, tags and field; None when the editor changed nothing.

    Reads the record without the venue's lock: a person may keep the editor open for
    a long time.  Save the result under the lock with :func:`save_editor_result`.
    Invalid input reopens the editor with the problems noted at the top (and said through
    ``tell``: the CLI prints it while the person is at the terminal); closing it
    without saving, or EDITOR_ROUNDS invalid saves, keeps the text in a file whose
    path the raised UsageError names.
    """
    record = store.load(venue, paper_id)
    current = record.current
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
    text = EDIT_HELP.format(title=clean_line(record.title), fields=", ".join(settings.field_ids())) + body
    problems: list[str] = []
    for _round in range(EDITOR_ROUNDS):
        edited = _run_editor(text)
        if edited is None or edited == text:
            if not problems:
                return None  # closed before anything was typed: nothing to keep
            path = keep_unsaved_text(settings, venue, paper_id, text)
            raise UsageError(f"edit cancelled, nothing saved ({'; '.join(problems)}); your text is in {path}")
        try:
            checked = _parse_edited(edited, settings)
        except SummaryRejected as exc:
            problems = exc.problems
            tell("not saved: " + "; ".join(problems))
            text = _with_errors(edited, problems)
            continue
        number = current.number if current else None
        return EditorResult(checked.summary, checked.tags, checked.field, number, checked.warnings)
    path = keep_unsaved_text(settings, venue, paper_id, text)
    raise UsageError(f"edit not saved after {EDITOR_ROUNDS} tries ({'; '.join(problems)}); your text is in {path}")


def save_editor_result(settings: Settings, store: Store, venue: str, paper_id: str, result: EditorResult) -> Done:
    """Save what the editor produced; call with the venue's lock held.

    When the paper got a new version while the editor was open (a regen, another
    editor), nothing is saved and the error carries the edited text, so it is not lost.
    """
    record = store.load(venue, paper_id)
    now = record.current.number if record.current else None
    if now != result.base_version:
        kept = yaml.safe_dump(
            {"summary": result.summary, "tags": result.tags, "field": result.field}, allow_unicode=True, width=10_000
        )
        path = keep_unsaved_text(settings, venue, paper_id, kept)
        raise UsageError(
            f"{venue}/{paper_id} changed while you were editing (now version {now}); "
            f"your text: {result.summary} (tags: {', '.join(result.tags)}; field: {result.field}), kept in {path}; "
            f"run summarizer review edit {venue}/{paper_id} again"
        )
    return _save_edit(
        settings, store, record, summary=result.summary, tags=result.tags, field=result.field, found=result.warnings
    )


def edit(
    settings: Settings,
    store: Store,
    venue: str,
    paper_id: str,
    *,
    summary: str | None,
    tags: list[str] | None,
    field: str | None,
) -> Done:
    """Edit with values from the command line (call with the venue's lock held); None keeps the current value.

    Without any value, use :func:`edit_in_editor` (unlocked) and :func:`save_editor_result` (locked).
    """
    record = store.load(venue, paper_id)
    return _save_edit(settings, store, record, summary=summary, tags=tags, field=field)


def _save_edit(
    settings: Settings,
    store: Store,
    record: Record,
    *,
    summary: str | None,
    tags: list[str] | None,
    field: str | None,
    found: list[str] | None = None,
) -> Done:
    venue, paper_id = record.venue, record.id
    current = record.current
    if current is not None:
        summary = current.summary if summary is None else summary
        tags = current.tags if tags is None else tags
        field = current.field if field is None else field
    if summary is None or tags is None or field is None:
        raise UsageError(f"{venue}/{paper_id} has no summary yet: give --summary, --tags and --field")
    try:
        checked = check_human_summary(summary, tags, field, settings)
    except SummaryRejected as exc:
        raise UsageError(f"edit not saved: {exc}") from None
    if current is not None and current.same_content(checked.summary, checked.tags, checked.field):
        return Done(["nothing changed"], changed=False)
    warnings = checked.warnings + [w for w in found or [] if w not in checked.warnings]
    version = record.add_version(checked.summary, checked.tags, checked.field, "human", warnings=warnings)
    store.save(record)
    done = Done([f"saved {venue}/{paper_id} version {version.number} (human)"])
    if record.status == "approved":
        done.lines.append(
            f"version {record.approved_version} stays published until: summarizer review approve {venue}/{paper_id}"
        )
    elif record.status == "draft":
        done.lines.append(f"to publish it: summarizer review approve {venue}/{paper_id}")
    return done


def regenerate(settings: Settings, store: Store, venue: str, paper_id: str, *, feedback: str | None) -> Done:
    """One fresh model call (the cache is ignored); the result is a new draft version.

    On an approved paper the approved version stays published and the new one
    waits as a pending draft.  A failure is recorded in the
    paper's record, with the model's last raw output, and raised.
    """
    from .errors import LLMError
    from .llm import usage_of
    from .summarize import add_llm_version, regenerate_summary
    from .suspicion import DuplicateIndex

    record = store.load(venue, paper_id)
    try:
        draft, usage = regenerate_summary(settings, record, feedback=feedback)
    except LLMError as exc:  # this paper's failure; a refused key (AuthenticationFailed) is not one
        record.usage.add(usage_of(exc))
        record.fail("summarize", exc.reason, attempts=exc.attempt, raw_output=exc.raw_output)
        store.save(record)
        raise
    duplicates = DuplicateIndex.of(store.records(venue))
    version = add_llm_version(record, draft, feedback=feedback, settings=settings, duplicates=duplicates)
    record.usage.add(usage)
    store.save(record)
    done = Done([f"{venue}/{paper_id}: version {version.number} written by {draft.model} ({usage_line(usage)})"])
    if record.has_pending_draft:
        done.lines.append(
            f"version {record.approved_version} stays published; to publish the new one: "
            f"summarizer review approve {venue}/{paper_id}"
        )
    else:
        done.lines.append(f"review it: summarizer review show {venue}/{paper_id}")
    return done


class ChangedSince(UsageError):
    """An action based on an older view of the paper (the review desk): refused, nothing saved."""


def require_version(
    store: Store, venue: str, paper_id: str, expected: int | None, *, status: str | None = None
) -> Record:
    """The paper, if its newest version is still ``expected`` (and its status still ``status``); call locked.

    The review desk sends the version a page showed with every action, so an action
    taken on a page the CLI or another tab has changed since is refused, not applied.
    """
    record = store.load(venue, paper_id)
    now = record.current.number if record.current else None
    if now != expected or (status is not None and status_label(record) != status):
        raise ChangedSince(
            f"{venue}/{paper_id} changed since this page was loaded (now version {now}, {status_label(record)}): "
            "nothing saved; reload to see the change"
        )
    return record
