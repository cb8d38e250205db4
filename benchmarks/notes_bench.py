"""`make bench` rows for per-paper notes: `notes` of the summarised papers, against the same ideal as summaries.

``prepare`` copies the summarised project once per run and approves every summary there (a note is
written for a paper whose summary is approved); ``rows`` runs `notes` on each copy against the same
stand-in provider (its latency, `llm.max_concurrency`), takes the best wall time against ⌈N/C⌉ ×
latency, and estimates what a note costs for the real PDFs at gpt-4o-mini's prices (`notes --dry-run`'s
estimate: the prompt as sent, and the output a note of the reference's median length costs).
"""

from __future__ import annotations

import math
import shutil
import statistics
from pathlib import Path
from typing import Any

from summarizer.core.config_file import load_settings
from summarizer.core.records import FetchState, Record
from summarizer.core.tokens import estimate_tokens
from summarizer.fetch.pdf_text import extract_pdf
from summarizer.summarize.note_schema import response_schema
from summarizer.summarize.note_task import NoteTask
from summarizer.testing.fake_openai import FakeOpenAI, RecordedRequest

RUNS = 3
TARGET = 1.15  # × ⌈N/C⌉ × latency, as for summaries
GPT_4O_MINI = (0.15, 0.60)  # USD per million input / output tokens


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
        record.add_version("本文提出一种方法，" * 12, ["LLM"], settings.fields[0].id, "llm")
        record.approve()
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
