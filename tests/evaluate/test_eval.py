"""`summarizer eval VENUE --against REFERENCE`: the planted mistakes are found, and every figure of the
report equals one worked out here from the fixture, another way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from planted import ALIASES, PAPERS, VENUE, reference_rows, replay, write_papers
from reading import chinese, macro_f1, marks, median

from conftest import Project, RunCli
from summarizer.core import limits
from summarizer.core.flags import PaperFacts, invented_numbers
from summarizer.core.records import Record
from summarizer.testing.fake_openai import FakeOpenAI
from summarizer.testing.fake_requests import prompt_text

pytestmark = pytest.mark.fake_openai(answer=replay("a"))
EVAL = Path("outputs") / "eval" / VENUE


@pytest.fixture
def summarized(project: Project, cli: RunCli, server: FakeOpenAI) -> Project:
    """The planted venue, summarised by configuration A's recorded answers (drafts, not approved)."""
    project.write_config(llm={**project.config["llm"], "base_url": server.base_url})
    write_papers(project)
    result = cli("summarize", VENUE)
    assert result.code == 0, result.err
    return project


def _reference(project: Project, rows: list[dict[str, object]] | None = None) -> Path:
    return project.write_jsonl("reference.jsonl", rows if rows is not None else reference_rows())


def _aliases(project: Project) -> Path:
    path = project.root / "aliases.yaml"
    path.write_text(yaml.safe_dump(ALIASES, allow_unicode=True), "utf-8")
    return path


def _own_tag_recall(project: Project) -> tuple[int, int]:
    """(hits, mapped keywords) worked out from the config and the fixture by lookup tables of their own."""
    tags = project.config["tags"]
    lookup = {v.casefold(): v.casefold() for v in tags["vocabulary"]}
    lookup |= {k.casefold(): v.casefold() for k, v in {**tags["aliases"], **ALIASES}.items()}
    hits = mapped = 0
    for paper in PAPERS:
        want = {lookup[k.casefold()] for k in paper.keywords if k.casefold() in lookup}
        have = {lookup.get(t.casefold(), t.casefold()) for t in paper.a["tags"]}
        mapped += len(want)
        hits += len(want & have)
    return hits, mapped


def _provider_cost(server: FakeOpenAI, price_in: float, price_out: float) -> float:
    """What the stand-in provider billed: its own token counts (half a character each) at the given prices."""
    total = 0.0
    for request in server.requests:
        prompt, completion = max(1, len(prompt_text(request.body)) // 2), max(1, len(request.content or "") // 2)
        total += (prompt * price_in + completion * price_out) / 1_000_000
    return total


def test_each_planted_mistake_is_found_and_the_figures_equal_an_independent_count(
    summarized: Project, cli: RunCli, server: FakeOpenAI
) -> None:
    rows = reference_rows()
    rows[0]["note_summary"] = str(rows[0]["summary"]) + "第二行：这篇笔记的一句话总结多写了一句。"
    result = cli(
        "eval", VENUE, "--against", str(_reference(summarized, rows)), "--tag-aliases", str(_aliases(summarized))
    )
    assert result.code == 0, result.err
    page = marks(summarized.root / EVAL / "report.html")
    shown = page.metrics
    data = json.loads((summarized.root / EVAL / "metrics.json").read_text("utf-8"))

    # A field confusion: paper 2 (reference llm_reasoning) filed under llm_pretraining.
    pairs = [(p.field, p.a["field"]) for p in PAPERS]
    assert shown["field.accuracy"] == pytest.approx(sum(t == g for t, g in pairs) / len(pairs))
    assert shown["field.macro_f1"] == pytest.approx(macro_f1(pairs))
    fields = data["summaries"]["fields"]
    at = {label: i for i, label in enumerate(fields["labels"])}
    assert fields["matrix"][at["llm_reasoning"]][at["llm_pretraining"]] == 1
    cell = {(c["data-row"], c["data-col"]): int(c["data-count"]) for c in page.cells}
    for truth, guess in {*pairs}:
        assert cell[(truth, guess)] == pairs.count((truth, guess))

    # An invented number: paper 3's 37.5%; the reference's own summaries are flagged where the check errs.
    texts = {p.id: f"{p.title}\n{p.abstract}" for p in PAPERS}
    flagged = {p.id for p in PAPERS if invented_numbers(p.a["summary"], PaperFacts(texts[p.id]))}
    assert flagged == {"2601.00103"}
    assert data["summaries"]["numbers"]["papers"] == {"2601.00103": ["37.5%"]}
    assert shown["numbers.share"] == pytest.approx(len(flagged) / len(PAPERS))
    false_alarms = [p.id for p in PAPERS if invented_numbers(p.reference, PaperFacts(texts[p.id]))]
    assert shown["numbers.reference_share"] == pytest.approx(len(false_alarms) / len(PAPERS))

    # An over-length summary: paper 4, outside the house range.
    outside = [
        p.id
        for p in PAPERS
        if not (limits.HOUSE_CJK_LOW <= chinese(p.a["summary"]) <= limits.HOUSE_CJK_HIGH)
        or not (limits.HOUSE_CHARS_LOW <= len(p.a["summary"]) <= limits.HOUSE_CHARS_HIGH)
    ]
    assert outside == ["2601.00104"] and shown["length.outside_house"] == 1
    assert shown["length.cjk_median"] == median([chinese(p.a["summary"]) for p in PAPERS])
    assert shown["length.chars_median"] == median([len(p.a["summary"]) for p in PAPERS])

    hits, mapped = _own_tag_recall(summarized)
    assert shown["tags.recall"] == pytest.approx(hits / mapped)
    assert shown["notes.same_share"] == pytest.approx((len(PAPERS) - 1) / len(PAPERS))
    assert shown["cost.per_paper"] == pytest.approx(_provider_cost(server, 0.15, 0.60) / len(PAPERS), rel=1e-6)

    report = (summarized.root / EVAL / "report.md").read_text("utf-8")
    assert "37.5%" in report and "llm\\_reasoning" in report
    assert "field: accuracy 83.3%" in result.err and "numbers not in the paper: 1 of 6 summaries" in result.err


def test_the_trust_filter_scores_fields_only_where_the_reference_agrees_with_itself(
    summarized: Project, cli: RunCli
) -> None:
    reference = _reference(summarized)
    assert cli("eval", VENUE, "--against", str(reference), "--trust", "agree").code == 0
    agreed = [(p.field, p.a["field"]) for p in PAPERS if p.field_check == p.field]
    shown = marks(summarized.root / EVAL / "report.html").metrics
    assert len(agreed) == len(PAPERS) - 1
    assert shown["field.accuracy"] == pytest.approx(sum(t == g for t, g in agreed) / len(agreed))

    rows = reference_rows()
    rows[1]["trusted"] = True  # the one a person checked: the planted confusion
    assert cli("eval", VENUE, "--against", str(_reference(summarized, rows)), "--trust", "trusted").code == 0
    data = json.loads((summarized.root / EVAL / "metrics.json").read_text("utf-8"))
    assert data["summaries"]["fields"]["scored"] == 1 and data["summaries"]["fields"]["accuracy"] == 0.0


def test_outside_text_is_escaped_in_the_html_and_the_markdown(project: Project, cli: RunCli) -> None:
    store = project.store()
    record = Record(venue=VENUE, id="2601.00999", title="<script>alert(1)</script> & Co", arxiv_id="2601.00999")
    record.summaries.add_version(
        "<img src=x onerror=alert(2)> 本文提出一种方法，效果提升 12.5%。" * 2, ["LLM"], "llm_reasoning", "import"
    )
    store.save(record)
    rows = [
        {
            "venue": VENUE,
            "arxiv_id": "2601.00999",
            "title": "<script>alert(1)</script> & Co",
            "summary": "本文 <iframe src=//evil> 提出一种 | 方法 [x](javascript:alert(3))。",
            "field": "<b>llm_reasoning</b>",
        }
    ]
    result = cli("eval", VENUE, "--against", str(_reference(project, rows)))
    assert result.code == 0, result.err
    html = (project.root / EVAL / "report.html").read_text("utf-8")
    for raw in ("<script>", "<img", "<iframe", "<b>llm"):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in html and "&lt;b&gt;llm_reasoning&lt;/b&gt;" in html
    assert "default-src 'none'" in html  # and the page could run no script if one got through
    markdown = (project.root / EVAL / "report.md").read_text("utf-8")
    for raw in ("<script>", "<img", "<b>", "](javascript"):
        assert raw not in markdown


def test_a_broken_reference_is_refused_with_every_bad_line_and_nothing_written(project: Project, cli: RunCli) -> None:
    path = project.root / "reference.jsonl"
    good = json.dumps(reference_rows()[0], ensure_ascii=False)
    bad_key = json.dumps({**reference_rows()[1], "feild": "x"}, ensure_ascii=False)
    path.write_text("\n".join([good, "not json", bad_key, json.dumps({"title": "t"})]) + "\n", "utf-8")
    result = cli("eval", VENUE, "--against", str(path))
    assert result.code == 2
    assert "3 lines of the reference have problems" in result.err
    assert "reference.jsonl:2: not valid JSON" in result.err and "reference.jsonl:3: feild: unknown key" in result.err
    assert "reference.jsonl:4: summary: missing" in result.err
    assert not (project.root / EVAL).exists()
    assert cli("eval", VENUE).code == 2  # neither --against nor --compare
    assert "reference file not found" in cli("eval", VENUE, "--against", "missing.jsonl").err


def test_unmatched_lines_and_a_paper_given_twice_are_reported(summarized: Project, cli: RunCli) -> None:
    rows = reference_rows()
    rows.append({**rows[0], "summary": "第二行同一篇论文的总结，应当被忽略而不是计入评分之中。"})
    rows.append({**rows[0], "arxiv_id": "2601.09999", "title": "A paper this venue does not have"})
    rows.append({**rows[0], "venue": "ICLR2026"})
    result = cli("eval", VENUE, "--against", str(_reference(summarized, rows)))
    assert result.code == 0, result.err
    assert "9 reference lines, 6 matched, 6 scored" in result.err
    assert "1 reference lines match no paper of ICML2026" in result.err
    assert "1 reference lines repeat a paper an earlier line has (left out)" in result.err
