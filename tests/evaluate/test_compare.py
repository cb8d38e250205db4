"""`summarizer eval VENUE --compare A B`: two configurations on the same seeded sample, side by side, through
the answer cache (a second run makes no call), with nothing approved, published or written into a record."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from planted import PAPERS, VENUE, reference_rows, replay, write_papers
from reading import marks

from conftest import Project, RunCli
from summarizer.apps.evaluate.compare import sample_papers
from summarizer.testing.fake_openai import FakeOpenAI, Fault
from summarizer.testing.fake_requests import paper_title, prompt_text

COMPARE = Path("outputs") / "eval" / VENUE / "compare"
PRICES = {"a": (2.50, 10.00), "b": (0.25, 1.00)}


@pytest.fixture
def providers(provider_key: str) -> Iterator[dict[str, FakeOpenAI]]:
    with FakeOpenAI(answer=replay("a")) as a, FakeOpenAI(answer=replay("b")) as b:
        yield {"a": a, "b": b}


def _configs(project: Project, providers: dict[str, FakeOpenAI]) -> list[str]:
    paths = []
    for name, (price_in, price_out) in PRICES.items():
        path = project.root / f"{name}.yaml"
        llm = {"base_url": providers[name].base_url, "model": f"model-{name}"}
        llm["price_per_million"] = {"input": price_in, "output": price_out}  # type: ignore[assignment]
        path.write_text(yaml.safe_dump({"label": f"config-{name}", "llm": llm}), "utf-8")
        paths.append(str(path))
    return paths


def _billed(provider: FakeOpenAI, prices: tuple[float, float]) -> dict[str, float]:
    """Each paper's cost as the stand-in billed it: its own token counts (half a character each)."""
    by_id = {p.title: p.id for p in PAPERS}
    out: dict[str, float] = {}
    for request in provider.requests:
        prompt, completion = max(1, len(prompt_text(request.body)) // 2), max(1, len(request.content or "") // 2)
        paper = by_id[paper_title(request.body)]
        out[paper] = out.get(paper, 0.0) + (prompt * prices[0] + completion * prices[1]) / 1_000_000
    return out


def test_two_configurations_side_by_side_then_free_from_the_cache(
    project: Project, cli: RunCli, providers: dict[str, FakeOpenAI]
) -> None:
    store = write_papers(project)
    records_before = {p: p.read_bytes() for p in (project.root / "outputs" / "records").rglob("*.json")}
    reference = project.write_jsonl("reference.jsonl", reference_rows())
    args = ["eval", VENUE, "--compare", *_configs(project, providers), "--sample", "6", "--against", str(reference)]

    first = cli(*args)
    assert first.code == 0, first.err
    assert providers["a"].calls == len(PAPERS) and providers["b"].calls == len(PAPERS)
    assert "config-a (model-a): 6 asked, 0 from the answer cache" in first.err

    page = marks(project.root / COMPARE / "report.html")
    billed = {name: _billed(providers[name], PRICES[name]) for name in PRICES}
    for paper in PAPERS:
        a, b = billed["a"][paper.id], billed["b"][paper.id]
        assert page.metrics[f"config-a.cost.{paper.id}"] == pytest.approx(a, rel=1e-6)
        assert page.metrics[f"config-b.cost.{paper.id}"] == pytest.approx(b, rel=1e-6)
        assert page.metrics[f"difference.cost.{paper.id}"] == pytest.approx(b - a, rel=1e-5)
    assert page.metrics["config-a.cost.per_paper"] == pytest.approx(sum(billed["a"].values()) / len(PAPERS), rel=1e-6)
    planted = [(p.field, p.a["field"]) for p in PAPERS]
    assert page.metrics["config-a.field.accuracy"] == pytest.approx(sum(t == g for t, g in planted) / len(PAPERS))
    assert page.metrics["config-b.field.accuracy"] == pytest.approx(
        sum(p.field == p.b["field"] for p in PAPERS) / len(PAPERS)
    )
    assert page.metrics["config-a.length.outside_house"] == 1 and page.metrics["config-b.length.outside_house"] == 0

    # The papers where they differ most: another field first (the planted confusion), each beside the other.
    differences = (project.root / COMPARE / "differences.html").read_text("utf-8")
    first_paper = differences.index('data-paper="')
    assert differences[first_paper:].startswith('data-paper="2601.00102"')
    assert PAPERS[1].a["summary"] in differences and PAPERS[1].b["summary"] in differences
    assert PAPERS[1].abstract in differences

    # The answers are eval versions, tagged with their run; no record changed, nothing approved.
    run_a = json.loads((project.root / COMPARE / "runs" / "config-a.json").read_text("utf-8"))
    assert run_a["eval_run"] == "config-a" and {e["eval_run"] for e in run_a["answers"]} == {"config-a"}
    invented = next(e for e in run_a["answers"] if e["paper"] == "2601.00103")["version"]["warnings"]
    assert any(w.startswith("numbers not in the paper text: 37.5%") for w in invented)
    assert {p: p.read_bytes() for p in (project.root / "outputs" / "records").rglob("*.json")} == records_before
    assert all(record.summaries.versions == [] for record in store.records(VENUE))

    second = cli(*args)
    assert second.code == 0, second.err
    assert providers["a"].calls == len(PAPERS) and providers["b"].calls == len(PAPERS)  # no model call
    assert "config-b (model-b): 0 asked, 6 from the answer cache" in second.err
    again = marks(project.root / COMPARE / "report.html")
    assert {k: v for k, v in again.metrics.items() if "latency" not in k} == {
        k: v for k, v in page.metrics.items() if "latency" not in k
    }


def test_the_sample_is_drawn_with_the_seed_from_the_sorted_ids(project: Project) -> None:
    store = write_papers(project)
    settings = project.settings()
    ids = sorted(p.id for p in PAPERS)
    for seed in (0, 1, 7):
        drawn = [r.id for r in sample_papers(settings, store.records(VENUE), 3, seed)]
        assert drawn == sorted(random.Random(seed).sample(ids, 3))


def test_a_configuration_file_with_a_mistake_is_one_line_naming_it(project: Project, cli: RunCli) -> None:
    write_papers(project)
    good = project.root / "good.yaml"
    good.write_text("llm: {model: m}\n", "utf-8")
    bad = project.root / "bad.yaml"
    bad.write_text("llm: {temprature: 0.1}\nmodel: x\n", "utf-8")
    result = cli("eval", VENUE, "--compare", str(good), str(bad))
    assert result.code == 2 and "bad.yaml: model: unknown key" in result.err
    bad.write_text("llm: {temprature: 0.1}\n", "utf-8")
    result = cli("eval", VENUE, "--compare", str(good), str(bad))
    assert result.code == 2 and "bad.yaml: llm.temprature: unknown key" in result.err


def test_a_paper_one_configuration_cannot_answer_is_a_failure_of_that_configuration_only(
    project: Project, cli: RunCli, provider_key: str
) -> None:
    write_papers(project)
    refused = PAPERS[0].title

    def bad_request_for_one(request: Any) -> Fault | None:
        return Fault("bad_request") if request.title == refused else None

    with FakeOpenAI(answer=replay("a")) as a, FakeOpenAI(answer=replay("b"), fault_for=bad_request_for_one) as b:
        result = cli("eval", VENUE, "--compare", *_configs(project, {"a": a, "b": b}), "--sample", "6")
    assert result.code == 1
    assert "config-b (model-b): 5 asked, 0 from the answer cache, 1 failed" in result.err
    assert f"config-b/{PAPERS[0].id}: HTTP 400 from the provider" in result.err
    run_b = json.loads((project.root / COMPARE / "runs" / "config-b.json").read_text("utf-8"))
    entry = next(e for e in run_b["answers"] if e["paper"] == PAPERS[0].id)
    assert "version" not in entry and "maximum context length" in entry["failure"]
    differences = (project.root / COMPARE / "differences.html").read_text("utf-8")
    assert f'data-paper="{PAPERS[0].id}"' not in differences
