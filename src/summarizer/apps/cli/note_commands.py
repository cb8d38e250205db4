"""``summarizer notes …`` (write per-paper notes) and ``summarizer review notes …`` (review them).

As in ``commands``: each stage is imported inside the command that runs it, so ``--help`` stays quick.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import click

from summarizer.core.errors import UsageError

if TYPE_CHECKING:
    from summarizer.core.records import Record

from .context import Context, finish, pass_ctx, split_ref, tell
from .options import asking_options
from .reviewing import KindCommands, add_review_commands, edit_in_editor, run_editor


def check_batch_flags(batch: bool, no_wait: bool, dry_run: bool = False) -> None:
    if no_wait and not batch:
        raise UsageError("--no-wait goes with --batch (the online path always waits for its answers)")
    if dry_run and batch:
        raise UsageError("--dry-run shows the cost online and with --batch at once: give it alone")


def print_dry_run(
    c: Context, venue_id: str, *, notes: bool, only: list[str] | None, limit: int | None, force: bool
) -> None:
    """What the run would ask and cost; reads only (no lock, no key)."""
    from summarizer.summarize.dry_run import dry_run  # start-up: see the module doc
    from summarizer.summarize.note_task import NoteTask  # start-up: see the module doc

    from .note_views import print_dry_run as show  # start-up: see the module doc

    task = NoteTask(c.settings) if notes else None
    show(dry_run(c.settings, c.store, venue_id, task, only=only, limit=limit, force=force))


@click.command()
@click.argument("venue_id", metavar="VENUE")
@click.argument("paper_ids", nargs=-1, metavar="[PAPER]...")
@asking_options(force="Ignore the cache and rewrite model notes (never approved or edited ones).")
@pass_ctx
def notes(
    c: Context,
    venue_id: str,
    paper_ids: tuple[str, ...],
    limit: int | None,
    force: bool,
    batch: bool,
    no_wait: bool,
    dry_run: bool,
) -> None:
    """Write a draft note for every paper (or the PAPERs named) whose summary is approved and text fetched."""
    check_batch_flags(batch, no_wait, dry_run)
    only = list(paper_ids) or None
    if dry_run:
        c.settings.venue(venue_id)
        print_dry_run(c, venue_id, notes=True, only=only, limit=limit, force=force)
        return
    with c.reaching_out(), c.locked(venue_id):
        report = c.venue_run(venue_id, limit=limit, batch=batch, wait=not no_wait).notes(only=only, force=force)
    finish(report.ok)


# -- review notes ------------------------------------------------------------------------------------


@click.group("notes")
def review_notes() -> None:
    """Review per-paper notes: list, show, approve, reject, edit (a note is reviewed apart from its summary)."""


@review_notes.command("list")
@click.argument("venue_id", metavar="VENUE")
@click.option("--status", type=click.Choice(["draft", "approved", "rejected"]), help="Only notes in this state.")
@pass_ctx
def notes_list(c: Context, venue_id: str, status: str | None) -> None:
    """A table of the venue's notes: note status, summary status, length, warnings, model, age."""
    from summarizer.review.reviewing import NOTE, listed  # start-up: see the module doc

    from .note_views import print_note_list  # start-up: see the module doc

    c.settings.venue(venue_id)
    print_note_list(c.settings, venue_id, listed(c.store, venue_id, status, NOTE), status=status)


APPROVE_NOTES_HELP = "Approve notes for publishing (every named note is checked before any is saved)."
REJECT_NOTE_HELP = "Reject a paper's note: it stays off the site and `notes` skips it (the summary is not touched)."


def _print_note(c: Context, record: Record) -> None:
    """The note's page as Markdown (header and 一句话总结 included), its warnings and its history."""
    from .note_views import print_note  # start-up: see the module doc

    print_note(c.settings, record)


add_review_commands(review_notes, KindCommands("note", "note", _print_note, APPROVE_NOTES_HELP, REJECT_NOTE_HELP))


@review_notes.command("edit")
@click.argument("ref", metavar="VENUE/ID")
@click.option(
    "--file",
    "path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="The note's new Markdown (its ## sections) from this file, instead of $EDITOR.",
)
@pass_ctx
def notes_edit(c: Context, ref: str, path: Path | None) -> None:
    """Edit a note's Markdown (a new version by a human); opens $EDITOR unless --file is given."""
    from summarizer.review.note_actions import save_note_edit  # start-up: see the module doc
    from summarizer.review.note_editor import edit_note_in_editor, save_note_editor_result  # start-up

    venue_id, paper = split_ref(ref)
    if path is not None:
        markdown = _read_note_file(path)
        with c.locked(venue_id) as store:
            tell(save_note_edit(store, store.load(venue_id, paper), markdown).lines)
        return
    edit_in_editor(
        c,
        venue_id,
        open_editor=functools.partial(edit_note_in_editor, venue_id=venue_id, paper_id=paper, editor=_run_editor),
        save=lambda store, edited: save_note_editor_result(c.settings, store, venue_id, paper, edited),
    )


def _read_note_file(path: Path) -> str:
    from summarizer.core import limits  # start-up: see the module doc

    try:
        data = path.read_bytes()[: limits.NOTE_FILE + 1]
    except OSError as exc:
        raise UsageError(f"--file {path}: cannot read it ({exc.strerror})") from exc
    if len(data) > limits.NOTE_FILE:
        raise UsageError(
            f"--file {path}: over {limits.NOTE_FILE:,} bytes; a note is at most {limits.NOTE:,} characters"
        )
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise UsageError(f"--file {path}: not UTF-8 text") from exc


def _run_editor(text: str) -> str | None:
    return run_editor(text, extension=".md", instead="--file")
