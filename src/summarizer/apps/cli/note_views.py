"""What ``review notes list``, ``review notes show`` and a ``--dry-run`` print: presentation only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

import summarizer.apps.cli.console as console
from summarizer.core.config import Settings
from summarizer.core.errors import clip
from summarizer.core.note_flags import current_note_warnings
from summarizer.core.note_markdown import render
from summarizer.core.records import NoteVersion, Record
from summarizer.core.sanitize import terminal_safe
from summarizer.review.note_actions import note_status_label
from summarizer.review.reviewing import NOTE, listed_version

from .views import _age, _cells, _text, history_row

if TYPE_CHECKING:
    from summarizer.summarize.dry_run import DryRun


def print_note_list(settings: Settings, venue_id: str, records: list[Record], *, status: str | None) -> None:
    """One row a paper with a note: note status, length, warnings, who wrote it, age."""
    now = datetime.now(UTC)
    title = f"{venue_id}: {len(records)} notes" + (f" ({status})" if status else "")
    table = Table(title=Text(title))
    for column in ("id", "note"):
        table.add_column(column, no_wrap=True)
    for column in ("summary", "chars", "warnings", "model", "age"):
        table.add_column(column, overflow="fold")
    for record in records:
        version: NoteVersion | None = listed_version(record, status, NOTE)
        if version is None:
            continue
        warnings = current_note_warnings(settings, record, version)
        table.add_row(
            *_cells(
                record.id,
                note_status_label(record),
                record.summaries.status if record.summaries.versions else "unsummarized",
                f"{len(render(settings, record, version)):,}",
                "; ".join(warnings),
                version.model or version.origin,
                _age(version.created_at, now),
            )
        )
    console.out.print(table)
    if status == "draft" and any(r.notes.has_pending_draft for r in records):
        console.out.print("approved* = note approved, with a newer draft waiting for review")


def print_note(settings: Settings, record: Record) -> None:
    """``review notes show``: the note's page as Markdown, its warnings, the review state, the history."""
    out = console.out
    current = record.notes.current
    out.print(
        _text(f"{record.venue}/{record.id} · note {note_status_label(record)} · summary {record.summaries.status}")
    )
    if current is None:
        out.print(_text(f"no note yet (write one: summarizer notes {record.venue} {record.id})"))
        return
    out.print(_text(f"note version {current.number} ({current.origin})", style="bold"))
    out.print(Text(terminal_safe(render(settings, record, current))))
    warnings = current_note_warnings(settings, record, current)
    if warnings:
        out.print(_text("warnings: " + "; ".join(warnings), style="yellow"))
    if record.notes.review_note:
        out.print(_text(f"reviewer's note: {record.notes.review_note}"))
    failure = record.failures.get("notes")
    if failure is not None:
        out.print(_text(f"failed at notes: {failure.reason}", style="red"))
        if failure.raw_output:
            out.print(_text(f"last model output: {failure.raw_output}", style="dim"))
    history = Table(title="note history")
    for column in ("#", "origin", "created", "", "model / feedback", "length"):
        history.add_column(column, overflow="fold")
    for version in record.notes.versions:
        history.add_row(*history_row(version, record.notes, f"{len(version.markdown):,} chars"))
    out.print(history)


def print_dry_run(plan: DryRun) -> None:
    """The papers a run would ask about, and what it would cost online and through the Batch API."""
    table = Table(title=Text(f"{plan.command} {plan.venue} --dry-run: {len(plan.papers)} papers"))
    for column in ("id", "title", "input tokens", "output tokens", ""):
        table.add_column(column, overflow="fold", justify="right" if "tokens" in column else "left")
    for paper in plan.papers:
        mark = "cached (no call)" if paper.cached else ""
        table.add_row(
            *_cells(
                paper.paper_id, clip(paper.title, 60), f"~{paper.input_tokens:,}", f"~{paper.output_tokens:,}", mark
            )
        )
    console.out.print(table)
    for paper_id, reason in plan.no_input:
        console.out.print(_text(f"{paper_id}: nothing to read ({reason})", style="yellow"))
    skipped = ", ".join(f"{n} {why}" for why, n in plan.skipped.items())
    if skipped:
        console.out.print(_text(f"left out: {skipped}"))
    asked = len(plan.asked)
    console.out.print(
        _text(
            f"{asked} model calls (+{len(plan.papers) - asked} cached): ~{plan.input_tokens:,} input + "
            f"~{plan.output_tokens:,} output tokens with {plan.model} at ${plan.price_input:g}/${plan.price_output:g} "
            f"per million: ~${plan.online_usd:.4f} online, ~${plan.batch_usd:.4f} with --batch "
            f"(llm.batch_price_factor {plan.batch_factor:g}); nothing was sent"
        )
    )
