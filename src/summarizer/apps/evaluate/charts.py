"""Charts as inline SVG: no plotting library, no script, the same bytes for the same numbers.

Every text that reaches a chart (a label, a series name, a field id) is escaped here.  Each mark
carries its number in a ``data-*`` attribute, so a browser test reads what is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52")
WIDTH = 720
HEIGHT = 280
LEGEND = 170  # the legend sits right of the plot, never over a bar
LEFT, RIGHT, TOP, BOTTOM = 44, 12 + LEGEND, 34, 64


@dataclass
class Series:
    label: str
    counts: list[int]

    @property
    def total(self) -> int:
        return sum(self.counts)


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _svg(chart_id: str, title: str, width: int, height: int, body: list[str]) -> str:
    head = (
        f'<svg class="chart" data-chart="{_e(chart_id)}" role="img" aria-label="{_e(title)}" '
        f'xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f"<title>{_e(title)}</title>"
        f'<text x="{LEFT}" y="18" font-size="14" font-weight="bold">{_e(title)}</text>'
    )
    return head + "".join(body) + "</svg>"


def _x_of(value: float, edges: Sequence[float], left: float, bin_width: float) -> float:
    """Where ``value`` sits on an axis of equal bins (the last one as wide as the others)."""
    step = edges[1] - edges[0] if len(edges) > 1 else 1
    return left + (value - edges[0]) / step * bin_width


def histogram_svg(
    chart_id: str,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    *,
    edges: Sequence[float] | None = None,
    band: tuple[float, float] | None = None,
    band_label: str = "",
) -> str:
    """Grouped bars per bin, as the share of each series' summaries (so a reference of thousands compares
    with a sample of ten; the height axis says so); ``band`` shades a range of values (the house range)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bin_w = plot_w / max(1, len(labels))
    bar_w = bin_w / (len(series) + 1)
    shares = [[c / s.total if s.total else 0.0 for c in s.counts] for s in series]
    top = max([max(row, default=0.0) for row in shares] + [0.01])
    body = [f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="#333"/>']
    if band is not None and edges is not None:
        x1, x2 = (_x_of(v, edges, LEFT, bin_w) for v in band)
        body.append(
            f'<rect class="band" x="{x1:.1f}" y="{TOP}" width="{max(0.0, x2 - x1):.1f}" height="{plot_h}" '
            f'fill="#e8f0e0"><title>{_e(band_label)}</title></rect>'
        )
    for k, (one, row) in enumerate(zip(series, shares, strict=True)):
        for i, (count, share) in enumerate(zip(one.counts, row, strict=True)):
            h = share / top * plot_h
            x = LEFT + i * bin_w + bar_w * (k + 0.5)
            body.append(
                f'<rect class="bar" data-series="{_e(one.label)}" data-bin="{_e(labels[i])}" data-count="{count}" '
                f'x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
                f'fill="{PALETTE[k % len(PALETTE)]}"><title>{_e(one.label)} {_e(labels[i])}: {count}</title></rect>'
            )
    body += _axes(labels, bin_w, top)
    legend = _legend(series, LEFT + plot_w + 14, band_label if band is not None else "")
    y = TOP + 4 + (len(legend) // 2) * 15 + 12
    legend.append(f'<text x="{LEFT + plot_w + 14}" y="{y}" font-size="10" fill="#666">height: share of each</text>')
    legend.append(f'<text x="{LEFT + plot_w + 14}" y="{y + 12}" font-size="10" fill="#666">side\'s summaries</text>')
    body += legend
    return _svg(chart_id, title, WIDTH, HEIGHT, body)


def _axes(labels: Sequence[str], bin_w: float, top: float) -> list[str]:
    """The bins' labels under the plot, and gridlines labelled with the share of a side's summaries."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    out = []
    for i, label in enumerate(labels):
        x = LEFT + (i + 0.5) * bin_w
        y: float = TOP + plot_h + 12
        out.append(
            f'<text x="{x:.1f}" y="{y}" font-size="10" text-anchor="end" '
            f'transform="rotate(-40 {x:.1f} {y})">{_e(label)}</text>'
        )
    for fraction in (0.5, 1.0):
        y = TOP + plot_h * (1 - fraction)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{top * fraction:.0%}</text>')
    out.append(f'<text x="{LEFT - 4}" y="{TOP + plot_h + 4}" font-size="10" text-anchor="end">0</text>')
    return out


def _legend(series: Sequence[Series], left: float, band_label: str) -> list[str]:
    out = []
    entries = [(s.label + f" ({s.total})", PALETTE[k % len(PALETTE)]) for k, s in enumerate(series)]
    if band_label:
        entries.append((band_label, "#e8f0e0"))
    for k, (label, colour) in enumerate(entries):
        y = TOP + 4 + k * 15
        out.append(f'<rect x="{left}" y="{y}" width="10" height="10" fill="{colour}" stroke="#999"/>')
        out.append(f'<text x="{left + 14}" y="{y + 9}" font-size="11">{_e(label)}</text>')
    return out


def confusion_svg(chart_id: str, title: str, labels: Sequence[str], matrix: Sequence[Sequence[int]]) -> str:
    """Rows: the reference's field; columns: the summary's; the diagonal green, the rest red, darker for more."""
    cell, left, top = 34, 150, 130
    size = len(labels)
    width, height = max(WIDTH // 2, left + cell * size + 20), top + cell * size + 30
    peak = max([max(row, default=0) for row in matrix] + [1])
    body = []
    for i, row in enumerate(matrix):
        for j, count in enumerate(row):
            colour = "85,168,104" if i == j else "196,78,82"
            alpha = 0.08 + 0.85 * count / peak if count else 0.03
            x, y = left + j * cell, top + i * cell
            body.append(
                f'<rect class="cell" data-row="{_e(labels[i])}" data-col="{_e(labels[j])}" data-count="{count}" '
                f'x="{x}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="rgba({colour},{alpha:.2f})">'
                f"<title>{_e(labels[i])} → {_e(labels[j])}: {count}</title></rect>"
            )
            if count:
                body.append(
                    f'<text x="{x + cell / 2 - 1}" y="{y + cell / 2 + 4}" font-size="12" '
                    f'text-anchor="middle">{count}</text>'
                )
    for i, label in enumerate(labels):
        row_y = top + i * cell + cell / 2 + 4
        body.append(f'<text x="{left - 6}" y="{row_y}" font-size="11" text-anchor="end">{_e(label)}</text>')
        col_x, col_y = left + i * cell + cell / 2, top - 6
        body.append(
            f'<text x="{col_x}" y="{col_y}" font-size="11" transform="rotate(-45 {col_x} {col_y})">{_e(label)}</text>'
        )
    body.append(f'<text x="8" y="{top - 6}" font-size="11">reference ↓ · summary →</text>')
    return _svg(chart_id, title, width, height, body)


def bars_svg(chart_id: str, title: str, rows: Sequence[tuple[str, float]], unit: str) -> str:
    """One horizontal bar per row (a configuration and its value), labelled with the value."""
    left, bar_h = 160, 24
    height = TOP + len(rows) * (bar_h + 10) + 20
    plot_w = WIDTH - left - 110
    peak = max([value for _, value in rows] + [1e-12])
    body = []
    for k, (label, value) in enumerate(rows):
        y = TOP + k * (bar_h + 10)
        w = value / peak * plot_w
        body.append(
            f'<rect class="bar" data-series="{_e(label)}" data-value="{value:.8g}" x="{left}" y="{y}" '
            f'width="{w:.1f}" height="{bar_h}" fill="{PALETTE[k % len(PALETTE)]}"><title>{_e(label)}</title></rect>'
        )
        body.append(f'<text x="{left - 6}" y="{y + 16}" font-size="12" text-anchor="end">{_e(label)}</text>')
        body.append(f'<text x="{left + w + 6:.1f}" y="{y + 16}" font-size="12">{_e(f"{value:.6g}")} {_e(unit)}</text>')
    return _svg(chart_id, title, WIDTH, height, body)
