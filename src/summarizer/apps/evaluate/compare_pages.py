"""The pages of ``summarizer eval --compare``: the measures side by side, the cost of each paper, and the
papers where the two configurations differ most (summary beside summary, with the paper's abstract)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .charts import bars_svg
from .html import e, md, md_table, metric, page, pct, table
from .report_pages import length_charts
from .scoring import Scorecard

if TYPE_CHECKING:
    from summarizer.core.records import Record

    from .results import Arm, Comparison

DIFFERENCES_SHOWN = 10


def _rows(card: Scorecard) -> list[tuple[str, str, float | None, str]]:
    """(measure, key, value, as shown) for one configuration; None where the measure does not apply."""
    rows: list[tuple[str, str, float | None, str]] = [("papers answered", "papers", card.papers, str(card.papers))]
    if card.fields is not None:
        rows.append(("field accuracy", "field.accuracy", card.fields.accuracy, pct(card.fields.accuracy)))
        rows.append(("field macro-F1", "field.macro_f1", card.fields.macro_f1, f"{card.fields.macro_f1:.3f}"))
    if card.tags is not None:
        rows.append(("tag recall", "tags.recall", card.tags.recall, pct(card.tags.recall)))
    n = card.numbers
    rows.append(
        ("numbers not in the paper", "numbers.share", n.share, f"{pct(n.share)} ({len(n.flagged)} of {n.checked})")
    )
    cjk = card.lengths.spread(card.lengths.cjk)["median"]
    rows.append(("median Chinese characters", "length.cjk_median", cjk, f"{cjk:.0f}"))
    outside = card.lengths.outside_house
    rows.append(("outside the house range", "length.outside_house", outside, f"{outside} of {card.lengths.n}"))
    if card.cost is not None:
        per = card.cost.per_paper()
        rows.append(("cost per paper", "cost.per_paper", per["cost_usd"], f"${per['cost_usd']:.6f}"))
        tokens = per["prompt_tokens"] + per["completion_tokens"]
        rows.append(("tokens per paper", "cost.tokens_per_paper", tokens, f"{tokens:,.0f}"))
    latency = card.mean_latency
    shown = f"{latency:.2f} s ({len(card.latencies)} papers)" if latency is not None else "not recorded"
    rows.append(("latency per paper", "latency.mean", latency, shown))
    return rows


def _cost(arm: Arm, paper_id: str) -> float:
    answer = arm.answers.get(paper_id)
    return answer.usage.cost_usd if answer is not None else 0.0


def _grams(text: str) -> set[str]:
    squashed = re.sub(r"\s+", "", text)
    return {squashed[i : i + 3] for i in range(max(0, len(squashed) - 2))}


def difference(a: str, b: str) -> float:
    """1 minus the share of 3-character pieces two summaries have in common (0: the same text)."""
    ga, gb = _grams(a), _grams(b)
    union = ga | gb
    return 1 - len(ga & gb) / len(union) if union else 0.0


def differing_most(comparison: Comparison) -> list[tuple[float, Record]]:
    """Papers both answered, most different first: another field counts 1, the text's difference up to 1 more."""
    first, second = comparison.arms
    ranked = []
    for record in comparison.papers:
        a, b = first.answers[record.id].draft, second.answers[record.id].draft
        if a is None or b is None:
            continue
        score = (1.0 if a.field != b.field else 0.0) + difference(a.summary, b.summary)
        ranked.append((round(score, 6), record))
    ranked.sort(key=lambda pair: (-pair[0], pair[1].id))
    return ranked[:DIFFERENCES_SHOWN]


def _side_by_side(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    head = ["measure", *(e(arm.label) for arm in comparison.arms)]
    by_arm = [_rows(arm.card) for arm in comparison.arms]
    rows = []
    for k, (name, key, _, _) in enumerate(by_arm[0]):
        cells = [e(name)]
        for arm, arm_rows in zip(comparison.arms, by_arm, strict=True):
            _, _, value, shown = arm_rows[k]
            cells.append(metric(f"{arm.label}.{key}", value, shown) if value is not None else e(shown))
        rows.append(cells)
    return head, rows


def _cost_rows(comparison: Comparison) -> list[list[str]]:
    first, second = comparison.arms
    rows = []
    for record in comparison.papers:
        a, b = _cost(first, record.id), _cost(second, record.id)
        rows.append(
            [
                e(record.id),
                e(record.title),
                metric(f"{first.label}.cost.{record.id}", a, f"${a:.6f}"),
                metric(f"{second.label}.cost.{record.id}", b, f"${b:.6f}"),
                metric(f"difference.cost.{record.id}", b - a, f"{b - a:+.6f}"),
            ]
        )
    return rows


def comparison_html(comparison: Comparison) -> str:
    first, second = comparison.arms
    head, rows = _side_by_side(comparison)
    sides = [(arm.label, arm.card.lengths) for arm in comparison.arms]
    body = [
        f"<h1>{e(first.label)} and {e(second.label)} on {e(comparison.venue)}</h1>",
        f'<p class="note">The same {len(comparison.papers)} papers (seed {comparison.seed}) for each; '
        f"{e(first.label)}: {e(first.settings.llm.model)}, {e(second.label)}: {e(second.settings.llm.model)}. "
        '<a href="differences.html">The papers where they differ most</a>.</p>',
        table(head, rows),
        '<div class="charts">',
        _bars(comparison, "cost", "cost per paper", "USD"),
        _bars(comparison, "latency", "latency per paper", "s"),
        "</div>",
        "<h2>Length and Chinese share</h2>",
        '<div class="charts">' + "".join(length_charts(sides)) + "</div>",
        "<h2>Cost per paper</h2>",
        table(
            ["paper", "title", e(first.label), e(second.label), f"{e(second.label)} − {e(first.label)}"],
            _cost_rows(comparison),
        ),
    ]
    return page(f"compare {first.label} and {second.label}", body)


def _bars(comparison: Comparison, what: str, title: str, unit: str) -> str:
    rows = []
    for arm in comparison.arms:
        card = arm.card
        if what == "cost":
            value = card.cost.per_paper()["cost_usd"] if card.cost is not None else 0.0
        else:
            value = card.mean_latency or 0.0
        rows.append((arm.label, value))
    return bars_svg(what, title, rows, unit)


def differences_html(comparison: Comparison) -> str:
    first, second = comparison.arms
    body = [
        f"<h1>Where {e(first.label)} and {e(second.label)} differ most</h1>",
        '<p class="note">Another field first, then the least text in common. '
        '<a href="report.html">Back to the report</a>.</p>',
    ]
    for score, record in differing_most(comparison):
        a, b = first.answers[record.id].draft, second.answers[record.id].draft
        assert a is not None and b is not None  # differing_most keeps papers both answered
        body += [
            f'<h2 data-paper="{e(record.id)}" data-difference="{score}">{e(record.title)}</h2>',
            f'<p class="note">{e(record.id)} · abstract: {e(record.abstract or "(none)")}</p>',
            table(
                [e(first.label), e(second.label)],
                [
                    [f'<td class="side">{e(a.summary)}</td>', f'<td class="side">{e(b.summary)}</td>'],
                    [e(f"{a.field} · {', '.join(a.tags)}"), e(f"{b.field} · {', '.join(b.tags)}")],
                ],
            ),
        ]
    return page(f"differences {first.label} and {second.label}", body)


def comparison_markdown(comparison: Comparison) -> str:
    first, second = comparison.arms
    by_arm = [_rows(arm.card) for arm in comparison.arms]
    out = [
        f"# {md(first.label)} and {md(second.label)} on {md(comparison.venue)}",
        "",
        f"The same {len(comparison.papers)} papers (seed {comparison.seed}). Charts: report.html; "
        "the papers where they differ most: differences.html.",
        "",
    ]
    rows = [[md(r[0]), *(md(arm_rows[k][3]) for arm_rows in by_arm)] for k, r in enumerate(by_arm[0])]
    out += md_table(["measure", md(first.label), md(second.label)], rows)
    costs = []
    for record in comparison.papers:
        cost_a, cost_b = _cost(first, record.id), _cost(second, record.id)
        costs.append([md(record.id), f"${cost_a:.6f}", f"${cost_b:.6f}", f"{cost_b - cost_a:+.6f}"])
    out += ["## Cost per paper", "", *md_table(["paper", md(first.label), md(second.label), "difference"], costs)]
    out += ["## Where they differ most", ""]
    for score, record in differing_most(comparison):
        a, b = first.answers[record.id].draft, second.answers[record.id].draft
        assert a is not None and b is not None
        out += [f"### {md(record.title)} ({md(record.id)}, difference {score:.2f})", ""]
        out += md_table(
            [md(first.label), md(second.label)], [[md(a.summary), md(b.summary)], [md(a.field), md(b.field)]]
        )
    return "\n".join(out)
