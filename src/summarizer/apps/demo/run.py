"""`summarizer demo`: the real pipeline on a bundled sample venue, offline, with no API key.

The demo runs the same stages as a real venue — fetch, extract, summarize,
review, build — with the demo's own ``config.yaml``.  Only the outside world is
replaced, by the loopback stand-ins of ``summarizer.testing``: a fake arXiv
that serves the fictional papers of ``papers.yaml`` (their PDFs are generated
from the paper text), and a fake OpenAI-compatible provider that replays the
recorded summaries written for the demo.  Nothing leaves the machine and no key
is needed.

It approves the drafts it writes but for a few that ``papers.yaml`` leaves for the editor, each
flagged by a warning (an invented number, a near-duplicate, a length outside the house range), then
writes a note for every paper it approved (the recorded notes of ``papers.yaml``) and approves those
too, but for one note it leaves for the editor (flagged: a number not in the paper).  It ends with the
commands that review them: those commands run in the demo folder with the same stand-ins
(``stand_ins``), so the editor's loop works offline too.  It never approves a draft it did not
write in this run: a second run leaves an editor's edits and regenerations as they are.

The demo's files live in ``examples/demo/`` of the repository; the wheel ships
them as ``summarizer/demo_data/`` (see ``pyproject.toml``).  The demo runs in a
folder of its own (``./summarizer-demo/`` unless ``--dir`` says otherwise): on
first use the config, paper list and venue lists are copied there, and the
records, caches and site are written beside them — never into the installed
package.  A folder that already holds a demo (``examples/demo`` itself, or an
earlier run) is used as it is, so a second run costs nothing.  The copied
``config.yaml`` says ``stand_ins: demo``: that setting, not the files, gives the
demo's next commands their stand-ins (``stand_ins``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import summarizer.apps.cli.console as console
from summarizer.core.config import Settings
from summarizer.core.config_file import load_settings
from summarizer.core.errors import SummarizerError, UsageError
from summarizer.core.report import plural
from summarizer.core.store import Store
from summarizer.pipeline import VenueRun, build_preview
from summarizer.review.reviewing import NOTE, SUMMARY, ReviewedKind, approve

from .closing import closing_note
from .stand_ins import DEMO_SETTING, REPLAY_LATENCY_S, demo_papers, stand_ins

DEFAULT_DIR = Path("summarizer-demo")
# What a demo folder is made of (examples/demo may also hold the outputs and caches of earlier runs).
DEMO_FILES = ("config.yaml", "papers.yaml", "venues")
SHIPPED_DIR = "demo_data"  # the wheel's copy of examples/demo (pyproject.toml: force-include)


def shipped_demo_dir() -> Path:
    """The demo's files: ``examples/demo`` of the source checkout, else the installed wheel's copy."""
    package = Path(__file__).resolve().parents[2]  # src/summarizer in a checkout, summarizer/ in a wheel
    for candidate in (package.parents[1] / "examples" / "demo", package / SHIPPED_DIR):
        if (candidate / "config.yaml").is_file() and (candidate / "papers.yaml").is_file():
            return candidate
    raise UsageError(
        f"the demo's files are missing from this installation ({package / SHIPPED_DIR}): reinstall summarizer"
    )


def prepare_folder(folder: Path) -> Path:
    """``folder`` ready to run the demo in: an earlier demo folder as it is, else filled with the demo's files."""
    if (folder / "config.yaml").is_file() and (folder / "papers.yaml").is_file():
        return folder
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise UsageError(
            f"{folder} is not empty and holds no demo: give the demo a new or empty folder with --dir PATH"
        )
    source = shipped_demo_dir()
    folder.mkdir(parents=True, exist_ok=True)
    for name in DEMO_FILES:  # contents only: the copies get ordinary modes even from a read-only install
        if (source / name).is_dir():
            shutil.copytree(source / name, folder / name, copy_function=shutil.copyfile)
        else:
            shutil.copyfile(source / name, folder / name)
    return folder


def _newest(store: Store, venue_id: str, kind: ReviewedKind) -> dict[str, int | None]:
    """Each paper's newest version of ``kind`` now (None: none), to tell what this run writes."""
    newest = {r.id: kind.of(r).current for r in store.records(venue_id)}
    return {paper_id: (version.number if version else None) for paper_id, version in newest.items()}


def _approve_what_it_wrote(
    store: Store, venue_id: str, kind: ReviewedKind, before: dict[str, int | None], left: set[str]
) -> int:
    """Approve the drafts of ``kind`` this run wrote, but those ``left`` for the editor: never a draft it did not
    write (an editor's edit, a regenerated version, an import, a draft of an earlier run)."""
    written = []
    for record in store.records(venue_id):
        reviewed = kind.of(record)
        current = reviewed.current
        if current is None or current.origin != "llm" or reviewed.status != "draft":
            continue
        if before.get(record.id) != current.number and f"{venue_id}/{record.id}" not in left:
            written.append(record)
    if written:
        approve(store, venue_id, written, kind)
    return len(written)


def _run_venue(
    settings: Settings, store: Store, run: VenueRun, left: set[str], notes_left: set[str]
) -> tuple[int, int]:
    """The venue through the pipeline: its new drafts approved (but ``left``) before its notes are written,
    and those approved in turn (but ``notes_left``); (summaries approved, notes approved)."""
    before, notes_before = _newest(store, run.venue_id, SUMMARY), _newest(store, run.venue_id, NOTE)
    counts: list[int] = []
    run.run(
        with_notes=True,
        after_summaries=lambda: counts.append(_approve_what_it_wrote(store, run.venue_id, SUMMARY, before, left)),
        after_notes=lambda: counts.append(_approve_what_it_wrote(store, run.venue_id, NOTE, notes_before, notes_left)),
    )
    return counts[0], counts[1]


def _run_venues(
    settings: Settings, store: Store, batch: bool, left: set[str], notes_left: set[str]
) -> tuple[bool, int, int]:
    """Every venue run (``_run_venue``); (all went well, summaries approved, notes approved)."""
    ok, approved, notes_approved = True, 0, 0
    for venue in settings.venues:
        run = VenueRun(
            settings, store, venue.id, batch=batch, progress=console.PROGRESS, on_report=console.print_report
        )
        summaries, notes = _run_venue(settings, store, run, left, notes_left)
        approved, notes_approved, ok = approved + summaries, notes_approved + notes, ok and run.ok
    return ok, approved, notes_approved


def run_demo(folder: Path | None = None, *, batch: bool = False) -> None:
    """Run the demo in ``folder`` (default ``./summarizer-demo``; see the module doc); its outputs land there.

    ``batch``: summarise through the stand-in's Batch API (``summarize --batch``), polling quickly.
    """
    folder = prepare_folder(folder or DEFAULT_DIR)
    settings = load_settings(folder / "config.yaml")
    papers = demo_papers(settings)
    if papers is None:
        # The commands its closing lines print get the stand-ins only from the setting: without it they would
        # reach the real hosts, so the demo asks for the line rather than run a loop that breaks at its next step.
        raise UsageError(
            f"{os.path.relpath(settings.config_file)} does not choose the demo's offline stand-ins: add the line "
            f"`{DEMO_SETTING}` to it (a demo folder made before the setting lacks it), or give the demo a new "
            "folder with --dir PATH"
        )
    left = {f"{p.venue}/{p.paper.arxiv_id}" for p in papers if p.left_for_review}
    notes_left = {f"{p.venue}/{p.paper.arxiv_id}" for p in papers if p.note_left_for_review}
    store = Store(settings.outputs_dir)
    console.info(
        f"demo: {len(papers)} fictional papers, {len(settings.venues)} venues, "
        f"offline stand-ins for arXiv and the model provider; writing to {os.path.relpath(folder)}/"
    )
    with stand_ins(settings, papers, latency=REPLAY_LATENCY_S):
        ok, approved, notes_approved = _run_venues(settings, store, batch, left, notes_left)
        console.info(
            f"review: approved the {plural(approved, 'draft')} and {plural(notes_approved, 'note')} this run wrote "
            "that need no second look; the flagged ones wait for you (listed below)"
        )
        report = build_preview(settings, store, drafts=False)
        console.print_report(report)
    closing_note(settings, store, Path(report.subject), papers)
    if not ok:
        raise SummarizerError("the demo had failures (listed above): please report this as a bug")
