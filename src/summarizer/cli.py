"""The command line: parses arguments, calls the stages, turns errors into one line and an exit code.

Exit codes: 0 all done; 1 some papers failed (the rest is saved, the
failures are listed with reasons); 2 a usage or configuration error.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import traceback
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from . import console
from .errors import FileSystemError, SummarizerError, UsageError, clip

if TYPE_CHECKING:  # imported where used: `--help` needs neither pydantic, yaml nor filelock
    from .config import Settings
    from .store import Store


class Context:
    """Settings are loaded on first use, so ``--help`` works without a config file."""

    def __init__(self, config_path: str | None):
        self.config_path = config_path
        self._settings: Settings | None = None
        self._store: Store | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from .config import load_settings

            self._settings = load_settings(self.config_path)
            _start_work()
        return self._settings

    @property
    def store(self) -> Store:
        """One store per command: the corrupt records it skips are reported once and set the exit code."""
        if self._store is None:
            from .store import Store

            self._store = Store(self.settings.outputs_dir, warn=console.warn)
        return self._store

    @property
    def corrupt(self) -> int:
        return len(self._store.corrupt) if self._store is not None else 0

    # The one place commands take locks (the desk and the demo use the same ``locks`` module).
    @contextlib.contextmanager
    def locked(self, venue: str) -> Iterator[Store]:
        """The store, holding the venue's lock: a configured venue, one writing command at a time."""
        self.settings.venue(venue)
        from . import locks

        with locks.venue(self.store, venue) as store:
            yield store

    @contextlib.contextmanager
    def locked_venues(self, venues: Iterable[str]) -> Iterator[Store]:
        """Every venue's lock, or none: all are held before anything is written."""
        with contextlib.ExitStack() as held:
            for venue in sorted(set(venues)):
                held.enter_context(self.locked(venue))
            yield self.store

    def site_locked(self, *, drafts: bool) -> contextlib.AbstractContextManager[Path]:
        """The lock of ``outputs/site`` (``outputs/preview`` with ``drafts``): one build of a folder at a time."""
        from . import locks

        return locks.site(self.settings.outputs_dir, drafts=drafts)


pass_ctx = click.make_pass_decorator(Context)


def split_ref(ref: str) -> tuple[str, str]:
    venue, sep, paper = ref.partition("/")
    if not sep or not venue or not paper:
        raise UsageError(f"expected VENUE/ID, got {ref!r} (e.g. ICML2026/2501.12948)")
    return venue, paper


def _check_batch_flags(batch: bool, no_wait: bool) -> None:
    if no_wait and not batch:
        raise UsageError("--no-wait goes with --batch (the online path always waits for its answers)")


def tell(lines: list[str]) -> None:
    """What a review action did (its ``Done.lines``), one info line each."""
    for line in lines:
        console.info(line)


def finish(ok: bool) -> None:
    if not ok:
        sys.exit(1)


COMMAND_SURFACE = """\b
Commands at a glance:
  fetch VENUE [--limit N]             summarize VENUE [--limit N] [--force] [--batch [--no-wait]]
  run VENUE [--limit N] [--batch [--no-wait]]    regen VENUE/ID [--feedback TEXT]
  review list VENUE [--status draft|approved|rejected]
  review show VENUE/ID                review approve VENUE/ID... | review approve VENUE --all
  review reject VENUE/ID --note TEXT  review edit VENUE/ID [--summary TEXT] [--tags A,B] [--field ID]
  review serve [VENUE...] [--host 127.0.0.1] [--port N] [--no-browser]
  build [VENUE...] [--drafts]         export VENUE [-o FILE]
  import FILE.jsonl [--skip-invalid] [--rejected PATH]
  status [VENUE] [--json]             demo [--batch] [--dir PATH]

\b
Exit codes: 0 all done; 1 some papers failed (the rest is saved); 2 usage or configuration error.
Set SUMMARIZER_DEBUG=1 to see tracebacks."""


class _PipeClosed(Exception):
    """stdout's reader went away; raised instead of BrokenPipeError, which click would turn into exit 1."""


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise _PipeClosed() from exc


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=COMMAND_SURFACE,
)
@click.option(
    "--config",
    "config_path",
    metavar="PATH",
    help="Config file (default: $SUMMARIZER_CONFIG, else ./config.yaml).",
)
@click.option("-v", "--verbose", count=True, help="Show diagnostics: retries, waits, mode switches (-vv: debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors: no progress, no info lines.")
@click.version_option(package_name="summarizer")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, verbose: int, quiet: bool) -> None:
    """Turn a conference's accepted papers into Chinese digest pages.

    Batch-generate a venue (run), regenerate one summary (regen), review
    drafts before publishing (review, build).
    """
    if quiet and verbose:
        raise UsageError("-q and -v contradict each other: give one")
    console.set_verbosity(console.QUIET if quiet else min(verbose, console.DEBUG))
    if isinstance(ctx.obj, Context):  # main() made it, to look at the store after the command
        ctx.obj.config_path = config_path
    else:
        ctx.obj = Context(config_path)


# -- pipeline ---------------------------------------------------------------


@cli.command()
@click.argument("venue")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N papers of the list.")
@pass_ctx
def fetch(c: Context, venue: str, limit: int | None) -> None:
    """Read the venue's list, fetch arXiv metadata and PDFs, extract the text."""
    from .sources import fetch_venue

    with c.locked(venue) as store:
        report = fetch_venue(c.settings, store, venue, limit=limit)
    console.print_report(report)
    finish(report.ok)


@cli.command()
@click.argument("venue")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N papers.")
@click.option("--force", is_flag=True, help="Ignore the cache and re-summarise drafts and rejected papers.")
@click.option("--batch", is_flag=True, help="Through the provider's Batch API: half price, results within 24 h.")
@click.option("--no-wait", is_flag=True, help="With --batch: submit and exit; run the same command later to collect.")
@pass_ctx
def summarize(c: Context, venue: str, limit: int | None, force: bool, batch: bool, no_wait: bool) -> None:
    """Write a draft summary for every fetched paper that has none."""
    from .summarize import summarize_venue

    _check_batch_flags(batch, no_wait)
    with c.locked(venue) as store:
        if batch:
            from .batch import summarize_venue_batch

            report = summarize_venue_batch(c.settings, store, venue, limit=limit, force=force, wait=not no_wait)
        else:
            report = summarize_venue(c.settings, store, venue, limit=limit, force=force)
    console.print_report(report)
    finish(report.ok)


@cli.command()
@click.argument("venue")
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N papers.")
@click.option("--batch", is_flag=True, help="Summarise through the provider's Batch API (half price, within 24 h).")
@click.option("--no-wait", is_flag=True, help="With --batch: submit and go on; run the same command later to collect.")
@pass_ctx
def run(c: Context, venue: str, limit: int | None, batch: bool, no_wait: bool) -> None:
    """fetch + summarize + build --drafts: a venue from its list to a preview site."""
    from .pipeline import run_venue
    from .site import build_site

    _check_batch_flags(batch, no_wait)
    c.settings.llm.api_key()  # a missing key stops here, not after the whole fetch
    with c.locked(venue) as store:
        ok = run_venue(
            c.settings, store, venue, limit=limit, batch=batch, wait=not no_wait, on_report=console.print_report
        )
        with c.site_locked(drafts=True):  # the preview is every venue's: its own lock, not just this venue's
            preview = build_site(c.settings, store, None, drafts=True)
    console.print_report(preview)
    console.info(f"preview: mkdocs serve -f {preview.subject}/mkdocs.yml")
    finish(ok)


@cli.command()
@click.argument("ref", metavar="VENUE/ID")
@click.option("--feedback", help="What to change, in words for the model (审稿意见).")
@pass_ctx
def regen(c: Context, ref: str, feedback: str | None) -> None:
    """Regenerate one summary with a fresh model call; the result waits as a draft."""
    from .review import regenerate

    venue, paper = split_ref(ref)
    with c.locked(venue) as store:
        done = regenerate(c.settings, store, venue, paper, feedback=feedback)
    tell(done.lines)


# -- review -----------------------------------------------------------------


@cli.group()
def review() -> None:
    """Review drafts: list, show, approve, reject, edit."""


@review.command("list")
@click.argument("venue")
@click.option("--status", type=click.Choice(["draft", "approved", "rejected"]), help="Only papers in this state.")
@pass_ctx
def review_list(c: Context, venue: str, status: str | None) -> None:
    """A table of the venue's papers: status, field, tags, length, warnings, model, age."""
    from .review import listed
    from .review_view import print_list

    c.settings.venue(venue)
    print_list(c.settings, venue, listed(c.store, venue, status=status), status=status)


@review.command("show")
@click.argument("ref", metavar="VENUE/ID")
@pass_ctx
def review_show(c: Context, ref: str) -> None:
    """Title, link, abstract and summary side by side, tags, field and history."""
    from .review_view import print_paper

    venue, paper = split_ref(ref)
    c.settings.venue(venue)
    print_paper(c.settings, c.store.load(venue, paper))


@review.command("approve")
@click.argument("refs", nargs=-1, required=True, metavar="VENUE/ID... | VENUE --all")
@click.option("--all", "approve_all", is_flag=True, help="Approve every paper of VENUE that waits for review.")
@pass_ctx
def review_approve(c: Context, refs: tuple[str, ...], approve_all: bool) -> None:
    """Approve summaries for publishing."""
    from .review import approvable, approve, approve_records

    if approve_all:
        if len(refs) != 1 or "/" in refs[0]:
            raise UsageError("with --all give one VENUE: summarizer review approve ICML2026 --all")
        venue = refs[0]
        with c.locked(venue) as store:
            done = approve(c.settings, store, venue, None)
        tell(done.lines)
        return
    by_venue: dict[str, list[str]] = {}
    for ref in refs:
        if "/" not in ref:
            raise UsageError(
                f"expected VENUE/ID, got {ref!r} "
                f"(to approve every draft of a venue: summarizer review approve {ref} --all)"
            )
        venue, paper = split_ref(ref)
        by_venue.setdefault(venue, []).append(paper)
    with c.locked_venues(by_venue) as store:  # every venue locked and every ref checked before anything is saved
        checked = {venue: approvable(store, venue, papers) for venue, papers in by_venue.items()}
        lines = [line for venue, records in checked.items() for line in approve_records(store, venue, records).lines]
    tell(lines)


@review.command("reject")
@click.argument("ref", metavar="VENUE/ID")
@click.option("--note", required=True, help="Why: kept in the record for the next editor.")
@pass_ctx
def review_reject(c: Context, ref: str, note: str) -> None:
    """Reject a paper: it is left off the site and skipped by summarize."""
    from .review import reject

    venue, paper = split_ref(ref)
    with c.locked(venue) as store:
        done = reject(c.settings, store, venue, paper, note=note)
    tell(done.lines)


@review.command("edit")
@click.argument("ref", metavar="VENUE/ID")
@click.option("--summary", help="The new summary text.")
@click.option("--tags", help="Comma-separated tags, e.g. LLM,推理.")
@click.option("--field", "field_id", help="A field id from config.yaml.")
@pass_ctx
def review_edit(c: Context, ref: str, summary: str | None, tags: str | None, field_id: str | None) -> None:
    """Edit a summary (a new version by a human); with no flags, opens $EDITOR."""
    from .review import TAG_SEPARATORS, edit, edit_in_editor, save_editor_result

    venue, paper = split_ref(ref)
    if summary is None and tags is None and field_id is None:
        c.settings.venue(venue)
        edited = edit_in_editor(c.settings, c.store, venue, paper, tell=console.warn)  # no lock while a person types
        if edited is None:
            console.info("edit cancelled: nothing changed")
            return
        with c.locked(venue) as store:
            done = save_editor_result(c.settings, store, venue, paper, edited)
        tell(done.lines)
        return
    tag_list = [t for t in (s.strip() for s in TAG_SEPARATORS.split(tags)) if t] if tags is not None else None
    with c.locked(venue) as store:
        done = edit(c.settings, store, venue, paper, summary=summary, tags=tag_list, field=field_id)
    tell(done.lines)


@review.command("serve")
@click.argument("venues", nargs=-1, metavar="[VENUE...]")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (keep it local).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; just print the address.")
@pass_ctx
def review_serve(c: Context, venues: tuple[str, ...], host: str, port: int, no_browser: bool) -> None:
    """The review desk: review drafts in the browser (queue, side-by-side view, keys); Ctrl-C stops it."""
    from .desk import serve

    for venue in venues:
        c.settings.venue(venue)
    chosen = list(dict.fromkeys(venues)) or [v.id for v in c.settings.venues]
    serve(c.settings, chosen, host=host, port=port, open_browser=not no_browser)


# -- site, exchange, status ---------------------------------------------------


@cli.command()
@click.argument("venues", nargs=-1)
@click.option("--drafts", is_flag=True, help="Build the preview (outputs/preview/) from every non-rejected paper.")
@pass_ctx
def build(c: Context, venues: tuple[str, ...], drafts: bool) -> None:
    """Write the site (approved summaries only) as MkDocs pages.

    With VENUE... the site holds just those venues; with none, every configured venue.
    """
    from .site import build_site

    for venue in venues:
        c.settings.venue(venue)
    with c.site_locked(drafts=drafts):
        report = build_site(c.settings, c.store, list(venues) or None, drafts=drafts)
    console.print_report(report)


@cli.command("import")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--skip-invalid", is_flag=True, help="Import the valid lines; write the others to a rejected file.")
@click.option(
    "--rejected",
    "rejected_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Where --skip-invalid writes the rejected lines (default: FILE.rejected.jsonl).",
)
@pass_ctx
def import_(c: Context, file: Path, skip_invalid: bool, rejected_path: Path | None) -> None:
    """Import summaries from a JSONL file (one paper a line); all or nothing unless --skip-invalid."""
    from .exchange import ImportProblems, apply_import, check_import

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


@cli.command()
@click.argument("venue")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write to FILE, not stdout.")
@pass_ctx
def export(c: Context, venue: str, output: Path | None) -> None:
    """Write the venue's summaries as JSONL (the import format), sorted by id."""
    from .exchange import export_jsonl
    from .fsutil import atomic_write_text

    c.settings.venue(venue)
    if output is None:
        written, skipped = export_jsonl(venue, c.store, sys.stdout)
    else:
        import io

        buffer = io.StringIO()
        written, skipped = export_jsonl(venue, c.store, buffer)
        atomic_write_text(output, buffer.getvalue())
    skipped_note = f" ({skipped} without a summary left out)" if skipped else ""
    console.info(f"exported {written} papers of {venue}{skipped_note}")


@cli.command()
@click.argument("venue", required=False)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@pass_ctx
def status(c: Context, venue: str | None, as_json: bool) -> None:
    """Counts by stage and review status, failures with reasons, tokens and cost."""
    from .status import all_status, store_status

    if venue is not None:
        c.settings.venue(venue)
        data: Any = store_status(c.store, venue)
    else:
        data = all_status(c.settings, c.store)
    if as_json:
        from .textsafe import json_terminal_safe

        click.echo(json_terminal_safe(json.dumps(data, ensure_ascii=False, indent=2)))
    else:
        from .status import print_status

        print_status(data if isinstance(data, list) else [data])


@cli.command()
@click.option("--batch", is_flag=True, help="Summarise through the stand-in provider's Batch API.")
@click.option(
    "--dir",
    "folder",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder to run the demo in (default: ./summarizer-demo); made and filled on first use.",
)
def demo(batch: bool, folder: Path | None) -> None:
    """Run the whole pipeline on a bundled sample venue, offline, with no API key."""
    from .demo import run_demo

    _start_work()
    run_demo(folder, batch=batch)


# -- entry point ------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    console.set_verbosity(console.NORMAL)  # until the options say otherwise (an in-process run starts afresh)
    context = Context(None)
    code = _run(argv, context)
    if context.corrupt:
        console.warn(
            f"{context.corrupt} corrupt record{'s' if context.corrupt > 1 else ''} skipped (named above): "
            "everything else was done"
        )
        code = code or 1
    return code


def _run(argv: list[str] | None, context: Context) -> int:
    """The error boundary: every error becomes one line and an exit code (SUMMARIZER_DEBUG=1: a traceback)."""
    debug = os.environ.get("SUMMARIZER_DEBUG") == "1"
    try:
        cli.main(args=argv, prog_name="summarizer", standalone_mode=False, obj=context)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            console.err.print("interrupted: finished papers are saved; run the same command again to resume")
        else:
            console.err.print("aborted")
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except (BrokenPipeError, _PipeClosed):
        return _closed_pipe()
    except (SummarizerError, OSError) as exc:
        if debug:
            traceback.print_exc()
        error = _one_line(exc)
        console.err.print(f"[red]error:[/red] {console.shown(clip(str(error), console.MESSAGE_MAX))}")
        return error.exit_code
    except KeyboardInterrupt:
        if debug:
            raise
        console.err.print("interrupted: finished papers are saved; run the same command again to resume")
        return 130
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def _one_line(exc: SummarizerError | OSError) -> SummarizerError:
    if not isinstance(exc, OSError):
        return exc
    if exc.filename is not None:
        return FileSystemError.from_os_error(exc)
    return SummarizerError(f"{type(exc).__name__}: {exc}")  # a network or system error with no path


def _closed_pipe() -> int:
    """The reader went away (``export | head -1``): stop quietly, as cat does, with nothing more on stdout."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    return 0


# Start-up makes ~100,000 objects that live until the process ends (the classes of openai, pydantic,
# rich …). Left alone, the cyclic garbage collector walks them all over and over while the imports
# make them (~200 collections), in every full collection during the work, and once more at exit to
# free them one by one: ~0.3 s of a `summarize` (benchmarks/RESULTS.md, "Profile"). So `entry`
# (a process that runs one command) keeps the collector off through start-up, freezes what start-up
# made once the work begins (`_start_work`: settings loaded, the command's modules imported; the
# ~1,000 objects of garbage start-up leaves are frozen too, cheaper than a full collection), and
# freezes everything at exit, which leaves the memory to the OS. main() alone (the tests) is unchanged.
_startup_gc_off = False


def _start_work() -> None:
    global _startup_gc_off
    if _startup_gc_off:
        _startup_gc_off = False
        gc.freeze()
        gc.enable()


def entry() -> None:
    global _startup_gc_off
    _startup_gc_off = gc.isenabled()
    gc.disable()
    code = main()
    gc.freeze()  # streams are still flushed and atexit handlers still run
    sys.exit(code)
