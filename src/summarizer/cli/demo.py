"""`summarizer demo`: the real pipeline on a bundled sample venue, offline, with no API key.

The demo runs the same stages as a real venue — fetch, extract, summarize,
review, build — with the demo's own ``config.yaml``.  Only the outside world is
replaced, by the loopback stand-ins of ``summarizer.testing``: a fake arXiv
that serves the fictional papers of ``papers.yaml`` (their PDFs are generated
from the paper text), and a fake OpenAI-compatible provider that replays the
recorded summaries written for the demo.  Nothing leaves the machine and no key
is needed.

The demo's files live in ``examples/demo/`` of the repository; the wheel ships
them as ``summarizer/demo_data/`` (see ``pyproject.toml``).  The demo runs in a
folder of its own (``./summarizer-demo/`` unless ``--dir`` says otherwise): on
first use the config, paper list and venue lists are copied there, and the
records, caches and site are written beside them — never into the installed
package.  A folder that already holds a demo (``examples/demo`` itself, or an
earlier run) is used as it is, so a second run costs nothing.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import summarizer.cli.console as console
from summarizer.core import locks
from summarizer.core.config import Settings
from summarizer.core.config_file import load_settings
from summarizer.core.errors import SummarizerError, UsageError
from summarizer.core.store import Store
from summarizer.fetch import fetch_venue
from summarizer.review.actions import approve
from summarizer.site import build_site
from summarizer.summarize.batch import summarize_venue_batch
from summarizer.summarize.online import summarize_venue
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.fake_openai import FakeOpenAI, paper_title

PLACEHOLDER_KEY = "demo-placeholder-not-a-real-key"
DEFAULT_DIR = Path("summarizer-demo")
# What a demo folder is made of (examples/demo may also hold the outputs and caches of earlier runs).
DEMO_FILES = ("config.yaml", "papers.yaml", "venues")
SHIPPED_DIR = "demo_data"  # the wheel's copy of examples/demo (pyproject.toml: force-include)
REPLAY_LATENCY_S = 0.3  # a little model latency, so the progress and the overlap are visible
BATCH_POLL_S = 0.3  # `demo --batch`: the stand-in's batches finish in four polls


@dataclass
class DemoPaper:
    venue: str
    paper: FakePaper
    answer: dict[str, Any]


def shipped_demo_dir() -> Path:
    """The demo's files: ``examples/demo`` of the source checkout, else the installed wheel's copy."""
    package = Path(__file__).resolve().parents[1]  # src/summarizer in a checkout, summarizer/ in a wheel
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


def load_papers(path: Path) -> list[DemoPaper]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    papers = []
    for item in data["papers"]:
        paper = FakePaper(
            arxiv_id=str(item["arxiv_id"]),
            title=item["title"],
            abstract=item["abstract"],
            authors=list(item["authors"]),
            categories=list(item["categories"]),
            comment=item.get("comment"),
            published="2026-12-01T08:00:00Z",
            sections=list(item["sections"].items()),
        )
        papers.append(DemoPaper(venue=item["venue"], paper=paper, answer=dict(item["answer"])))
    return papers


def replay(papers: list[DemoPaper]) -> Any:
    """The stand-in provider's answer: the recorded summary of the paper the prompt names."""
    by_title = {p.paper.title: p.answer for p in papers}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        title = paper_title(body)
        if title not in by_title:
            raise KeyError(f"no recorded answer for {title!r}")
        return by_title[title]

    return answer


def _run_stages(settings: Settings, store: Store, batch: bool) -> bool:
    ok = True
    progress = console.PROGRESS
    for venue in settings.venues:
        with locks.venue(store, venue.id):
            fetched = fetch_venue(settings, store, venue.id, progress=progress)
            console.print_report(fetched)
            if batch:
                summarized = summarize_venue_batch(settings, store, venue.id, progress=progress)
            else:
                summarized = summarize_venue(settings, store, venue.id, progress=progress)
            console.print_report(summarized)
        ok = ok and fetched.ok and summarized.ok
    return ok


def _approve_drafts(settings: Settings, store: Store) -> None:
    console.info("review: approving every draft (an editor would read them first: summarizer review list VENUE)")
    for venue in settings.venues:
        with locks.venue(store, venue.id):
            done = approve(settings, store, venue.id, None)
        for line in done.lines:
            console.info(line)


def _closing_note(settings: Settings, site_root: Path) -> None:
    config = os.path.relpath(settings.config_file)
    pages = sorted(site_root.glob("docs/*/*/index.md"))
    page = max(pages, key=lambda p: (p.stat().st_size, str(p)), default=None)  # the fullest page
    out = console.out
    out.print()
    if page is not None:
        out.print(f"[bold]One of the pages[/bold] ({os.path.relpath(page)}):\n")
        out.print(page.read_text(encoding="utf-8"), markup=False, highlight=False)
    out.print("[bold]Done.[/bold] The demo's papers are fictional and their summaries are recorded samples.")
    out.print(f"  demo folder: {os.path.relpath(settings.config_file.parent)}/", markup=False)
    out.print(f"  site:        {os.path.relpath(site_root)}/docs/", markup=False)
    out.print(f"  serve it:    {console.mkdocs_serve(f'{os.path.relpath(site_root)}/mkdocs.yml')}", markup=False)
    out.print(f"  records:     summarizer --config {config} review list ICML2026", markup=False)
    out.print(f"  a real venue, with a real key: a config.yaml like {config} (see the README), then", markup=False)
    out.print("    export OPENAI_API_KEY=sk-...  &&  summarizer run ICML2026", markup=False)


def run_demo(folder: Path | None = None, *, batch: bool = False) -> None:
    """Run the demo in ``folder`` (default ``./summarizer-demo``; see the module doc); its outputs land there.

    ``batch``: summarise through the stand-in's Batch API (``summarize --batch``), polling quickly.
    """
    folder = prepare_folder(folder or DEFAULT_DIR)
    settings = load_settings(folder / "config.yaml")
    papers = load_papers(folder / "papers.yaml")
    os.environ.setdefault(settings.llm.api_key_env, PLACEHOLDER_KEY)
    store = Store(settings.outputs_dir)
    console.info(
        f"demo: {len(papers)} fictional papers, {len(settings.venues)} venues, "
        f"offline stand-ins for arXiv and the model provider; writing to {os.path.relpath(folder)}/"
    )
    with (
        FakeArxiv([p.paper for p in papers]) as arxiv_stub,
        FakeOpenAI(answer=replay(papers), latency=REPLAY_LATENCY_S, model=settings.llm.model) as provider,
    ):
        settings.arxiv.api_url = arxiv_stub.api_url
        settings.llm.base_url = provider.base_url
        settings.llm.batch_poll_s = min(settings.llm.batch_poll_s, BATCH_POLL_S)
        ok = _run_stages(settings, store, batch)
        _approve_drafts(settings, store)
        with locks.site(settings.outputs_dir, drafts=False):
            report = build_site(settings, store, None, drafts=False)
        console.print_report(report)
    _closing_note(settings, Path(report.subject))
    if not ok:
        raise SummarizerError("the demo had failures (listed above): please report this as a bug")
