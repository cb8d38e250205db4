"""`make bench-local MODEL=path.gguf`: the demo's papers through a local model, scored by `eval`.

Starts llama-cpp-python's server (``.venv-local``, from ``make local-model``) with MODEL on 127.0.0.1,
serves the demo's fictional papers from the loopback arXiv, and runs the real stages in this process:
``fetch``, then ``summarize`` on the first N papers of each demo venue (one request at a time, as on a
laptop), then ``eval --against examples/demo/reference.jsonl``.  The model is real; nothing else is.

It prints one Markdown table and writes it into benchmarks/RESULTS.md, as the section "A local model on
the CPU" (``make bench`` keeps that section when it rewrites the rest), with each venue's eval report
under ``benchmarks/work/local/``:

- validity: the share of papers whose answer passed the rules on the first ask, and after re-asks
  (``llm.max_attempts``); the rest failed, and their reasons are listed;
- house length, field accuracy, tag recall, numbers not in the paper: ``eval``'s figures, over the
  papers that got a draft (a failed paper has no summary to score);
- tokens per second (completion tokens over the summarize stage's wall time) and papers per hour.

    .venv/bin/python benchmarks/bench_local.py MODEL.gguf [--papers 3] [--threads N] [--max-attempts 3]

Without MODEL it takes the SmolLM2-135M GGUF of ``make local-model``.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from summarizer.apps.demo.stand_ins import load_papers
from summarizer.apps.evaluate.against import evaluate, evaluate_venue, tag_settings, text_for_checks
from summarizer.apps.evaluate.metrics import Lengths, field_scores, number_check, tag_recall
from summarizer.apps.evaluate.reference import ReferenceLine
from summarizer.apps.evaluate.results import Evaluation
from summarizer.core.config import Settings
from summarizer.core.config_file import load_settings
from summarizer.core.store import Store
from summarizer.fetch import fetch_venue
from summarizer.pipeline import VenueRun
from summarizer.testing.fake_arxiv import FakeArxiv
from summarizer.testing.local_server import MODEL_NAME, LocalModel, LocalServer, local_model

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "demo"
WORK = REPO / "benchmarks" / "work" / "local"
KEY_ENV = "LOCAL_LLM_KEY"
INPUT_BUDGET = 1000  # tokens of the paper read: on two CPU cores the prompt is most of a paper's time
RESULTS = REPO / "benchmarks" / "RESULTS.md"
HEADING = "## A local model on the CPU"
LARGER = (
    "A larger model: `make bench-local MODEL=path/to/qwen2.5-1.5b-instruct-q4_k_m.gguf` (any GGUF; the server "
    "and its venv are the same). Expect minutes per paper on two cores: Qwen2.5-1.5B-Instruct Q4_K_M was seen "
    "to take about 200 s for one answer on these machines (a single try, not this benchmark)."
)


def project(root: Path, base_url: str, arxiv_url: str, max_attempts: int) -> Settings:
    """The demo's config and venue lists in ``root``, the model at ``base_url`` as the README's recipe sets it."""
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(DEMO / "venues", root / "venues")
    config = yaml.safe_load((DEMO / "config.yaml").read_text("utf-8"))
    config.pop("stand_ins")  # the real model answers here, not the demo's recorded replays
    config["llm"] = {
        "base_url": base_url,
        "model": MODEL_NAME,
        "api_key_env": KEY_ENV,
        "max_concurrency": 1,
        "max_attempts": max_attempts,
        "timeout_s": 900,
        "input_token_budget": INPUT_BUDGET,
        "max_output_tokens": 512,
        "price_per_million": {"input": 0, "output": 0},
    }
    config["arxiv"]["api_url"] = arxiv_url
    (root / "config.yaml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), "utf-8")
    return load_settings(root / "config.yaml")


def validity(store: Store, venues: list[str]) -> tuple[int, int, int, list[str]]:
    """(papers asked, valid at the first ask, valid after re-asks, the failures' reasons)."""
    asked = first = later = 0
    reasons = []
    for venue in venues:
        for record in store.records(venue):
            if not record.usage.llm_calls and "summarize" not in record.failures:
                continue
            asked += 1
            if record.summaries.current is not None:
                first += record.usage.llm_calls == 1
                later += record.usage.llm_calls > 1
            else:
                reasons.append(f"{venue}/{record.id}: {record.failures['summarize'].reason}")
    return asked, first, later, reasons


def share(part: float, whole: float) -> str:
    return f"{part / whole:.0%} ({part:g}/{whole:g})" if whole else "n/a"


@dataclass
class LastAnswer:
    """A paper's last answer: its draft, else the answer the rules rejected (when it was a JSON object)."""

    key: str
    summary: str
    tags: list[str]
    field: str
    reference: ReferenceLine
    text: str | None


def last_answers(settings: Settings, evaluation: Evaluation) -> list[LastAnswer]:
    out = []
    for pair in evaluation.matched.pairs:
        record, version = pair.record, pair.version
        if version is not None and version.origin == "llm":
            data: dict[str, object] = {"summary": version.summary, "tags": version.tags, "field": version.field}
        else:
            failure = record.failures.get("summarize")
            try:
                data = json.loads(failure.raw_output or "") if failure else {}
            except ValueError:
                continue
        if not isinstance(data, dict) or not isinstance(data.get("summary"), str):
            continue
        tags = (
            [str(t) for t in data.get("tags") or [] if isinstance(t, str)] if isinstance(data.get("tags"), list) else []
        )
        key = f"{record.venue}/{record.id}"
        text = text_for_checks(settings, record)
        out.append(LastAnswer(key, str(data["summary"]), tags, str(data.get("field")), pair.line, text))
    return out


def quality_rows(settings: Settings, answers: list[LastAnswer]) -> list[tuple[str, str]]:
    """``eval``'s measures over every paper's last answer, the rejected ones included."""
    said = [a for a in answers if a.summary.strip()]
    lengths = Lengths.of(a.summary for a in said)
    fields = field_scores([(a.reference.field, a.field) for a in answers], settings.field_ids())
    tags = tag_recall(((a.reference.reference_keywords, a.tags) for a in answers), tag_settings(settings, None))
    numbers = number_check((a.key, a.summary, a.text) for a in said)
    of = f" (of {len(answers)} last answers, rejected ones included)"
    return [
        ("house length" + of, share(lengths.n - lengths.outside_house, len(answers))),
        ("field accuracy" + of, share(round(fields.accuracy * fields.n), fields.n)),
        ("tag recall (mapped reference keywords)", share(tags.hits, tags.mapped)),
        ("numbers not in the paper (of non-empty summaries)", share(len(numbers.flagged), numbers.checked)),
    ]


def table(model: LocalModel, settings: Settings, store: Store, venues: list[str], wall_s: float) -> list[str]:
    asked, first, later, reasons = validity(store, venues)
    answers: list[LastAnswer] = []
    prompt = completion = 0
    for venue in venues:
        tags = tag_settings(settings, None)
        evaluation = evaluate(settings, store, venue, DEMO / "reference.jsonl", trust="all", tags=tags)
        evaluate_venue(settings, store, venue, DEMO / "reference.jsonl", out=WORK / "eval" / venue)
        answers += last_answers(settings, evaluation)
        prompt += sum(r.usage.prompt_tokens for r in store.records(venue))
        completion += sum(r.usage.completion_tokens for r in store.records(venue))
    rows = [
        ("model", f"`{model.gguf.name}` (llama-cpp-python server, CPU)"),
        ("papers asked", str(asked)),
        ("valid at the first ask", share(first, asked)),
        ("valid after re-asks", share(first + later, asked)),
        *quality_rows(settings, answers),
        ("tokens per second, prompt + completion (completion only)", tokens_rate(prompt, completion, wall_s)),
        ("papers per hour", f"{asked / (wall_s / 3600):.1f}" if wall_s else "n/a"),
        ("time per paper", f"{wall_s / asked:.0f} s" if asked else "n/a"),
    ]
    lines = ["| measure | value |", "| --- | --- |", *(f"| {k} | {v} |" for k, v in rows)]
    counted = collections.Counter(reason.split(": ", 1)[1].rsplit(" (after", 1)[0] for reason in reasons)
    lines += ["", "Failures (reason, papers):", *(f"- {why}: {n}" for why, n in counted.most_common())]
    return lines


def tokens_rate(prompt: int, completion: int, wall_s: float) -> str:
    if not wall_s:
        return "n/a"
    return f"{(prompt + completion) / wall_s:.1f} ({completion / wall_s:.1f}); {prompt:,} + {completion:,} tokens"


def kept_section(path: Path = RESULTS) -> str:
    """This benchmark's section of RESULTS.md ("" when there is none), for ``make bench`` to keep."""
    old = path.read_text("utf-8") if path.exists() else ""
    if HEADING not in old:
        return ""
    rest = old.split(HEADING, 1)[1]
    end = rest.find("\n## ")
    return "\n\n" + HEADING + (rest if end < 0 else rest[:end]).rstrip("\n") + "\n"


def write_section(text: str, path: Path = RESULTS) -> None:
    """Replace this benchmark's section (or add it before the scale section, else at the end)."""
    old = path.read_text("utf-8") if path.exists() else ""
    kept = kept_section(path)
    if kept:
        old = old.replace(kept.strip("\n"), "").replace("\n\n\n\n", "\n\n")
    scale = old.find("\n## Scale")
    head, tail = (old, "") if scale < 0 else (old[:scale], old[scale:])
    path.write_text(head.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n" + tail, "utf-8")


def section(lines: list[str], args: argparse.Namespace, model: LocalModel) -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    command = "make bench-local" + (f" MODEL={model.gguf.name}" if args.model else "") + f" PAPERS={args.papers}"
    intro = [
        HEADING,
        "",
        f"Produced by `{command}` (`benchmarks/bench_local.py`): the demo's papers through a real model on "
        "llama-cpp-python's server, one request at a time, scored by `eval` against `examples/demo/reference.jsonl`.",
        "",
        f"- Date: {when}; {os.cpu_count()} cores shared with other work (load {load} at the end)",
        f"- llm: max_attempts {args.max_attempts}, input_token_budget {INPUT_BUDGET}, max_output_tokens 512, "
        "structured output settled on json_object with the schema (the server answers json_schema with a 500)",
        "",
    ]
    return "\n".join([*intro, *lines, "", LARGER]) + "\n"


def run(model: LocalModel, args: argparse.Namespace) -> tuple[Settings, float]:
    """Fetch and summarize the demo's first papers through the model; the settings and summarize's wall time."""
    WORK.mkdir(parents=True, exist_ok=True)
    papers = load_papers(DEMO / "papers.yaml")
    with (
        LocalServer.start_with(model, log=WORK / "server.log", n_ctx=8192, threads=args.threads) as server,
        FakeArxiv([p.paper for p in papers]) as arxiv,
    ):
        os.environ.setdefault(KEY_ENV, "local")  # the server asks for no key; summarizer wants a variable set
        settings = project(WORK / "project", server.base_url, arxiv.api_url, args.max_attempts)
        store = Store(settings.outputs_dir)
        venues = [v.id for v in settings.venues]
        for venue in venues:
            fetch_venue(settings, store, venue, limit=args.papers)
        started = time.monotonic()
        for venue in venues:
            VenueRun(settings, store, venue, limit=args.papers).summarize()
        wall_s = time.monotonic() - started
    (WORK / "timing.json").write_text(json.dumps({"summarize_wall_s": wall_s}) + "\n", "utf-8")
    return settings, wall_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", type=Path, help="a GGUF file (default: SmolLM2-135M of make local-model)")
    parser.add_argument("--papers", type=int, default=3, help="papers per demo venue (default 3)")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for the server")
    parser.add_argument("--max-attempts", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave RESULTS.md alone")
    parser.add_argument("--score-only", action="store_true", help="score the last run again (no model calls)")
    args = parser.parse_args(argv)
    found = local_model()
    if found is None:
        print("no local model server: run `make local-model` first", file=sys.stderr)
        return 1
    model = LocalModel(found.python, args.model.resolve()) if args.model else found
    if args.score_only:
        settings = load_settings(WORK / "project" / "config.yaml")
        wall_s = float(json.loads((WORK / "timing.json").read_text("utf-8"))["summarize_wall_s"])
    else:
        settings, wall_s = run(model, args)
    store = Store(settings.outputs_dir)
    venues = [v.id for v in settings.venues]
    text = section(table(model, settings, store, venues, wall_s), args, model)
    (WORK / "result.md").write_text(text, "utf-8")
    print(text)
    if not args.no_write:
        write_section(text)
        print(f"written: {RESULTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
