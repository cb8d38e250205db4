"""Real reference text: the 37 notes of the reference site in ../shared/fixtures/real/notes, turned into a reference
and records by examples/eval/notes_to_reference.py, then scored.  Each figure of the report equals one worked out
here from the converter's output; the house length (core/limits.py) holds for these one-liners as it did for all
3,484; and the number check's false-positive rate on them is the figure docs/evaluation.md states."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from reading import chinese, marks, median

from conftest import REPO, SHARED, Project, RunCli
from summarizer.core import limits
from summarizer.core.flags import PaperFacts, invented_numbers

CONVERTER = REPO / "examples" / "eval" / "notes_to_reference.py"
VENUE = "REAL"


def _convert(notes: Path, config: Path, *extra: str) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, str(CONVERTER), str(notes), str(config), VENUE, *extra],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture
def real(project: Project, real_fixtures: Path) -> dict[str, Any]:
    taxonomy = yaml.safe_load((SHARED / "reference" / "taxonomy.yaml").read_text("utf-8"))
    project.write_config(venues=[{"id": VENUE}], fields=taxonomy["fields"], llm={"input_token_budget": 20_000})
    notes = real_fixtures / "notes"
    return {
        "notes": sorted(notes.glob("*/*/*.md")),
        "reference": _convert(notes, project.config_path),
        "records": _convert(notes, project.config_path, "--records"),
    }


def test_real_notes_scored_against_themselves_give_the_figures_worked_out_here(
    project: Project, cli: RunCli, real: dict[str, Any]
) -> None:
    reference, records = real["reference"], real["records"]
    assert len(reference) == len(real["notes"]) == 37
    imported = cli("import", str(project.write_jsonl("records.jsonl", records)))
    assert imported.code == 0, imported.err
    path = project.write_jsonl("reference.jsonl", reference)
    result = cli("eval", VENUE, "--against", str(path), "--trust", "agree")
    assert result.code == 0, result.err
    shown = marks(project.root / "outputs" / "eval" / VENUE / "report.html").metrics

    # Two notes are the same paper filed twice: the first line of each counts, the other is reported.
    firsts: dict[str, dict[str, Any]] = {}
    for line in reference:
        firsts.setdefault(line.get("arxiv_id") or line["title"], line)
    assert len(firsts) == len(records) == 35 and "2 reference lines repeat a paper" in result.err

    # The number check on each one-liner against the rest of its own note: its false-positive rate.
    texts = {r.get("arxiv_id") or r["title"]: f"{r['title']}\n{r['abstract']}" for r in records}
    flagged = [k for k, line in firsts.items() if invented_numbers(line["summary"], PaperFacts(texts[k]))]
    assert shown["numbers.reference_share"] == pytest.approx(len(flagged) / len(firsts))
    assert shown["numbers.share"] == shown["numbers.reference_share"]  # the records hold the same one-liners
    assert 0 < len(flagged) < len(firsts) / 4, flagged  # a warning that errs now and then, not a gate

    agree = [line for line in firsts.values() if line["field_check"] == line["field"]]
    assert f"on {len(agree)} papers (lines whose field_check equals their field" in result.err
    assert 0 < len(agree) < len(firsts)  # the reference's own two labels disagree on some notes

    cjk = [chinese(line["summary"]) for line in firsts.values()]
    assert shown["length.cjk_median"] == median(cjk)
    inside = [n for n in cjk if limits.HOUSE_CJK_LOW <= n <= limits.HOUSE_CJK_HIGH]
    assert limits.HOUSE_CJK_LOW <= median(cjk) <= limits.HOUSE_CJK_HIGH and len(inside) >= 0.8 * len(cjk)

    one_line = [line for line in firsts.values() if "\n" not in line["note_summary"].strip()]
    assert len(one_line) < len(firsts)  # a 一句话总结 of two lines is not its digest text
    assert shown["notes.same_share"] == pytest.approx(len(one_line) / len(firsts))

    html = (project.root / "outputs" / "eval" / VENUE / "report.html").read_text("utf-8")
    assert "<script" not in html and "$" in html  # the notes' math shown as written
