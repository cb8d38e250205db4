"""What `summarizer demo` says at the end: what it published, the drafts it left, and the commands that review them.

Every command is printed as this installation runs it (``.venv/bin/summarizer`` after ``make demo``), with its
paths quoted for the shell, and its purpose after a ``#``: a line copied whole runs as printed.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import summarizer.cli.console as console
from summarizer.core.config import Settings
from summarizer.core.flags import current_warnings, shown_warnings, venue_duplicates
from summarizer.core.note_flags import current_note_warnings
from summarizer.core.records import Record
from summarizer.core.report import plural
from summarizer.core.sanitize import terminal_safe
from summarizer.core.store import Store

from . import invocation
from .demo_stand_ins import DemoPaper

# The closing lines' regenerate: what an editor would say of an invented number.
REGEN_FEEDBACK = "只用论文中出现的数字"
SHOWN_WAITING = 8


def waiting_drafts(settings: Settings, records: list[Record]) -> list[tuple[str, list[str]]]:
    """(ref, warnings) of every paper waiting for review, with the warnings `review list` shows."""
    twins = venue_duplicates(records)
    out = []
    for record in records:
        if record.needs_review:
            ref = f"{record.venue}/{record.id}"
            out.append((ref, shown_warnings(record, current_warnings(settings, record), twins.get(ref))))
    return out


def waiting_notes(settings: Settings, records: list[Record]) -> list[tuple[str, list[str]]]:
    """(ref, warnings) of every paper whose note waits for review."""
    return [(f"{r.venue}/{r.id}", current_note_warnings(settings, r)) for r in records if r.notes.needs_review]


def _note_commands(run: str, papers: list[DemoPaper]) -> list[tuple[str, str]]:
    """The note left for the editor: read it, have it rewritten to feedback, publish it."""
    left = next((p for p in papers if p.note_left_for_review), None)
    if left is None:
        return []
    ref = f"{left.venue}/{left.paper.arxiv_id}"
    return [
        (f"{run} review notes show {ref}", "the note waiting: its whole page, its warnings, its versions"),
        (f"{run} regen {ref} --notes --feedback {shlex.quote(REGEN_FEEDBACK)}", "a new note, written to your feedback"),
        (f"{run} review notes approve {ref}", "publish the note (on the paper's page after the next build)"),
    ]


def next_commands(settings: Settings, site_root: Path, papers: list[DemoPaper], venue: str) -> list[tuple[str, str]]:
    """(command, what it does): the editor's next steps in this demo folder."""
    run = invocation.command_prefix(os.path.relpath(settings.config_file))
    regen = next((p for p in papers if p.left_for_review and p.revised), papers[0])
    regen_ref = f"{regen.venue}/{regen.paper.arxiv_id}"
    mkdocs_yml = shlex.quote(os.path.relpath(site_root / "mkdocs.yml"))
    return [
        (f"{run} review serve", "the review desk in your browser: a approve, r reject, e edit, g regenerate"),
        (f"{run} review list {venue} --status draft", "the drafts waiting, in the terminal"),
        (f"{run} regen {regen_ref} --feedback {shlex.quote(REGEN_FEEDBACK)}", "a new draft, written to your feedback"),
        *_note_commands(run, papers),
        (f"{run} build", "publish what is approved"),
        (console.mkdocs_serve(mkdocs_yml), "read the site: http://127.0.0.1:8000"),
        (f"{invocation.invoked_program()} init my-digest", "your own venue: a config to fill in (README)"),
    ]


def _print_waiting(heading: str, waiting: list[tuple[str, list[str]]], what: str) -> None:
    if not waiting:
        return
    console.out.print(f"  {heading:<12} {plural(len(waiting), what)} for you to review, each flagged:")
    for ref, warnings in waiting[:SHOWN_WAITING]:
        console.out.print(terminal_safe(f"    {ref}  {'; '.join(warnings) or 'no warning'}"), markup=False)
    if len(waiting) > SHOWN_WAITING:
        console.out.print(f"    … and {len(waiting) - SHOWN_WAITING} more")


def closing_note(settings: Settings, store: Store, site_root: Path, papers: list[DemoPaper]) -> None:
    out = console.out
    records = [r for venue in settings.venues for r in store.records(venue.id)]
    waiting = waiting_drafts(settings, records)
    published = [r for r in records if r.approved is not None]
    with_notes = sum(1 for r in published if r.notes.approved is not None)
    folder = os.path.relpath(settings.config_file.parent)
    out.print()
    out.print("[bold]Done.[/bold] The demo's papers are fictional; their summaries and notes are recorded samples.")
    out.print(terminal_safe(f"  demo folder: {folder}/"), markup=False)
    site = os.path.relpath(site_root)
    shown = f"{plural(len(published), 'paper')} ({with_notes} with a note on its page)"
    out.print(terminal_safe(f"  published:   {shown}, on the site in {site}/docs/"), markup=False)
    _print_waiting("waiting:", waiting, "draft")
    _print_waiting("notes:", waiting_notes(settings, records), "note")
    venue = waiting[0][0].split("/")[0] if waiting else settings.venues[0].id
    out.print()
    out.print("Next: each line runs as printed, offline and with no key (in the demo folder the stand-ins answer).")
    for command, why in next_commands(settings, site_root, papers, venue):
        out.print(terminal_safe(f"  # {why}\n  {command}"), markup=False)
