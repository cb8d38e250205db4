"""``--dry-run``: what a ``summarize`` or ``notes`` run would ask and what it would cost, before it spends.

The same selection as the real run (which papers, which are cached, which wait in a batch), the
same prompts; nothing is written and no key is needed.  A paper's input is its messages and the
answer's schema, estimated as the pacing estimates them (``core.tokens``); its output is what an
answer of the kind usually costs (``Task.expected_output_tokens``).  Cost is ``llm.price_per_million``
online and ``llm.batch_price_factor`` of it with ``--batch``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from summarizer.core.config import Settings
from summarizer.core.errors import NoInput
from summarizer.core.store import Store
from summarizer.core.tokens import estimate_tokens

from .plan import Pick, start_run
from .task import Task


@dataclass
class Estimate:
    """One paper a run would ask about (or answer from the cache)."""

    paper_id: str
    title: str
    input_tokens: int
    output_tokens: int
    cached: bool = False


@dataclass
class DryRun:
    command: str
    venue: str
    model: str
    price_input: float  # USD per million tokens
    price_output: float
    batch_factor: float
    papers: list[Estimate] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # why the other papers are left out, with counts
    no_input: list[tuple[str, str]] = field(default_factory=list)  # (paper id, why it has nothing to read)

    @property
    def asked(self) -> list[Estimate]:
        return [p for p in self.papers if not p.cached]

    @property
    def input_tokens(self) -> int:
        return sum(p.input_tokens for p in self.asked)

    @property
    def output_tokens(self) -> int:
        return sum(p.output_tokens for p in self.asked)

    @property
    def online_usd(self) -> float:
        return (self.input_tokens * self.price_input + self.output_tokens * self.price_output) / 1_000_000

    @property
    def batch_usd(self) -> float:
        return self.online_usd * self.batch_factor


def dry_run(
    settings: Settings,
    store: Store,
    venue_id: str,
    task: Task | None = None,
    *,
    only: list[str] | None = None,
    limit: int | None = None,
    force: bool = False,
) -> DryRun:
    """What ``task`` (default: summaries) would ask of the model for the venue, and its estimated cost."""
    run = start_run(settings, store, venue_id, task)
    price = settings.llm.price_per_million
    plan = DryRun(
        run.task.command, venue_id, settings.llm.model, price.input, price.output, settings.llm.batch_price_factor
    )
    papers = run.skip_batched(run.papers_to_answer(Pick(limit, force, only)))
    schema_tokens = estimate_tokens(json.dumps(run.task.spec().schema, ensure_ascii=False))
    for record in papers:
        if limit is not None and len(plan.papers) >= limit:
            break
        try:
            messages = run.task.messages(record)
        except NoInput as exc:
            plan.no_input.append((record.id, exc.reason))
            continue
        entry = None if force else run.cache.get(run.task.cache_key(messages))
        cached = entry is not None and run.task.from_cache(entry) is not None
        tokens = sum(estimate_tokens(m["content"]) for m in messages) + schema_tokens
        plan.papers.append(Estimate(record.id, record.title, tokens, run.task.expected_output_tokens, cached))
    plan.skipped = dict(run.report.counts)
    return plan
