"""What ``review …`` and ``review notes …`` share: approving by refs or ``--all``, the reviewer's reason,
and an edit in ``$EDITOR`` (the two commands differ in the kind of text, not in the steps).

The review stage is imported inside each command, as in ``commands``: ``--help`` stays quick.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

import summarizer.apps.cli.console as console
from summarizer.core.errors import UsageError

from .context import Context, pass_ctx, split_ref, tell

if TYPE_CHECKING:
    from summarizer.core.records import Record
    from summarizer.core.report import Done
    from summarizer.core.store import Store
    from summarizer.review.reviewing import ReviewedKind


@dataclass(frozen=True)
class KindCommands:
    """What ``show``, ``approve`` and ``reject`` need of one kind of reviewed text besides its review
    (``review.reviewing``'s kind of that ``noun``): its wording, and what prints one record (its docstring is
    ``show``'s help)."""

    noun: str  # "summary", "note"
    kept_with: str  # what a rejection's reason is kept with: "record", "note"
    show: Callable[[Context, Record], None]
    approve_help: str
    reject_help: str


def _kind(noun: str) -> ReviewedKind:
    from summarizer.review.reviewing import NOTE, SUMMARY  # start-up: see the module doc

    return {"summary": SUMMARY, "note": NOTE}[noun]


def add_review_commands(group: click.Group, kind: KindCommands) -> None:
    """``show VENUE/ID``, ``approve VENUE/ID... | VENUE --all`` and ``reject VENUE/ID --reason TEXT`` for ``kind``."""

    @group.command("show", help=kind.show.__doc__)
    @click.argument("ref", metavar="VENUE/ID")
    @pass_ctx
    def show_command(c: Context, ref: str) -> None:
        venue_id, paper = split_ref(ref)
        c.settings.venue(venue_id)
        kind.show(c, c.store.load(venue_id, paper))

    @group.command("approve", help=kind.approve_help)
    @click.argument("refs", nargs=-1, required=True, metavar="VENUE/ID... | VENUE --all")
    @click.option("--all", "approve_all", is_flag=True, help="Approve everything of VENUE that waits for review.")
    @pass_ctx
    def approve_command(c: Context, refs: tuple[str, ...], approve_all: bool) -> None:
        approve_refs(c, refs, approve_all, _kind(kind.noun))

    @group.command("reject", help=kind.reject_help)
    @click.argument("ref", metavar="VENUE/ID")
    @click.option(  # --note is the reason's earlier name, kept as an alias
        "--reason", "--note", "reason", required=True, help=f"Why: kept with the {kind.kept_with} for the next editor."
    )
    @pass_ctx
    def reject_command(c: Context, ref: str, reason: str) -> None:
        from summarizer.review.reviewing import reject  # start-up: see the module doc

        venue_id, paper = split_ref(ref)
        with c.locked(venue_id) as store:
            tell(reject(store, venue_id, paper, reason, _kind(kind.noun)).lines)


def approve_refs(c: Context, refs: tuple[str, ...], approve_all: bool, kind: ReviewedKind) -> None:
    """``VENUE --all``: everything of the venue that waits; else the named ``VENUE/ID``s, every venue locked and
    every ref checked before anything is saved (one bad ref approves nothing)."""
    from summarizer.review.reviewing import approvable, approve  # start-up: see the module doc

    command = kind.approve_command
    if approve_all:
        if len(refs) != 1 or "/" in refs[0]:
            raise UsageError(f"with --all give one VENUE: summarizer {command} ICML2026 --all")
        with c.locked(refs[0]) as store:
            tell(approve(store, refs[0], None, kind).lines)
        return
    by_venue: dict[str, list[str]] = {}
    for ref in refs:
        if "/" not in ref:
            raise UsageError(
                f"expected VENUE/ID, got {ref!r} (to approve all of a venue: summarizer {command} {ref} --all)"
            )
        venue_id, paper = split_ref(ref)
        by_venue.setdefault(venue_id, []).append(paper)
    with c.locked_venues(by_venue) as store:
        checked = {venue_id: approvable(store, venue_id, papers, kind) for venue_id, papers in by_venue.items()}
        done = [approve(store, venue_id, records, kind) for venue_id, records in checked.items()]
    tell([line for each in done for line in each.lines])


def edit_in_editor(
    c: Context, venue_id: str, *, open_editor: Callable[..., Any], save: Callable[[Store, Any], Done]
) -> None:
    """The text opened in ``$EDITOR`` with no lock held while a person types, then saved under the venue's lock
    (``save`` checks the result against the version it started from)."""
    c.settings.venue(venue_id)
    edited = open_editor(c.settings, c.store, tell=console.warn)
    if edited is None:
        console.info("edit cancelled: nothing changed")
        return
    with c.locked(venue_id) as store:
        tell(save(store, edited).lines)


def run_editor(text: str, *, extension: str, instead: str) -> str | None:
    """``$EDITOR`` on ``text``; None when it was closed without saving. ``instead``: the flags that do without it."""
    try:
        return click.edit(text, extension=extension, require_save=True)
    except click.ClickException as exc:  # the editor is missing or exited non-zero
        raise UsageError(f"could not run the editor ({exc.format_message()}): set $EDITOR, or use {instead}") from exc
