"""The commands: each parses its arguments, takes its locks, calls a stage and prints its report.

A stage package is imported inside the command that uses it: ``--help`` and the quick commands
(``review``, ``status``) must not pay for the OpenAI client (about 0.4 s to import), the fetcher
(arxiv, requests, lxml: about 0.2 s) or the site's Markdown extensions (about 0.1 s).
"""

from __future__ import annotations

import io
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

import summarizer.apps.cli.console as console
import summarizer.apps.cli.invocation as invocation
from summarizer.core.errors import ImportProblems, UsageError
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.report import plural
from summarizer.core.sanitize import json_terminal_safe

from .context import Context, finish, pass_ctx, split_ref, tell
from .eval_commands import evaluate
from .note_commands import check_batch_flags, notes, print_dry_run
from .options import asking_options
from .reference import surface
from .review_commands import review


class PipeClosed(Exception):
    """stdout's reader went away; raised instead of BrokenPipeError, which click would turn into exit 1."""


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise PipeClosed() from exc


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--config",
    "config_path",
    metavar="PATH",
    help="Config file (default: $SUMMARIZER_CONFIG, else ./config.yaml).",
)
@click.option("-v", "--verbose", count=True, help="Show diagnostics: retries, waits, mode switches (-vv: debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors: no progress, no info lines.")
@click.option(
    "-V",
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=invocation.print_version,
    help="Show the version.",
)
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, verbose: int, quiet: bool) -> None:
    """Turn a conference's accepted papers into Chinese digest pages.

    Batch-generate a venue (run), regenerate one summary (regen), review
    drafts before publishing (review, build).
    """
    if quiet and verbose:
        raise UsageError("-q and -v contradict each other: give one")
    console.set_verbosity(console.QUIET if quiet else min(verbose, console.DEBUG))
    invocation.set_invocation(config_path)
    if isinstance(ctx.obj, Context):  # main() made it, to look at the store after the command
        ctx.obj.config_path = config_path
    else:
        ctx.obj = Context(config_path)


# -- pipeline ---------------------------------------------------------------


@cli.command()
@click.argument("venue_id", metavar="VENUE")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N papers of the list.")
@pass_ctx
def fetch(c: Context, venue_id: str, limit: int | None) -> None:
    """Read the venue's list, fetch arXiv metadata and PDFs, extract the text."""
    with c.reaching_out(), c.locked(venue_id):
        report = c.venue_run(venue_id, limit=limit).fetch()
    finish(report.ok)


@cli.command()
@click.argument("venue_id", metavar="VENUE")
@asking_options(force="Ignore the cache and re-summarise drafts and rejected papers.")
@pass_ctx
def summarize(
    c: Context, venue_id: str, limit: int | None, force: bool, batch: bool, no_wait: bool, dry_run: bool
) -> None:
    """Write a draft summary for every fetched paper that has none."""
    check_batch_flags(batch, no_wait, dry_run)
    if dry_run:
        c.settings.venue(venue_id)
        print_dry_run(c, venue_id, notes=False, only=None, limit=limit, force=force)
        return
    with c.reaching_out(), c.locked(venue_id):
        report = c.venue_run(venue_id, limit=limit, batch=batch, wait=not no_wait).summarize(force=force)
    finish(report.ok)


@cli.command()
@click.argument("venue_id", metavar="VENUE")
@asking_options(force=None, dry_run="Read the venue's list and say what a run would do and cost; change nothing.")
@click.option("--notes", "with_notes", is_flag=True, help="Then write notes for the papers whose summary is approved.")
@pass_ctx
def run(
    c: Context, venue_id: str, limit: int | None, batch: bool, no_wait: bool, with_notes: bool, dry_run: bool
) -> None:
    """fetch + summarize (+ notes) + build --drafts: a venue from its list to a preview site."""
    from summarizer.pipeline import build_preview  # start-up: see the module doc

    check_batch_flags(batch, no_wait)
    if dry_run:
        _dry_run(c, venue_id, limit)
        return
    with c.reaching_out():
        c.settings.llm.api_key()  # a missing key stops here, not after the whole fetch
        venue_run = c.venue_run(venue_id, limit=limit, batch=batch, wait=not no_wait)
        venue_run.run(with_notes=with_notes)
        preview = build_preview(c.settings, c.store, progress=console.PROGRESS)
    console.print_report(preview)
    console.info(f"preview: {console.mkdocs_serve(f'{preview.subject}/mkdocs.yml')}")
    finish(venue_run.ok)


def _dry_run(c: Context, venue_id: str, limit: int | None) -> None:
    """``run --dry-run``: the source read and counted, the summaries priced; nothing written, no key needed."""
    from summarizer.core.usage import estimate  # start-up: see the module doc
    from summarizer.fetch import preview_venue  # start-up: see the module doc

    with c.reaching_out():
        report = preview_venue(c.settings, c.store, venue_id, limit=limit)
    console.print_report(report)
    llm = c.settings.llm
    price = llm.price_per_million
    papers = report.counts.get("to summarize", 0)
    guess = estimate(papers, input_token_budget=llm.input_token_budget, price_in=price.input, price_out=price.output)
    console.info(
        f"summarizing them: about {guess.prompt_tokens:,} prompt and {guess.completion_tokens:,} completion tokens, "
        f"${guess.cost_usd:.4f} with {llm.model} at llm.price_per_million "
        f"(each paper read up to llm.input_token_budget = {llm.input_token_budget:,} tokens; "
        f"--batch: ${guess.cost_usd * llm.batch_price_factor:.4f}); nothing was downloaded, asked or written"
    )


cli.add_command(notes)


@cli.command()
@click.argument("ref", metavar="VENUE/ID")
@click.option("--feedback", help="What to change, in words for the model (审稿意见).")
@click.option("--notes", "note", is_flag=True, help="Regenerate the paper's note, not its summary.")
@pass_ctx
def regen(c: Context, ref: str, feedback: str | None, note: bool) -> None:
    """Regenerate one summary (or with --notes its note) with a fresh model call; the result waits as a draft."""
    from summarizer.summarize.notes import regenerate_note  # start-up: see the module doc
    from summarizer.summarize.online import regenerate  # start-up: see the module doc

    venue_id, paper_id = split_ref(ref)
    with c.reaching_out(), c.locked(venue_id) as store:
        again = regenerate_note if note else regenerate
        done = again(c.settings, store, venue_id, paper_id, feedback=feedback)
    tell(done.lines)


cli.add_command(review)


# -- site, import and export, status ------------------------------------------


@cli.command()
@click.argument("venue_ids", nargs=-1, metavar="[VENUE]...")
@click.option("--drafts", is_flag=True, help="Build the preview (outputs/preview/) from every non-rejected paper.")
@pass_ctx
def build(c: Context, venue_ids: tuple[str, ...], drafts: bool) -> None:
    """Write the site (approved summaries only) as MkDocs pages.

    With VENUE... the site holds just those venues; with none, every configured venue.
    """
    from summarizer.site import build_site  # start-up: see the module doc

    for venue_id in venue_ids:
        c.settings.venue(venue_id)
    with c.site_locked(drafts=drafts):
        report = build_site(c.settings, c.store, list(venue_ids) or None, drafts=drafts, progress=console.PROGRESS)
    console.print_report(report)


@cli.command("import")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--skip-invalid", is_flag=True, help="Import the valid lines; write the others to a rejected file.")
@click.option(
    "--rejected",
    "rejected_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help=(
        "Where --skip-invalid writes the rejected lines, a new file "
        "(default: FILE.rejected.jsonl, numbered when taken)."
    ),
)
@pass_ctx
def import_(c: Context, file: Path, skip_invalid: bool, rejected_path: Path | None) -> None:
    """Import summaries from a JSONL file (one paper a line), all or nothing unless --skip-invalid;
    or notes from a folder of Markdown note files (VENUE/FIELD/*.md), each matched to its paper."""
    from summarizer.review.importing import apply_import, check_import  # start-up: see the module doc

    if file.is_dir():
        _import_notes(c, file, skip_invalid or rejected_path is not None)
        return
    try:
        plan = check_import(file, c.settings, c.store, skip_invalid=skip_invalid, rejected_path=rejected_path)
    except ImportProblems as exc:
        for problem in exc.problems:
            console.warn(problem)
        raise
    with c.locked_venues(plan.venues) as store:
        result = apply_import(plan, store)
    console.print_report(result.report(file))
    finish(result.rejected == 0)


def _import_notes(c: Context, folder: Path, line_options: bool) -> None:
    """Every note file of ``folder``, matched to its record and stored as a human (imported) note version."""
    from summarizer.review.note_import import apply_notes, check_notes  # start-up: see the module doc

    if line_options:
        raise UsageError("--skip-invalid and --rejected are for a JSONL file; a notes folder imports what it can")
    plan = check_notes(folder, c.settings, c.store)
    with c.locked_venues(plan.venues) as store:
        report = apply_notes(plan, store)
    console.print_report(report)
    finish(report.ok)


@cli.command()
@click.argument("venue_id", metavar="VENUE")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write to FILE, not stdout.")
@pass_ctx
def export(c: Context, venue_id: str, output: Path | None) -> None:
    """Write the venue's summaries as JSONL (the import format), sorted by id."""
    from summarizer.review.exporting import export_jsonl  # start-up: see the module doc

    c.settings.venue(venue_id)
    if output is None:
        written, skipped = export_jsonl(venue_id, c.store, sys.stdout)
    else:
        buffer = io.StringIO()
        written, skipped = export_jsonl(venue_id, c.store, buffer)
        atomic_write_text(output, buffer.getvalue())
    skipped_note = f" ({skipped} without a summary left out)" if skipped else ""
    console.info(f"exported {plural(written, 'paper')} of {venue_id}{skipped_note}")


@cli.command()
@click.argument("venue_id", metavar="[VENUE]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_ctx
def status(c: Context, venue_id: str | None, as_json: bool) -> None:
    """Counts by stage and review status, failures with reasons, tokens and cost."""
    from .status import all_status, store_status  # start-up: see the module doc
    from .views import print_status  # start-up: see the module doc

    if venue_id is not None:
        c.settings.venue(venue_id)
        data: Any = store_status(c.store, venue_id)
    else:
        data = all_status(c.settings, c.store)
    if as_json:
        click.echo(json_terminal_safe(json.dumps(data, ensure_ascii=False, indent=2)))
    else:
        print_status(data if isinstance(data, list) else [data])


@cli.command()
@click.option("--batch", is_flag=True, help="Summarise through the stand-in provider's Batch API.")
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder to run the demo in (default: ./summarizer-demo); made and filled on first use.",
)
@click.pass_context
def demo(ctx: click.Context, batch: bool, folder: Path | None) -> None:
    """Run the whole pipeline on a bundled sample venue, offline, with no API key."""
    from summarizer.apps.demo.run import run_demo  # start-up: see the module doc

    if isinstance(ctx.obj, Context):
        ctx.obj.on_work_start()
    run_demo(folder, batch=batch)


cli.add_command(evaluate)


@cli.command()
@click.argument("folder", metavar="[DIR]", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--local",
    is_flag=True,
    help="Set llm for a model served on this machine (llama-cpp-python or llama-server at 127.0.0.1:8080).",
)
def init(folder: Path | None, local: bool) -> None:
    """Start a project in DIR (default: here): a commented config.yaml, a sample venue list, prompts/."""
    from .init import LOCAL_KEY_ENV, VENUE, init_project  # start-up: see the module doc

    target = folder or Path(".")
    written = init_project(target, local=local)
    for path in written:
        console.info(f"wrote {os.path.relpath(path)}")
    config = os.path.relpath(target / "config.yaml")
    run = invocation.command_prefix(config)
    first = (
        f"start the model server on 127.0.0.1:8080 (README: A local model), export {LOCAL_KEY_ENV}=local"
        if local
        else f"set llm (your provider) in {shlex.quote(config)}"
    )
    console.info(
        f"next: {first}, list your papers in venues/{VENUE}.txt, then\n  {run} status\n  {run} run {VENUE} --limit 3"
    )


# Made from the commands themselves, after the last is added, so `--help` cannot disagree with them.
cli.epilog = surface(cli)
