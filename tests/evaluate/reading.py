"""Reading what a report says, and working out what it should say, without the evaluate package.

The counts here are made another way than the package makes them (a regular expression of their
own for Chinese characters, hand-written F1), so a test compares two computations, not one twice.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def chinese(text: str) -> int:
    return len(CJK.findall(text))


class _Marks(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.metrics: dict[str, float] = {}
        self.bars: list[dict[str, str]] = []
        self.cells: list[dict[str, str]] = []
        self.chart: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if "data-metric" in found:
            self.metrics[found["data-metric"]] = float(found["data-value"])
        if tag == "svg" and "data-chart" in found:
            self.chart = found["data-chart"]
        if tag == "rect" and "data-count" in found and "data-bin" in found:
            self.bars.append({**found, "chart": self.chart or ""})
        if tag == "rect" and "data-row" in found:
            self.cells.append(found)


def marks(path: Path) -> _Marks:
    parser = _Marks()
    parser.feed(path.read_text("utf-8"))
    return parser


def bar_counts(page: _Marks, chart: str, series: str) -> list[int]:
    return [int(b["data-count"]) for b in page.bars if b["chart"] == chart and b["data-series"] == series]


def own_histogram(values: list[int], width: int, bins: int) -> list[int]:
    """Bins of ``width`` from 0, the last holding everything above."""
    counts = [0] * bins
    for value in values:
        counts[min(value // width, bins - 1)] += 1
    return counts


def macro_f1(pairs: list[tuple[str, str]]) -> float:
    labels = sorted({label for pair in pairs for label in pair})
    total = 0.0
    for label in labels:
        tp = sum(1 for t, g in pairs if t == label and g == label)
        predicted = sum(1 for _, g in pairs if g == label)
        actual = sum(1 for t, _ in pairs if t == label)
        p = tp / predicted if predicted else 0.0
        r = tp / actual if actual else 0.0
        total += 2 * p * r / (p + r) if p + r else 0.0
    return total / len(labels)


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
