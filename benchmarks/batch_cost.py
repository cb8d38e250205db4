"""`make bench` rows for the Batch API path: `summarize --batch` of the same fetched papers as the online row.

``prepare`` copies the fetched project before the online `summarize` runs; ``rows`` runs
`summarize --batch` on the copy against the same stand-in provider and compares the cost
with the online run's, paper for paper (the stand-in reports the same tokens for the same prompt).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from summarizer.core.config_file import load_settings
from summarizer.core.store import Store
from summarizer.core.usage import Usage
from summarizer.testing.fake_openai import FakeOpenAI

POLL_S = 0.2


def prepare(fetched: Path, work: Path) -> Path:
    """A copy of the fetched project, polling the batch every POLL_S seconds."""
    target = work / "batch"
    shutil.copytree(fetched, target)
    config_path = target / "config.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["llm"]["batch_poll_s"] = POLL_S
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return target


def _usage(project: Path, venue: str) -> dict[str, Usage]:
    store = Store(load_settings(project / "config.yaml").outputs_dir)
    return {r.id: r.usage for r in store.records(venue) if r.summaries.versions}


def rows(res: Any, bench: Any, project: Path, online_project: Path, provider: FakeOpenAI, venue: str, n: int) -> None:
    creates = sum(1 for call in provider.batch.api_calls if call == ("POST", "/v1/batches"))
    online_calls = provider.calls
    run = bench.cli(project / "config.yaml", "summarize", venue, "--batch")
    batch, online = _usage(project, venue), _usage(online_project, venue)
    same = [p for p in batch if p in online and online[p].prompt_tokens == batch[p].prompt_tokens]
    batch_cost = sum(batch[p].cost_usd for p in same)
    online_cost = sum(online[p].cost_usd for p in same)
    ratio = batch_cost / online_cost if online_cost else float("nan")
    factor = load_settings(project / "config.yaml").llm.batch_price_factor
    res.add(
        f"`summarize --batch` of the same {n} papers: cost vs the online run (same tokens, {len(same)} papers)",
        f"${batch_cost:.4f} vs ${online_cost:.4f} = {ratio:.3f}×",
        f"= {factor:g}× (llm.batch_price_factor)",
        len(same) == n and abs(ratio - factor) < 0.001,
    )
    made = sum(1 for call in provider.batch.api_calls if call == ("POST", "/v1/batches")) - creates
    asked = provider.calls - online_calls
    res.add("  batches created, online calls, papers summarised", f"{made}, {asked}, {len(batch)}", f"1, 0, {n}",
            made == 1 and asked == 0 and len(batch) == n)  # fmt: skip
    res.notes.append(
        f"Batch row: the stand-in runs a batch in four polls (validating, in_progress, finalizing, completed) "
        f"{POLL_S:g} s apart, answering every line at once; a real provider takes minutes to 24 h. "
        f"`summarize --batch` took {run.wall_s:.2f} s."
    )
