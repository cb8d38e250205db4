"""``summarizer review …``: list, show, approve, reject, edit, and the review desk in a browser.

The review functions are imported inside each command, as in ``commands``: ``--help`` stays quick.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from summarizer.core.records import Record

from .context import Context, pass_ctx, split_ref, tell
from .note_commands import review_notes
from .reviewing import KindCommands, add_review_commands, edit_in_editor, run_editor


@click.group()
def review() -> None:
    """Review drafts: list, show, approve, reject, edit (`review notes …`: the same for per-paper notes)."""


review.add_command(review_notes)


@review.command("list")
@click.argument("venue_id", metavar="VENUE")
@click.option("--status", type=click.Choice(["draft", "approved", "rejected"]), help="Only papers in this state.")
@click.option("--full", is_flag=True, help="Each paper's whole summary and warnings, wrapped to the terminal.")
@pass_ctx
def review_list(c: Context, venue_id: str, status: str | None, full: bool) -> None:
    """A table of the venue's papers: status, field, tags, length, warnings, model, age (--full: the summaries)."""
    from .views import print_list  # start-up: see the module doc

    c.settings.venue(venue_id)
    print_list(c.settings, venue_id, c.store.records(venue_id), status=status, full=full)


REJECT_SUMMARY_HELP = "Reject a paper: it is left off the site and skipped by summarize."


def _print_paper(c: Context, record: Record) -> None:
    """Title, link, abstract and summary side by side, tags, field and history."""
    from .views import print_paper  # start-up: see the module doc

    print_paper(c.settings, record)


add_review_commands(
    review,
    KindCommands("summary", "record", _print_paper, "Approve summaries for publishing.", REJECT_SUMMARY_HELP),
)


@review.command("edit")
@click.argument("ref", metavar="VENUE/ID")
@click.option("--summary", help="The new summary text.")
@click.option("--tags", help="Comma-separated tags, e.g. LLM,推理.")
@click.option("--field", "field_id", help="A field id from config.yaml.")
@pass_ctx
def review_edit(c: Context, ref: str, summary: str | None, tags: str | None, field_id: str | None) -> None:
    """Edit a summary (a new version by a human); with no flags, opens $EDITOR."""
    from summarizer.review.actions import TAG_SEPARATORS, edit  # start-up: see the module doc
    from summarizer.review.editor import edit_in_editor as open_editor  # start-up: see the module doc
    from summarizer.review.editor import save_editor_result  # start-up: see the module doc

    venue_id, paper = split_ref(ref)
    if summary is None and tags is None and field_id is None:
        edit_in_editor(
            c,
            venue_id,
            open_editor=functools.partial(open_editor, venue_id=venue_id, paper_id=paper, editor=_run_editor),
            save=lambda store, edited: save_editor_result(c.settings, store, venue_id, paper, edited),
        )
        return
    tag_list = [t for t in (s.strip() for s in TAG_SEPARATORS.split(tags)) if t] if tags is not None else None
    with c.locked(venue_id) as store:
        done = edit(c.settings, store, venue_id, paper, summary=summary, tags=tag_list, field=field_id)
    tell(done.lines)


@review.command("serve")
@click.argument("venue_ids", nargs=-1, metavar="[VENUE...]")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (keep it local).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; just print the address.")
@pass_ctx
def review_serve(c: Context, venue_ids: tuple[str, ...], host: str, port: int, no_browser: bool) -> None:
    """The review desk: review drafts in the browser (queue, side-by-side view, keys); Ctrl-C stops it."""
    from .desk_server import serve  # start-up: see the module doc

    for venue_id in venue_ids:
        c.settings.venue(venue_id)
    chosen = list(dict.fromkeys(venue_ids)) or [v.id for v in c.settings.venues]
    with c.reaching_out():  # the regenerate button asks the model
        serve(c.settings, chosen, host=host, port=port, open_browser=not no_browser)


def _run_editor(text: str) -> str | None:
    return run_editor(text, extension=".yaml", instead="--summary/--tags/--field")
