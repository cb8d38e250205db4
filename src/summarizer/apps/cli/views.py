"""What ``review list`` and ``review show`` print: rich tables of records the CLI loaded.

Presentation only: the review functions load and change records and print
nothing (the review desk calls them too); the CLI passes what they return here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rich.padding import Padding
from rich.table import Table
from rich.text import Text

import summarizer.apps.cli.console as console
from summarizer.core.config import Settings
from summarizer.core.errors import clip
from summarizer.core.flags import current_warnings, shown_warnings, venue_duplicates
from summarizer.core.records import Record, Reviewed, Version
from summarizer.core.report import plural
from summarizer.core.sanitize import terminal_safe
from summarizer.review.actions import status_label
from summarizer.review.reviewing import SUMMARY, listed_version, matches_status


def _age(created_at: str, now: datetime) -> str:
    try:
        then = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return "?"
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _cells(*values: str) -> list[Text]:
    """Record data as plain Text: brackets are never read as rich markup, controls never reach the terminal."""
    return [_text(value) for value in values]


def _text(value: str, style: str = "") -> Text:
    return Text(terminal_safe(value), style=style)


def print_list(
    settings: Settings, venue_id: str, venue_records: list[Record], *, status: str | None, full: bool = False
) -> None:
    """The table of ``review list``: one row a paper, then a legend when approved* appears; with ``full``, each
    paper as a block whose summary and warnings wrap at the terminal's width, whole.

    ``venue_records`` is every readable record of the venue: near-duplicates are found among all of them,
    as the review desk finds them, whatever ``status`` lists.
    """
    now = datetime.now(UTC)
    twins = venue_duplicates(venue_records)
    records = [r for r in venue_records if matches_status(r, status, SUMMARY)]
    listing = _Listing(settings, venue_id, records, twins, status, now)
    if full:
        _print_blocks(listing)
    else:
        _print_table(listing)
    if status == "draft" and any(r.summaries.has_pending_draft for r in records):
        console.out.print("approved* = approved, with a newer draft waiting for review")


@dataclass(frozen=True)
class _Listing:
    """What ``review list`` shows: the venue's papers in ``status``, their near-duplicates, the time it is now."""

    settings: Settings
    venue_id: str
    records: list[Record]
    twins: dict[str, str]
    status: str | None
    now: datetime

    @property
    def title(self) -> str:
        return f"{self.venue_id}: {plural(len(self.records), 'paper')}" + (f" ({self.status})" if self.status else "")

    def warnings(self, record: Record, current: Version) -> list[str]:
        twin = self.twins.get(f"{record.venue}/{record.id}")
        return shown_warnings(record, current_warnings(self.settings, record, current), twin)


def _print_table(listing: _Listing) -> None:
    status, now = listing.status, listing.now
    table = Table(title=Text(listing.title))
    for column in ("id", "status"):  # whole, so an id can be copied into the next command
        table.add_column(column, no_wrap=True)
    for column in ("field", "tags", "chars", "warnings", "model", "age"):
        table.add_column(column, overflow="fold")
    for record in listing.records:
        current: Version | None = listed_version(record, status, SUMMARY)
        if current is None:
            failure = "; ".join(f.reason for f in record.failures.values())
            table.add_row(*_cells(record.id, status_label(record), "", "", "", failure, "", ""))
            continue
        warnings = listing.warnings(record, current)
        table.add_row(
            *_cells(
                record.id,
                status_label(record),
                current.field,
                ", ".join(current.tags),
                str(len(current.summary)),
                "; ".join(warnings),
                current.model or current.origin,
                _age(current.created_at, now),
            )
        )
    console.out.print(table)


def _wrapped(text: str, style: str = "", indent: int = 2) -> None:
    """Whole text, folded at the terminal's width (a long run of Chinese has no space to break at), indented."""
    shown = Text(terminal_safe(text), style=style, overflow="fold")
    console.out.print(Padding(shown, (0, 0, 0, indent)), soft_wrap=False)


def _print_blocks(listing: _Listing) -> None:
    """``review list --full``: a heading line a paper, then its summary and its warnings, never cut."""
    status, now = listing.status, listing.now
    console.out.print(Text(listing.title))
    for record in listing.records:
        current: Version | None = listed_version(record, status, SUMMARY)
        console.out.print()
        if current is None:
            _wrapped(f"{record.id} · {status_label(record)}", "bold", indent=0)
            for failure in record.failures.values():
                _wrapped(f"failed: {failure.reason}", "red")
            continue
        warnings = listing.warnings(record, current)
        heading = [record.id, status_label(record), current.field, ", ".join(current.tags)]
        heading += [f"{len(current.summary)} chars", current.model or current.origin, _age(current.created_at, now)]
        _wrapped(" · ".join(heading), "bold", indent=0)
        _wrapped(current.summary)
        for warning in warnings:
            _wrapped(f"warning: {warning}", "yellow")


def history_row(version: Any, reviewed: Reviewed[Any], text: str) -> list[Text]:
    """One version in a history table (a summary's or a note's): number, origin, age, marks, model and feedback."""
    marks = []
    if reviewed.approved is not None and version.number == reviewed.approved_version:
        marks.append("published")
    if version is reviewed.current:
        marks.append("current")
    detail = version.model or ""
    if version.feedback:
        detail += f" 审稿意见：{version.feedback}"
    return _cells(str(version.number), version.origin, version.created_at, ", ".join(marks), detail.strip(), text)


def print_paper(settings: Settings, record: Record) -> None:
    """``review show``: title, link, abstract and summary side by side, field, tags, warnings, history."""
    _print_heading(record)
    current = record.summaries.current
    side = Table(show_header=True, expand=True)
    # Folded, never cut with an ellipsis: a reviewer sees every character they approve.
    side.add_column("abstract", ratio=1, overflow="fold")
    summary_heading = Text(f"summary (version {current.number}, {current.origin})" if current else "summary")
    side.add_column(summary_heading, ratio=1, overflow="fold")
    side.add_row(_text(record.abstract or "(no abstract)"), _text(current.summary if current else "(none yet)"))
    console.out.print(side)
    if current is not None:
        _print_field_and_warnings(settings, record, current)
    _print_review_state(record)
    history = Table(title="history")
    for column in ("#", "origin", "created", "", "model / feedback", "text"):
        history.add_column(column, overflow="fold")
    for version in record.summaries.versions:
        history.add_row(*history_row(version, record.summaries, version.summary))
    console.out.print(history)


def _print_heading(record: Record) -> None:
    _wrapped(record.title, "bold", indent=0)
    _wrapped(f"{record.venue}/{record.id} · {status_label(record)} · {record.link or 'no link'}", indent=0)
    if record.authors:
        _wrapped(", ".join(record.authors), "dim", indent=0)
    if record.source_type:  # where the paper came from (the venue's source)
        tier = f" · {record.tier}" if record.tier else ""
        _wrapped(f"source: {record.source_type} {record.source_id or ''}{tier}", "dim", indent=0)


def _print_field_and_warnings(settings: Settings, record: Record, current: Version) -> None:
    field = settings.field(current.field)
    field_name = f"{field.emoji} {field.name}" if field else "(unknown field)"
    _wrapped(f"field: {current.field} ({field_name})   tags: {', '.join(current.tags)}", indent=0)
    for warning in current_warnings(settings, record):
        _wrapped(f"warning: {warning}", "yellow", indent=0)


def _print_review_state(record: Record) -> None:
    """The reviewer's note, the failures with the model's last output, the abstract-only mark."""
    out = console.out
    if record.summaries.review_note:
        out.print(_text(f"reviewer's note: {record.summaries.review_note}"))
    for failure in record.failures.values():
        out.print(_text(f"failed at {failure.stage}: {failure.reason}", style="red"))
        if failure.raw_output:
            out.print(_text(f"last model output: {failure.raw_output}", style="dim"))
    if record.fetch.abstract_only:
        out.print(Text("summarised from the arXiv abstract only (the PDF could not be read)", style="yellow"))


def _status_cells(row: dict[str, Any]) -> list[str]:
    usage = row["usage"]
    return [
        str(row["papers"]), str(row["fetched"]), str(row["summarized"]),
        str(row["by_status"]["draft"]), str(row["by_status"]["approved"]), str(row["by_status"]["rejected"]),
        str(len(row["failed"])), str(len(row.get("corrupt", []))), str(usage["llm_calls"]),
        f"{usage['prompt_tokens'] + usage['completion_tokens']:,}", f"${usage['cost_usd']:.4f}",
    ]  # fmt: skip


def _totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every venue's counts added up, in the shape of one venue's row."""
    total: dict[str, Any] = {key: sum(row[key] for row in rows) for key in ("papers", "fetched", "summarized")}
    total["by_status"] = {k: sum(row["by_status"][k] for row in rows) for k in ("draft", "approved", "rejected")}
    total["failed"] = [f for row in rows for f in row["failed"]]
    total["corrupt"] = [c for row in rows for c in row.get("corrupt", [])]
    total["usage"] = {k: sum(row["usage"][k] for row in rows) for k in rows[0]["usage"]}
    return total


def print_status(rows: list[dict[str, Any]]) -> None:
    table = Table(title="summarizer status")
    for column in (
        "venue",
        "papers",
        "fetched",
        "summarized",
        "draft",
        "approved",
        "rejected",
        "failed",
        "corrupt",
        "calls",
        "tokens",
        "cost",
    ):
        table.add_column(column, justify="left" if column == "venue" else "right")
    for row in rows:
        table.add_row(terminal_safe(row["venue"]), *_status_cells(row))
    if len(rows) > 1:
        table.add_section()
        table.add_row(Text("total", style="bold"), *_status_cells(_totals(rows)), style="bold")
    console.out.print(table)
    for row in rows:
        notes = row.get("notes") or {}
        if any(notes.values()):
            shown = ", ".join(f"{n} {state}" for state, n in notes.items())
            console.out.print(terminal_safe(f"{row['venue']} notes: {shown}"), markup=False)
        for batch in [
            *row.get("batches", []),
            *({**b, "id": f"{b['id']} (notes)"} for b in row.get("note_batches", [])),
        ]:
            line = f"{row['venue']} batch {batch['id']}: {batch['status']}, "
            console.out.print(
                terminal_safe(line) + f"{batch['completed']}/{batch['total']} completed, {batch['failed']} failed",
                markup=False,
            )
        for failure in row["failed"]:
            line = f"{row['venue']}/{clip(failure['id'])} [{failure['stage']}]: {clip(failure['reason'], 300)}"
            console.out.print(terminal_safe(line), markup=False)
        for path in row.get("corrupt", []):
            console.out.print(terminal_safe(f"corrupt: {path} (skipped; repair it or move it away)"), markup=False)
