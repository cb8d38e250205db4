"""The report of ``summarizer eval VENUE --against REFERENCE``: Markdown and an HTML page with charts.

Both are made from the same rows (``headline_rows``), so the page and the file say the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from summarizer.core import limits
from summarizer.core.rules import cjk_count, in_house_range

from .charts import Series, confusion_svg, histogram_svg
from .html import e, md, md_table, metric, page, pct, table
from .metrics import CHAR_EDGES, CJK_EDGES, SHARE_EDGES, Lengths, bin_labels, histogram
from .reference import TRUST_RULES
from .scoring import Scorecard, Scored

if TYPE_CHECKING:
    from .results import Evaluation

HOUSE_BAND = f"house range {limits.HOUSE_CJK_LOW}-{limits.HOUSE_CJK_HIGH}"
LIMITS = [
    (
        "field accuracy, macro-F1",
        "the share of papers filed under the reference's field, and the mean F1 over every field either side "
        "used; only as good as the reference's labels, so score them where they are trusted (--trust).",
    ),
    (
        "tag recall",
        "of the reference's keywords that map onto the tag vocabulary (aliases included), the share among the "
        "summary's tags; keywords outside the vocabulary are not counted, so few papers may be scored.",
    ),
    (
        "numbers not in the paper",
        "summaries holding a number or a name with a digit that the text the model read lacks; a warning, not "
        "proof: the reference's own share is the check's false-positive rate on this text.",
    ),
    (
        "length, Chinese share",
        "Chinese characters, all characters and the share of Chinese among letters, against the reference's "
        "and the house range (the reference's p5-p95); says nothing of content.",
    ),
    (
        "digest and note",
        "where the reference gives a paper's note, whether its 一句话总结 repeats the digest text; this "
        "project writes no notes yet, so only the reference is measured.",
    ),
    (
        "cost per paper",
        "every model call a scored paper's record holds (regenerations included), priced at "
        "llm.price_per_million when it was made.",
    ),
]


def headline_rows(ev: Evaluation) -> list[tuple[str, str, float, str, str]]:
    """(measure, key, value, as shown, what it is of) for the report's first table."""
    model, ref = ev.model, ev.ref
    rows: list[tuple[str, str, float, str, str]] = []
    if model.fields is not None:
        f = model.fields
        of = f"{f.n} papers ({TRUST_RULES[ev.trust]}: --trust {ev.trust})"
        rows.append(("field accuracy", "field.accuracy", f.accuracy, pct(f.accuracy), of))
        rows.append(("field macro-F1", "field.macro_f1", f.macro_f1, f"{f.macro_f1:.3f}", f"{len(f.labels)} fields"))
    if model.tags is not None:
        t = model.tags
        of = f"{t.hits} of {t.mapped} keywords on {t.papers} papers ({pct(t.mapped_share)} of {t.keywords} map)"
        rows.append(("tag recall", "tags.recall", t.recall, pct(t.recall), of))
    rows += _number_rows(model, ref)
    rows += _length_rows(model.lengths, ref.lengths)
    compared, same = ev.notes
    if compared:
        of = f"{same} of {compared} reference notes repeat the digest text"
        rows.append(("digest = note", "notes.same_share", same / compared, pct(same / compared), of))
    if model.cost is not None and model.cost.papers:
        per = model.cost.per_paper()
        tokens = per["prompt_tokens"] + per["completion_tokens"]
        rows.append(("cost per paper", "cost.per_paper", per["cost_usd"], f"${per['cost_usd']:.5f}", "USD"))
        rows.append(("tokens per paper", "cost.tokens_per_paper", tokens, f"{tokens:,.0f}", "prompt + completion"))
    return rows


def _number_rows(model: Scorecard, ref: Scorecard) -> list[tuple[str, str, float, str, str]]:
    n, r = model.numbers, ref.numbers
    return [
        ("numbers not in the paper", "numbers.share", n.share, pct(n.share), f"{len(n.flagged)} of {n.checked}"),
        (
            "… the reference's own (false positives)",
            "numbers.reference_share",
            r.share,
            pct(r.share),
            f"{len(r.flagged)} of {r.checked}",
        ),
    ]


def _length_rows(model: Lengths, ref: Lengths) -> list[tuple[str, str, float, str, str]]:
    cjk, ref_cjk = model.spread(model.cjk), ref.spread(ref.cjk)
    chars = model.spread(model.chars)
    share = model.spread(model.share)
    return [
        (
            "median Chinese characters",
            "length.cjk_median",
            cjk["median"],
            f"{cjk['median']:.0f}",
            f"p5-p95 {cjk['p5']:.0f}-{cjk['p95']:.0f}; reference {ref_cjk['median']:.0f} "
            f"({ref_cjk['p5']:.0f}-{ref_cjk['p95']:.0f})",
        ),
        ("median characters", "length.chars_median", chars["median"], f"{chars['median']:.0f}", "in all"),
        ("median Chinese share", "length.share_median", share["median"], pct(share["median"]), "of letters"),
        (
            "outside the house range",
            "length.outside_house",
            model.outside_house,
            str(model.outside_house),
            f"of {model.n} ({HOUSE_BAND} Chinese, {limits.HOUSE_CHARS_LOW}-{limits.HOUSE_CHARS_HIGH} in all)",
        ),
    ]


def length_charts(sides: list[tuple[str, Lengths]], prefix: str = "") -> list[str]:
    """Histograms of Chinese characters, all characters and Chinese share, one series per side."""
    specs: list[tuple[str, str, Sequence[float], tuple[int, int] | None]] = [
        ("cjk", "Chinese characters per summary", CJK_EDGES, (limits.HOUSE_CJK_LOW, limits.HOUSE_CJK_HIGH)),
        ("chars", "characters per summary", CHAR_EDGES, (limits.HOUSE_CHARS_LOW, limits.HOUSE_CHARS_HIGH)),
        ("share", "Chinese share of letters", SHARE_EDGES, None),
    ]
    charts = []
    for name, title, edges, house in specs:
        bins = [float(x) for x in edges]
        series = [Series(label, histogram(getattr(lengths, name), bins)) for label, lengths in sides]
        labels = bin_labels(edges, share=name == "share")
        if house is None:
            charts.append(histogram_svg(f"{prefix}{name}", title, labels, series))
            continue
        band, band_label = (house[0], house[1] + 1), f"house range {house[0]}-{house[1]}"
        charts.append(
            histogram_svg(f"{prefix}{name}", title, labels, series, edges=bins, band=band, band_label=band_label)
        )
    return charts


def _mismatches(ev: Evaluation) -> list[Scored]:
    return [i for i in ev.items if i.reference and i.reference.trusted_by(ev.trust) and i.reference.field != i.field]


def _outside(items: list[Scored]) -> list[Scored]:
    return [i for i in items if not in_house_range(i.summary)]


def evaluation_html(ev: Evaluation) -> str:
    model, ref = ev.model, ev.ref
    body = [
        f"<h1>Quality of {e(ev.venue)}'s summaries</h1>",
        f'<p class="note">Against {e(ev.reference)}: {ev.lines} lines, {len(ev.matched.pairs)} matched to papers, '
        f"{len(ev.items)} scored (approved versions, else the newest draft).</p>",
        table(
            ["measure", "value", "of"],
            [[e(name), metric(key, value, shown), e(of)] for name, key, value, shown, of in headline_rows(ev)],
        ),
        "<h2>Length and Chinese share</h2>",
        '<div class="charts">'
        + "".join(length_charts([("summaries", model.lengths), ("reference", ref.lengths)]))
        + "</div>",
    ]
    if model.fields is not None and model.fields.labels:
        body += [
            "<h2>Fields</h2>",
            confusion_svg("confusion", "field confusion", model.fields.labels, model.fields.matrix),
        ]
        rows = [
            [e(i.paper_id), e(i.title), e(i.reference.field if i.reference else ""), e(i.field)]
            for i in _mismatches(ev)
        ]
        body.append(table(["paper", "title", "reference", "summary"], rows) if rows else "<p>No field differs.</p>")
    body += ["<h2>Numbers not in the paper</h2>", _flagged_html(ev.items, model, ref)]
    outside = [
        [e(i.paper_id), str(cjk_count(i.summary)), str(len(i.summary)), e(i.summary)] for i in _outside(ev.items)
    ]
    body += ["<h2>Outside the house range</h2>", table(["paper", "Chinese", "all", "summary"], outside)]
    body += ["<h2>What each measure says, and what it cannot</h2>", "<dl>"]
    body += [f"<dt>{e(name)}</dt><dd>{e(text)}</dd>" for name, text in LIMITS] + ["</dl>"]
    return page(f"eval {ev.venue}", body)


def _flagged_html(items: list[Scored], model: Scorecard, ref: Scorecard) -> str:
    titles = {i.paper_id: i.title for i in items}
    rows = [[e(p), e(titles.get(p, "")), "summary", e(", ".join(t))] for p, t in model.numbers.flagged.items()]
    rows += [[e(p), e(titles.get(p, "")), "reference", e(", ".join(t))] for p, t in ref.numbers.flagged.items()]
    return table(["paper", "title", "whose", "not in the paper text"], rows) if rows else "<p>None flagged.</p>"


def evaluation_markdown(ev: Evaluation) -> str:
    model, ref = ev.model, ev.ref
    out = [
        f"# Quality of {md(ev.venue)}'s summaries",
        "",
        f"Against {md(ev.reference)}: {ev.lines} lines, {len(ev.matched.pairs)} matched to papers, "
        f"{len(ev.items)} scored (approved versions, else the newest draft). Charts: report.html.",
        "",
    ]
    out += md_table(["measure", "value", "of"], [[md(n), md(s), md(o)] for n, _, _, s, o in headline_rows(ev)])
    if model.fields is not None and model.fields.labels:
        out += ["## Field confusion (rows: reference, columns: summary)", ""]
        labels = model.fields.labels
        out += md_table(
            ["", *map(md, labels)],
            [[md(lab), *map(str, row)] for lab, row in zip(labels, model.fields.matrix, strict=True)],
        )
        rows = [
            [md(i.paper_id), md(i.title), md(i.reference.field if i.reference else ""), md(i.field)]
            for i in _mismatches(ev)
        ]
        out += md_table(["paper", "title", "reference", "summary"], rows) if rows else ["No field differs.", ""]
    flagged = [[md(p), "summary", md(", ".join(t))] for p, t in model.numbers.flagged.items()]
    flagged += [[md(p), "reference", md(", ".join(t))] for p, t in ref.numbers.flagged.items()]
    out += ["## Numbers not in the paper", ""]
    out += md_table(["paper", "whose", "not in the paper text"], flagged) if flagged else ["None flagged.", ""]
    outside = [[md(i.paper_id), str(cjk_count(i.summary)), str(len(i.summary))] for i in _outside(ev.items)]
    out += ["## Outside the house range", ""]
    out += md_table(["paper", "Chinese", "all"], outside) if outside else ["None.", ""]
    out += ["## What each measure says, and what it cannot", ""]
    out += [f"- **{name}**: {text}" for name, text in LIMITS] + [""]
    return "\n".join(out)
