"""`make bench` rows for per-paper notes: `notes` of the summarised papers, against the same ideal as summaries.

``prepare`` copies the summarised project once per run and approves every summary there (a note is
written for a paper whose summary is approved); ``rows`` runs `notes` on each copy against the same
stand-in provider (its latency, `llm.max_concurrency`), takes the best wall time against ⌈N/C⌉ ×
latency, and estimates what a note costs for the real PDFs at gpt-4o-mini's prices (`notes --dry-run`'s
estimate: the prompt as sent, and the output a note of the reference's median length costs).
``build_rows`` times `build` once every paper of the build row's project has an approved note.
"""

from __future__ import annotations

import math
import shutil
import statistics
from pathlib import Path
from typing import Any

from summarizer.core.config_file import load_settings
from summarizer.core.records import FetchState, Record
from summarizer.core.store import Store
from summarizer.core.tokens import estimate_tokens
from summarizer.fetch.pdf_text import extract_pdf
from summarizer.summarize.note_answer import check_note
from summarizer.summarize.note_schema import response_schema
from summarizer.summarize.note_task import NoteTask
from summarizer.testing.fake_openai import FakeOpenAI, RecordedRequest
from summarizer.testing.fake_requests import default_note

RUNS = 3
TARGET = 1.15  # × ⌈N/C⌉ × latency, as for summaries
GPT_4O_MINI = (0.15, 0.60)  # USD per million input / output tokens
NOTES_BUILD_TARGET = 1.5  # a rebuild of a site whose every paper has a note, × the same site's without notes (CPU)


def prepare(bench: Any, summarised: Path, work: Path, venue: str) -> list[Path]:
    """RUNS copies of the summarised project, every summary approved in each."""
    base = work / "notes-0"
    shutil.copytree(summarised, base)
    bench.cli(base / "config.yaml", "review", "approve", venue, "--all")
    copies = [base]
    for i in range(1, RUNS):
        copies.append(work / f"notes-{i}")
        shutil.copytree(base, copies[-1])
    return copies


def _peak(requests: list[RecordedRequest]) -> int:
    events = sorted([(r.started, 1) for r in requests] + [(r.finished, -1) for r in requests])
    peak = now = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


def rows(res: Any, bench: Any, copies: list[Path], provider: FakeOpenAI, venue: str, n: int, latency: float) -> Any:
    runs = []
    for project in copies:
        before = len(provider.requests)
        run = bench.cli(project / "config.yaml", "notes", venue)
        runs.append((run, sorted(provider.requests[before:], key=lambda r: r.started)))
    run, requests = min(runs, key=lambda pair: pair[0].wall_s)
    concurrency = load_settings(copies[0] / "config.yaml").llm.max_concurrency
    ideal = math.ceil(n / concurrency) * latency
    ratio = run.wall_s / ideal
    walls = ", ".join(f"{r.wall_s:.2f}" for r, _ in runs)
    res.add(
        f"notes {n} papers, C={concurrency}, latency {latency:g} s: wall vs ideal ⌈N/C⌉×latency (best of {len(runs)})",
        f"{run.wall_s:.2f} s vs {ideal:.2f} s = {ratio:.2f}× (all: {walls} s)",
        f"≤ {TARGET:.2f}×",
        ratio <= TARGET,
    )
    peak = _peak(requests)
    res.add(
        "  peak concurrency, calls per paper",
        f"{peak}, {len(requests) / n:.2f}",
        f"{concurrency}, 1.00",
        peak == concurrency and len(requests) == n,
    )
    return run


def cost_rows(res: Any, config: Path, real_pdfs: Path, venue: str) -> None:
    """A note's input for the real PDFs as `notes --dry-run` estimates it, and its cost at gpt-4o-mini's prices."""
    pdfs = sorted(real_pdfs.glob("*.pdf")) if real_pdfs.is_dir() else []
    if not pdfs:
        res.add("note input tokens and cost per paper, real PDFs", "skipped", "—", None)
        return
    settings = load_settings(config)
    task = NoteTask(settings)
    schema = estimate_tokens(str(response_schema(False)))
    inputs = []
    for pdf in pdfs:
        text = extract_pdf(pdf)
        relative = f"text/bench-{pdf.stem}.json"  # where fetch would keep it: the note reads it from there
        (settings.cache_dir / relative).parent.mkdir(parents=True, exist_ok=True)
        (settings.cache_dir / relative).write_text(text.to_json(), encoding="utf-8")
        record = Record(venue=venue, id=pdf.stem.replace(".", "_"), title=text.title or pdf.stem)
        record.summaries.add_version("本文提出一种方法，" * 12, ["LLM"], settings.fields[0].id, "llm")
        record.summaries.approve()
        record.fetch = FetchState(text_path=relative)
        inputs.append(sum(estimate_tokens(m["content"]) for m in task.messages(record)) + schema)
    out = task.expected_output_tokens
    online = (statistics.median(inputs) * GPT_4O_MINI[0] + out * GPT_4O_MINI[1]) / 1_000_000
    res.add(
        f"a note, real PDFs ({len(pdfs)}): input tokens median (max), output as estimated; cost at gpt-4o-mini prices",
        f"{statistics.median(inputs):.0f} ({max(inputs)}) in, {out} out: ${online:.4f} online, "
        f"${online * settings.llm.batch_price_factor:.4f} batch",
        f"input ≤ {settings.notes.input_token_budget} of paper text + prompt",
        None,
    )


# -- `build` with a note on every paper -------------------------------------------------------------------------


def bench_note(other_arxiv: str) -> str:
    """A model's note as `notes` stores it (the loopback provider's answer, grown to about the reference's median
    length with its header and summary): math, two tables, and a comparison naming another paper's arXiv id."""
    prompt = "标题：某篇论文\n<paper>\n标题：某篇论文\n71.2 64.0 12.5 3.4</paper>"
    body = {"messages": [{"role": "user", "content": prompt}]}
    data = default_note(body)
    data["background"] += "\n" + data["background"].replace("1.", "4.").replace("2.", "5.").replace("3.", "6.")
    designs = data["method"]["key_designs"]
    data["method"]["key_designs"] = [*designs, {**designs[0], "name": "分块计算"}, {**designs[1], "name": "缓存复用"}]
    data["experiments"]["ablations"] *= 4
    data["experiments"]["findings"] += ["在 \\(n=128\\) 的长序列上收益最大。", "与 KV cache 量化方法可以叠加使用。"]
    data["highlights"] *= 2
    data["limitations"] *= 2
    related = data["related_work"][0]
    data["related_work"].append({**related, "name": "另一篇论文", "venue_year": "CONF 2025", "arxiv_id": other_arxiv})
    return check_note(data, ratings=False).markdown


def with_notes(root: Path) -> int:
    """An approved note on every paper of the build project at ``root``; the number of notes."""
    store = Store(root / "outputs")
    n = 0
    for venue in store.venues():
        for record in store.records(venue):
            record.notes.add_version(bench_note(f"2501.{(n + 1) % 5000:05d}"), "llm", model="bench-model")
            record.notes.approve()
            store.save(record)
            n += 1
    return n


def build_rows(res: Any, bench: Any, config: Path, without: tuple[Any, Any]) -> None:
    """`build` and its rebuild again, now that every paper has a note (``without``: the two runs before).

    CPU time, not wall time, is compared: the first build writes every paper page again, and on a shared
    machine its wall time is mostly the disk.
    """
    n = with_notes(config.parent)
    first, again = bench.cli(config, "build"), bench.cli(config, "build")
    for name, with_, before in (
        (f"  with an approved note on every paper ({n}; every paper page rewritten)", first, without[0]),
        ("  rebuild with notes, nothing changed", again, without[1]),
    ):
        ratio = with_.cpu_s / before.cpu_s
        res.add(
            name,
            f"{with_.wall_s:.2f} s; {with_.cpu_s:.2f} s CPU, {ratio:.2f}× without notes ({before.cpu_s:.2f} s)",
            f"CPU ≤ {NOTES_BUILD_TARGET:.2f}× without",
            ratio <= NOTES_BUILD_TARGET,
        )
    extra_ms = (again.cpu_s - without[1].cpu_s) / n * 1000
    res.notes.append(
        f"Notes on the site: a build renders each paper's approved note into its page (`site/paper_note.py`); with "
        f"a note on each of {n} papers (about {len(bench_note('2501.00001')):,} characters of sections) a rebuild "
        f"spends {extra_ms:.2f} ms more CPU a paper: reading the larger records, making the note safe for the page "
        "(`core/note_markdown.py`), comparing and hashing larger pages."
    )
