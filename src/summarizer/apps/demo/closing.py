"""What `summarizer demo` says at the end: what it published, the drafts it left, and the commands that review them.

Every command is printed as this installation runs it (``.venv/bin/summarizer`` after ``make demo``), with its
paths quoted for the shell, and its purpose after a ``#``: a line copied whole runs as printed.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
from pathlib import Path

import summarizer.apps.cli.console as console
import summarizer.apps.cli.invocation as invocation
from summarizer.core.config import Settings
from summarizer.core.errors import pip_install
from summarizer.core.flags import current_warnings, shown_warnings, venue_duplicates
from summarizer.core.note_flags import current_note_warnings
from summarizer.core.records import Record
from summarizer.core.report import plural
from summarizer.core.sanitize import terminal_safe
from summarizer.core.store import Store

from .stand_ins import DemoPaper

# The closing lines' regenerate: what an editor would say of an invented number.
REGEN_FEEDBACK = "只用论文中出现的数字"
SHOWN_WAITING = 8


def waiting_drafts(settings: Settings, records: list[Record]) -> list[tuple[str, list[str]]]:
    """(ref, warnings) of every paper waiting for review, with the warnings `review list` shows."""
    twins = venue_duplicates(records)
    out = []
    for record in records:
        if record.summaries.needs_review:
            ref = f"{record.venue}/{record.id}"
            out.append((ref, shown_warnings(record, current_warnings(settings, record), twins.get(ref))))
    return out


def waiting_notes(settings: Settings, records: list[Record]) -> list[tuple[str, list[str]]]:
    """(ref, warnings) of every paper whose note waits for review."""
    return [(f"{r.venue}/{r.id}", current_note_warnings(settings, r)) for r in records if r.notes.needs_review]


def _note_commands(run: str, notes_waiting: list[str]) -> list[tuple[str, str]]:
    """The note left for the editor, while it waits: read it, have it rewritten to feedback, publish it."""
    if not notes_waiting:
        return []
    ref = notes_waiting[0]
    return [
        (f"{run} review notes show {ref}", "the note waiting: its whole page, its warnings, its versions"),
        (f"{run} regen {ref} --notes --feedback {shlex.quote(REGEN_FEEDBACK)}", "a new note, written to your feedback"),
        (f"{run} review notes approve {ref}", "publish the note (on the paper's page after the next build)"),
    ]


def _draft_commands(run: str, papers: list[DemoPaper], waiting: list[tuple[str, list[str]]]) -> list[tuple[str, str]]:
    """The drafts waiting, while any does: list them, have one rewritten to feedback (the demo's revised one while
    it is flagged, else the first flagged one)."""
    if not waiting:
        return []
    revised = {f"{p.venue}/{p.paper.arxiv_id}" for p in papers if p.left_for_review and p.revised}
    ranked = sorted(waiting, key=lambda item: (not item[1], item[0] not in revised))
    regen_ref = ranked[0][0]
    venue = waiting[0][0].split("/")[0]
    return [
        (f"{run} review list {venue} --status draft", "the drafts waiting, in the terminal"),
        (f"{run} regen {regen_ref} --feedback {shlex.quote(REGEN_FEEDBACK)}", "a new draft, written to your feedback"),
    ]


def has_desk() -> bool:
    """Whether the review desk's extra ([desk]: starlette and uvicorn) is installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("starlette", "uvicorn"))


def _with_install(extra: str, command: str, why: str, installed: bool) -> list[tuple[str, str]]:
    """``command``; without its extra, the ``pip install`` first, on a line of its own."""
    if installed:
        return [(command, why)]
    return [(pip_install(extra), f"the next line needs the [{extra}] extra: install it first"), (command, why)]


def next_commands(
    settings: Settings,
    site_root: Path,
    papers: list[DemoPaper],
    waiting: list[tuple[str, list[str]]],
    notes_waiting: list[str],
) -> list[tuple[str, str]]:
    """(command, what it does): the editor's next steps in this demo folder, each a line that runs as printed
    (an extra this installation lacks is installed on the line before the command that needs it)."""
    run = invocation.command_prefix(os.path.relpath(settings.config_file))
    mkdocs_yml = shlex.quote(os.path.relpath(site_root / "mkdocs.yml"))
    mkdocs = invocation.installed_program("mkdocs")
    desk = "the review desk in your browser: a approve, r reject, e edit, g regenerate"
    return [
        *_with_install("desk", f"{run} review serve", desk, has_desk()),
        *_draft_commands(run, papers, waiting),
        *_note_commands(run, notes_waiting),
        (f"{run} build", "publish what is approved"),
        *_with_install(
            "mkdocs",
            f"{shlex.quote(mkdocs or 'mkdocs')} serve -f {mkdocs_yml}",
            "read the site: http://127.0.0.1:8000",
            mkdocs is not None,
        ),
        (f"{invocation.invoked_program()} init my-digest", "your own venue: a config to fill in (README)"),
    ]


def _print_waiting(heading: str, waiting: list[tuple[str, list[str]]], what: str) -> None:
    """What waits for review: under "flagged" only the papers that carry a warning, the others named after."""
    if not waiting:
        return
    flagged = [(ref, warnings) for ref, warnings in waiting if warnings]
    plain = [ref for ref, warnings in waiting if not warnings]
    if not flagged:
        said = f"  {heading:<12} {plural(len(waiting), what)} for you to review, none flagged: {', '.join(plain)}"
        console.out.print(terminal_safe(said), markup=False)
        return
    which = "each flagged" if not plain else f"{len(flagged)} flagged"
    console.out.print(f"  {heading:<12} {plural(len(waiting), what)} for you to review, {which}:")
    for ref, warnings in flagged[:SHOWN_WAITING]:
        console.out.print(terminal_safe(f"    {ref}  {'; '.join(warnings)}"), markup=False)
    if len(flagged) > SHOWN_WAITING:
        console.out.print(f"    … and {len(flagged) - SHOWN_WAITING} more")
    if plain:
        said = f"  {'unflagged:':<12} {', '.join(plain)} (waiting, with no warning)"
        console.out.print(terminal_safe(said), markup=False)


def closing_note(settings: Settings, store: Store, site_root: Path, papers: list[DemoPaper]) -> None:
    out = console.out
    records = [r for venue in settings.venues for r in store.records(venue.id)]
    waiting = waiting_drafts(settings, records)
    notes_waiting = waiting_notes(settings, records)
    published = [r for r in records if r.summaries.approved is not None]
    with_notes = sum(1 for r in published if r.notes.approved is not None)
    folder = os.path.relpath(settings.config_file.parent)
    out.print()
    out.print("[bold]Done.[/bold] The demo's papers are fictional; their summaries and notes are recorded samples.")
    out.print(terminal_safe(f"  demo folder: {folder}/"), markup=False)
    site = os.path.relpath(site_root)
    shown = f"{plural(len(published), 'paper')} ({with_notes} with a note on its page)"
    out.print(terminal_safe(f"  published:   {shown}, on the site in {site}/docs/"), markup=False)
    _print_waiting("waiting:", waiting, "draft")
    _print_waiting("notes:", notes_waiting, "note")
    if not waiting and not notes_waiting:
        out.print("  waiting:     nothing: every draft and note is reviewed")
    out.print()
    out.print("Next: each line runs as printed, offline and with no key (in the demo folder the stand-ins answer).")
    note_refs = [ref for ref, _ in notes_waiting]
    for command, why in next_commands(settings, site_root, papers, waiting, note_refs):
        out.print(terminal_safe(f"  # {why}\n  {command}"), markup=False)
