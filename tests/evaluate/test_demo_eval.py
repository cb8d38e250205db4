"""The issue's "done when", on the bundled demo: `eval ICML2026 --against examples/demo/reference.jsonl` writes its
report with charts whose numbers equal those worked out here from the demo's own files; `eval --compare` of two
replayed configurations shows them side by side with each paper's cost, and a second run makes no call."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from reading import bar_counts, chinese, marks, median, own_histogram

from conftest import REPO, RunCli
from summarizer.apps.demo import run as demo
from summarizer.core.flags import PaperFacts, invented_numbers
from summarizer.core.store import Store
from summarizer.testing.fake_openai import FakeOpenAI
from summarizer.testing.fake_requests import default_answer, paper_title, prompt_text

pytestmark = pytest.mark.slow  # the whole demo, then eval over it: `make test-all`

VENUE = "ICML2026"
REFERENCE = REPO / "examples" / "demo" / "reference.jsonl"


@pytest.fixture
def demo_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(REPO / "examples" / "demo", folder, ignore=shutil.ignore_patterns("outputs", "cache"))
    monkeypatch.setattr(demo, "REPLAY_LATENCY_S", 0.0)
    demo.run_demo(folder)
    return folder


def _papers(folder: Path) -> dict[str, dict[str, Any]]:
    papers = yaml.safe_load((folder / "papers.yaml").read_text("utf-8"))["papers"]
    return {str(p["arxiv_id"]): p for p in papers if p["venue"] == VENUE}


def _reference() -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in REFERENCE.read_text("utf-8").splitlines() if line.strip()]
    return {line["arxiv_id"]: line for line in lines if line.get("venue") == VENUE}


def _scored(folder: Path) -> dict[str, dict[str, Any]]:
    """Each paper's summary as the demo left it (approved, else the newest draft): what eval scores."""
    store = Store(folder / "outputs")
    out = {}
    for record in store.records(VENUE):
        version = record.summaries.approved or (
            record.summaries.current if record.summaries.status == "draft" else None
        )
        if version is not None:
            out[record.id] = {"summary": version.summary, "field": version.field, "tags": version.tags}
    return out


def _paper_text(paper: dict[str, Any]) -> str:
    return "\n".join([paper["title"], paper["abstract"], *paper["sections"].values()])


def eval_demo(folder: Path, cli: RunCli) -> Path:
    result = cli("eval", VENUE, "--against", str(REFERENCE), config=folder / "config.yaml")
    assert result.code == 0, result.err
    return folder / "outputs" / "eval" / VENUE / "report.html"


def expected_figures(folder: Path) -> dict[str, Any]:
    """The report's figures worked out from papers.yaml, reference.jsonl and the records, without the package."""
    papers, reference, scored = _papers(folder), _reference(), _scored(folder)
    ids = sorted(set(reference) & set(scored))
    config = yaml.safe_load((folder / "config.yaml").read_text("utf-8"))["tags"]
    lookup = {v.casefold(): v.casefold() for v in config["vocabulary"]}
    lookup |= {k.casefold(): v.casefold() for k, v in config["aliases"].items()}
    mapped = hits = 0
    for i in ids:
        want = {lookup[k.casefold()] for k in reference[i]["keywords"] if k.casefold() in lookup}
        have = {lookup.get(t.casefold(), t.casefold()) for t in scored[i]["tags"]}
        mapped, hits = mapped + len(want), hits + len(want & have)
    flagged = [i for i in ids if invented_numbers(scored[i]["summary"], PaperFacts(_paper_text(papers[i])))]
    usage = [r.usage.cost_usd for r in Store(folder / "outputs").records(VENUE) if r.id in ids]
    return {
        "ids": ids,
        "field.accuracy": sum(reference[i]["field"] == scored[i]["field"] for i in ids) / len(ids),
        "tags.recall": hits / mapped,
        "numbers.share": len(flagged) / len(ids),
        "length.cjk_median": median([chinese(scored[i]["summary"]) for i in ids]),
        "cost.per_paper": sum(usage) / len(usage),
        "cjk.summaries": own_histogram([chinese(scored[i]["summary"]) for i in ids], 10, 16),
        "cjk.reference": own_histogram([chinese(reference[i]["summary"]) for i in ids], 10, 16),
        "chars.summaries": own_histogram([len(scored[i]["summary"]) for i in ids], 25, 13),
    }


def test_eval_on_the_demo_writes_the_report_whose_numbers_equal_an_independent_count(
    demo_folder: Path, cli: RunCli
) -> None:
    report = eval_demo(demo_folder, cli)
    page, want = marks(report), expected_figures(demo_folder)
    scored = json.loads((report.parent / "metrics.json").read_text("utf-8"))["scored"]
    assert scored == len(want["ids"]) >= 4
    for key in ("field.accuracy", "tags.recall", "numbers.share", "length.cjk_median", "cost.per_paper"):
        assert page.metrics[key] == pytest.approx(want[key], rel=1e-6), key
    assert bar_counts(page, "cjk", "summaries") == want["cjk.summaries"]
    assert bar_counts(page, "cjk", "reference") == want["cjk.reference"]
    assert bar_counts(page, "chars", "summaries") == want["chars.summaries"]
    assert {"cjk", "chars", "share", "confusion"} <= {b["chart"] for b in page.bars} | {"confusion"}
    assert page.cells, "the confusion matrix is drawn"


def _house_answers() -> dict[str, dict[str, Any]]:
    """Configuration B's recorded answers: the reference's house-style one-liners, filed by its second label."""
    lines = [json.loads(line) for line in REFERENCE.read_text("utf-8").splitlines() if line.strip()]
    return {
        line["title"]: {"summary": line["summary"], "field": line["field_check"], "tags": ["LLM"]} for line in lines
    }


@pytest.fixture
def replayed(demo_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, FakeOpenAI]]:
    recorded = {
        p["title"]: p["answer"] for p in yaml.safe_load((demo_folder / "papers.yaml").read_text("utf-8"))["papers"]
    }
    house = _house_answers()
    monkeypatch.setenv("SUMMARIZER_DEMO_KEY", "demo-placeholder")
    # A paper the demo gains later, with no line in the reference, gets the stand-in's own answer.
    with (
        FakeOpenAI(answer=lambda body: dict(recorded.get(paper_title(body)) or default_answer(body))) as a,
        FakeOpenAI(answer=lambda body: dict(house.get(paper_title(body)) or default_answer(body))) as b,
    ):
        yield {"recorded": a, "house": b}


PRICES = {"recorded": (2.50, 10.00), "house": (0.15, 0.60)}


def write_configs(folder: Path, providers: dict[str, FakeOpenAI]) -> list[str]:
    paths = []
    for label, (price_in, price_out) in PRICES.items():
        llm = {"base_url": providers[label].base_url, "model": f"{label}-model"}
        llm["price_per_million"] = {"input": price_in, "output": price_out}  # type: ignore[assignment]
        path = folder / f"{label}.yaml"
        path.write_text(yaml.safe_dump({"label": label, "llm": llm}), "utf-8")
        paths.append(str(path))
    return paths


def test_compare_on_the_demo_shows_both_side_by_side_with_each_papers_cost_then_costs_nothing(
    demo_folder: Path, cli: RunCli, replayed: dict[str, FakeOpenAI]
) -> None:
    args = ["eval", VENUE, "--compare", *write_configs(demo_folder, replayed), "--against", str(REFERENCE)]
    first = cli(*args, config=demo_folder / "config.yaml")
    assert first.code == 0, first.err
    sampled = len(_papers(demo_folder))  # every ICML2026 paper: fewer than --sample's 20
    calls = {label: provider.calls for label, provider in replayed.items()}
    assert calls == {"recorded": sampled, "house": sampled}
    folder = demo_folder / "outputs" / "eval" / VENUE / "compare"
    page = marks(folder / "report.html")
    titles = {p["title"]: i for i, p in _papers(demo_folder).items()}
    for label, provider in replayed.items():
        price_in, price_out = PRICES[label]
        for request in provider.requests:
            prompt, completion = max(1, len(prompt_text(request.body)) // 2), max(1, len(request.content or "") // 2)
            cost = (prompt * price_in + completion * price_out) / 1_000_000
            assert page.metrics[f"{label}.cost.{titles[paper_title(request.body)]}"] == pytest.approx(cost, rel=1e-6)
    for paper in titles.values():
        difference = page.metrics[f"house.cost.{paper}"] - page.metrics[f"recorded.cost.{paper}"]
        assert page.metrics[f"difference.cost.{paper}"] == pytest.approx(difference, rel=1e-5, abs=1e-9)
    assert (folder / "differences.html").is_file() and 'data-paper="' in (folder / "differences.html").read_text(
        "utf-8"
    )

    second = cli(*args, config=demo_folder / "config.yaml")
    assert second.code == 0, second.err
    assert {label: provider.calls for label, provider in replayed.items()} == calls
    assert f"0 asked, {sampled} from the answer cache" in second.err


@pytest.mark.slow
def test_the_reports_charts_render_in_a_browser(
    demo_folder: Path, cli: RunCli, replayed: dict[str, FakeOpenAI], tmp_path: Path
) -> None:
    from browser import chromium, new_page

    report = eval_demo(demo_folder, cli)
    want = expected_figures(demo_folder)
    args = ["eval", VENUE, "--compare", *write_configs(demo_folder, replayed)]
    assert cli(*args, config=demo_folder / "config.yaml").code == 0
    compare = demo_folder / "outputs" / "eval" / VENUE / "compare" / "report.html"
    # The browser only now: Playwright's event loop would refuse the runs' asyncio.run (tests/conftest.py, browser).
    with chromium() as browser, new_page(browser) as tab:
        tab.goto(report.as_uri())
        charts = tab.locator("svg.chart")
        assert charts.count() == 4  # Chinese characters, all characters, Chinese share, the confusion matrix
        for i in range(charts.count()):
            box = charts.nth(i).bounding_box()
            assert box is not None and box["width"] > 200 and box["height"] > 100
        drawn = tab.eval_on_selector_all(
            'svg[data-chart="cjk"] rect.bar[data-series="summaries"]',
            "bars => bars.map(b => [Number(b.dataset.count), b.getBoundingClientRect().height])",
        )
        assert [count for count, _ in drawn] == want["cjk.summaries"]
        assert all((height > 0) == (count > 0) for count, height in drawn)
        cells = tab.locator("svg[data-chart=confusion] rect.cell")
        assert cells.count() > 0 and cells.first.bounding_box() is not None
        shown = tab.locator('[data-metric="field.accuracy"]').inner_text()
        assert shown == f"{want['field.accuracy']:.1%}"
        tab.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        tab.goto(compare.as_uri())
        assert tab.locator("svg.chart").count() == 5  # cost, latency, and the three length charts
        bars = tab.eval_on_selector_all('svg[data-chart="cost"] rect.bar', "bars => bars.map(b => b.getBBox().width)")
        assert len(bars) == 2 and all(width > 0 for width in bars)
