"""One set of summaries scored: against the reference where it has labels, on its own where it needs none.

A ``Scorecard`` is what the report shows for one side (the venue's summaries, the reference's own
one-liners, or one configuration of a comparison), made from ``Scored`` items by ``scorecard``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from summarizer.core.config import TagSettings
from summarizer.core.usage import Usage

from .metrics import Cost, FieldScores, Lengths, NumberCheck, TagRecall, field_scores, number_check, tag_recall
from .reference import ReferenceLine, Trust


@dataclass
class Scored:
    """One paper's summary as scored, with the text it was written from and its reference line (if any)."""

    paper_id: str
    title: str
    summary: str
    tags: list[str]
    field: str
    text: str | None = None
    reference: ReferenceLine | None = None
    usage: Usage = dataclass_field(default_factory=Usage)
    latency_s: float | None = None


@dataclass
class Scorecard:
    label: str
    papers: int
    lengths: Lengths
    numbers: NumberCheck
    fields: FieldScores | None = None
    tags: TagRecall | None = None
    cost: Cost | None = None
    latencies: list[float] = dataclass_field(default_factory=list)

    @property
    def mean_latency(self) -> float | None:
        return sum(self.latencies) / len(self.latencies) if self.latencies else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "papers": self.papers,
            "lengths": self.lengths.summary(),
            "numbers": {
                "checked": self.numbers.checked,
                "flagged": len(self.numbers.flagged),
                "share": self.numbers.share,
                "papers": self.numbers.flagged,
            },
        }
        if self.fields is not None:
            out["fields"] = {
                "scored": self.fields.n,
                "accuracy": self.fields.accuracy,
                "macro_f1": self.fields.macro_f1,
                "labels": self.fields.labels,
                "matrix": self.fields.matrix,
                "per_field": {c.label: {"support": c.support, "f1": c.f1} for c in self.fields.classes},
            }
        if self.tags is not None:
            t = self.tags
            out["tags"] = {"papers": t.papers, "keywords": t.keywords, "mapped": t.mapped, "hits": t.hits}
            out["tags"] |= {"recall": t.recall, "mapped_share": t.mapped_share}
        if self.cost is not None:
            out["cost"] = {
                "papers": self.cost.papers,
                **self.cost.usage.model_dump(),
                "per_paper": self.cost.per_paper(),
            }
        if self.latencies:
            out["latency_s"] = {"papers": len(self.latencies), "mean": self.mean_latency}
        return out


def scorecard(
    label: str,
    items: Sequence[Scored],
    *,
    trust: Trust = "all",
    tags: TagSettings | None = None,
    field_order: Sequence[str] = (),
    with_cost: bool = True,
) -> Scorecard:
    """The measures of ``items``; field and tag scores only where they have reference lines (and ``tags``)."""
    card = Scorecard(
        label=label,
        papers=len(items),
        lengths=Lengths.of(item.summary for item in items),
        numbers=number_check((item.paper_id, item.summary, item.text) for item in items),
    )
    referenced = [item for item in items if item.reference is not None]
    if referenced:
        fields = [(i.reference.field, i.field) for i in referenced if i.reference and i.reference.trusted_by(trust)]
        card.fields = field_scores(fields, field_order)
        if tags is not None:
            card.tags = tag_recall(((i.reference.reference_keywords, i.tags) for i in referenced if i.reference), tags)
    if with_cost:
        usage = Usage()
        for item in items:
            usage.add(item.usage)
        card.cost = Cost(len(items), usage)
    card.latencies = [item.latency_s for item in items if item.latency_s is not None]
    return card


def reference_items(items: Sequence[Scored]) -> list[Scored]:
    """The reference's own one-liners for the same papers, checked against the same texts (no labels to score)."""
    return [
        Scored(i.paper_id, i.title, i.reference.summary, i.reference.tags, i.reference.field, i.text)
        for i in items
        if i.reference is not None
    ]
