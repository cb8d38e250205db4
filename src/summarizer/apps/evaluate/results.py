"""What an evaluation found, as data: the report pages are made from these, and ``metrics.json`` is their JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from summarizer.core.config import Settings
from summarizer.core.records import Record
from summarizer.core.rules import house_range
from summarizer.core.usage import Usage
from summarizer.summarize.trial import TrialAnswer

from .reference import Matched, ReferenceLine, Trust
from .scoring import Scorecard, Scored


@dataclass
class Evaluation:
    venue: str
    reference: str  # the file as named
    trust: Trust
    lines: int
    matched: Matched
    items: list[Scored]  # the scored papers, in the reference's order
    model: Scorecard
    ref: Scorecard  # the reference's own one-liners of the same papers
    notes: tuple[int, int]  # (papers whose reference has a note, those whose note repeats the digest text)

    def to_json(self) -> dict[str, Any]:
        return {
            "venue": self.venue,
            "reference": self.reference,
            "trust": self.trust,
            "lines": self.lines,
            "matched": len(self.matched.pairs),
            "scored": len(self.items),
            "other_venues": self.matched.other_venues,
            "unmatched": len(self.matched.unmatched),
            "duplicates": len(self.matched.duplicates),
            "house": house_range(),
            "summaries": self.model.to_json(),
            "reference_summaries": self.ref.to_json(),
            "notes": {"compared": self.notes[0], "same": self.notes[1]},
        }


@dataclass
class Arm:
    """One configuration of a comparison: its settings, its answers and their scores."""

    label: str
    settings: Settings
    answers: dict[str, TrialAnswer]
    card: Scorecard

    @property
    def fresh_usage(self) -> Usage:
        """What this run spent: the answers the model gave now (the cached ones were paid for before)."""
        usage = Usage()
        for answer in self.answers.values():
            if not answer.cached:
                usage.add(answer.usage)
        return usage


@dataclass
class Comparison:
    venue: str
    seed: int
    papers: list[Record]
    references: dict[str, ReferenceLine]
    trust: Trust
    arms: list[Arm]

    def to_json(self) -> dict[str, Any]:
        return {
            "venue": self.venue,
            "seed": self.seed,
            "papers": [r.id for r in self.papers],
            "trust": self.trust if self.references else None,
            "configurations": {
                arm.label: {
                    "model": arm.settings.llm.model,
                    "base_url": arm.settings.llm.base_url,
                    **arm.card.to_json(),
                }
                for arm in self.arms
            },
        }
