"""The measures, as pure functions of summaries, labels and texts: no files, no clock, no randomness.

Each is deterministic, so a report computed twice is the same byte for byte and a test can compute
the same figure another way.  Percentiles interpolate linearly between the two nearest ranks
(numpy's default); a histogram's bins are ``[edge_i, edge_i+1)`` and its last bin holds everything
from the last edge up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from summarizer.core.config import TagSettings
from summarizer.core.flags import PaperFacts, invented_numbers
from summarizer.core.rules import cjk_count, cjk_share, in_house_range, normalize_tag
from summarizer.core.usage import Usage

# Histogram edges: Chinese characters, all characters, Chinese share.
CJK_EDGES = list(range(0, 160, 10))
CHAR_EDGES = list(range(0, 325, 25))
SHARE_EDGES = [i / 10 for i in range(10)]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linear between the nearest ranks; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def histogram(values: Iterable[float], edges: Sequence[float]) -> list[int]:
    """Counts per bin ``[edges[i], edges[i+1])``; the last bin is open above, values under the first edge go in it."""
    counts = [0] * len(edges)
    for value in values:
        at = 0
        for i, edge in enumerate(edges):
            if value >= edge:
                at = i
        counts[at] += 1
    return counts


def bin_labels(edges: Sequence[float], *, share: bool = False) -> list[str]:
    """``40-49`` … ``150+`` (``0.3-0.4`` … ``0.9-1.0`` for shares)."""
    labels = []
    for i, edge in enumerate(edges):
        if share:
            labels.append(f"{edge:.1f}-{edges[i + 1] if i + 1 < len(edges) else 1.0:.1f}")
        elif i + 1 < len(edges):
            labels.append(f"{int(edge)}-{int(edges[i + 1]) - 1}")
        else:
            labels.append(f"{int(edge)}+")
    return labels


# -- length and Chinese share ------------------------------------------------------------------------------


@dataclass
class Lengths:
    """How long a set of summaries is: Chinese characters, all characters, Chinese share; their spread."""

    cjk: list[int]
    chars: list[int]
    share: list[float]
    outside_house: int

    @classmethod
    def of(cls, summaries: Iterable[str]) -> Lengths:
        texts = list(summaries)
        return cls(
            cjk=[cjk_count(t) for t in texts],
            chars=[len(t) for t in texts],
            share=[round(cjk_share(t), 4) for t in texts],
            outside_house=sum(1 for t in texts if not in_house_range(t)),
        )

    @property
    def n(self) -> int:
        return len(self.cjk)

    def spread(self, values: Sequence[float]) -> dict[str, float]:
        return {"p5": percentile(values, 5), "median": percentile(values, 50), "p95": percentile(values, 95)}

    def summary(self) -> dict[str, object]:
        return {
            "n": self.n,
            "cjk": self.spread(self.cjk),
            "chars": self.spread(self.chars),
            "share": self.spread(self.share),
            "outside_house": self.outside_house,
            "histograms": {
                "cjk": histogram(self.cjk, CJK_EDGES),
                "chars": histogram(self.chars, CHAR_EDGES),
                "share": histogram(self.share, SHARE_EDGES),
            },
        }


def ratio(part: float, whole: float) -> float:
    """``part / whole``, 0.0 when there is no whole (nothing looked at scores nothing)."""
    return part / whole if whole else 0.0


# -- fields ------------------------------------------------------------------------------------------------


@dataclass
class ClassScore:
    label: str
    support: int  # papers the reference puts here
    predicted: int
    correct: int

    @property
    def precision(self) -> float:
        return ratio(self.correct, self.predicted)

    @property
    def recall(self) -> float:
        return ratio(self.correct, self.support)

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return ratio(2 * p * r, p + r)


@dataclass
class FieldScores:
    """Field accuracy, macro-F1 over every label either side used, and the confusion matrix (rows: reference)."""

    labels: list[str]
    matrix: list[list[int]]
    classes: list[ClassScore]

    @property
    def n(self) -> int:
        return sum(map(sum, self.matrix))

    @property
    def accuracy(self) -> float:
        return ratio(sum(self.matrix[i][i] for i in range(len(self.labels))), self.n)

    @property
    def macro_f1(self) -> float:
        return ratio(sum(c.f1 for c in self.classes), len(self.classes))


def field_scores(pairs: Sequence[tuple[str, str]], order: Sequence[str] = ()) -> FieldScores:
    """(reference field, model field) per paper → scores; labels in ``order`` first, then the others sorted."""
    used = {label for pair in pairs for label in pair}
    labels = [label for label in order if label in used] + sorted(used - set(order))
    at = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for truth, guess in pairs:
        matrix[at[truth]][at[guess]] += 1
    classes = [
        ClassScore(label, sum(matrix[i]), sum(row[i] for row in matrix), matrix[i][i]) for i, label in enumerate(labels)
    ]
    return FieldScores(labels, matrix, classes)


# -- tags --------------------------------------------------------------------------------------------------


@dataclass
class TagRecall:
    """How many of the reference's keywords that map onto the vocabulary the summary's tags hold."""

    keywords: int = 0  # every reference keyword of the papers looked at
    mapped: int = 0  # those that map onto the vocabulary (aliases included)
    hits: int = 0  # mapped keywords among the paper's tags
    papers: int = 0  # papers with at least one mapped keyword: the ones scored

    @property
    def recall(self) -> float:
        return ratio(self.hits, self.mapped)

    @property
    def mapped_share(self) -> float:
        return ratio(self.mapped, self.keywords)


def vocabulary_tag(word: str, tags: TagSettings) -> str | None:
    """The vocabulary's tag a keyword stands for (directly or through an alias), or None."""
    tag = normalize_tag(word, tags)
    vocabulary = {v.casefold() for v in tags.vocabulary}
    return tag.casefold() if tag.casefold() in vocabulary else None


def tag_recall(items: Iterable[tuple[list[str], list[str]]], tags: TagSettings) -> TagRecall:
    """(reference keywords, summary's tags) per paper → micro recall over the mapped keywords."""
    result = TagRecall()
    for keywords, given in items:
        result.keywords += len(keywords)
        mapped = {m for m in (vocabulary_tag(k, tags) for k in keywords) if m}
        if not mapped:
            continue
        have = {normalize_tag(t, tags).casefold() for t in given}
        result.papers += 1
        result.mapped += len(mapped)
        result.hits += len(mapped & have)
    return result


# -- invented numbers --------------------------------------------------------------------------------------


@dataclass
class NumberCheck:
    """The suspicion check "numbers not in the paper text", over a set of summaries."""

    checked: int = 0  # summaries with a text to compare with
    flagged: dict[str, list[str]] = field(default_factory=dict)  # paper → the tokens the text lacks

    @property
    def share(self) -> float:
        return ratio(len(self.flagged), self.checked)


def number_check(items: Iterable[tuple[str, str, str | None]]) -> NumberCheck:
    """(paper key, summary, the text it was written from or None) → which summaries hold tokens the text lacks."""
    result = NumberCheck()
    for key, summary, text in items:
        if not text:
            continue
        result.checked += 1
        found = invented_numbers(summary, PaperFacts(text))
        if found:
            result.flagged[key] = found
    return result


# -- digest and note, cost -------------------------------------------------------------------------------


def same_text(a: str, b: str) -> bool:
    """Equal once runs of white space are one space: a note's 一句话总结 copied from its digest text."""
    return " ".join(a.split()) == " ".join(b.split())


def consistency(items: Iterable[tuple[str, str]]) -> tuple[int, int]:
    """(digest text, note's 一句话总结) per paper → (papers compared, papers where they are the same)."""
    pairs = list(items)
    return len(pairs), sum(1 for digest, note in pairs if same_text(digest, note))


@dataclass
class Cost:
    """What the scored papers' summaries cost, in all and per paper."""

    papers: int
    usage: Usage

    def per_paper(self) -> dict[str, float]:
        n = self.papers or 1
        u = self.usage
        return {
            "calls": u.llm_calls / n,
            "prompt_tokens": u.prompt_tokens / n,
            "completion_tokens": u.completion_tokens / n,
            "cost_usd": u.cost_usd / n,
        }
