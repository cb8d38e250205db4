"""`run VENUE --dry-run`: what a run would do and about what it would cost, read from the venue's source;
nothing downloaded, no model asked, nothing written, no key needed."""

from __future__ import annotations

from pathlib import Path

from conftest import Project, RunCli, summary_text
from summarizer.core.records import Record


def listing(project: Project) -> None:
    (project.root / "venues").mkdir()
    (project.root / "venues" / "ICML2026.txt").write_text(
        "# three papers and a line that is not one\n2601.00001\n2601.00002\nhttps://example.org/paper\n2601.00003\n",
        encoding="utf-8",
    )
    venues = [{"id": "ICML2026", "source": {"type": "list", "path": "venues/ICML2026.txt"}}]
    project.write_config(venues=venues, llm={**project.config["llm"], "price_per_million": {"input": 1, "output": 2}})
    done = Record(venue="ICML2026", id="2601.00001", title="Done", arxiv_id="2601.00001", source_entry="2601.00001")
    done.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
    project.store().save(done)


def files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def test_a_dry_run_counts_the_list_and_prices_what_it_would_ask(project: Project, cli: RunCli) -> None:
    listing(project)
    before = files(project.root)
    result = cli("run", "ICML2026", "--dry-run")
    assert result.code == 0, result.err
    assert "dry run ICML2026: 4 listed, 2 new, 2 to summarize, 1 unusable" in result.err
    assert "https://example.org/paper: a URL that is not an arXiv link" in result.err
    # 2 papers × (6000 read + 800 of prompt) × $1/M + 2 × 400 answered × $2/M
    assert "about 13,600 prompt and 800 completion tokens, $0.0152" in result.err
    assert files(project.root) == before  # nothing written, no cache made


def test_a_dry_run_stops_where_the_run_would_in_one_line(project: Project, cli: RunCli) -> None:
    venues = [{"id": "ICLR2026", "source": {"type": "list", "path": "venues/missing.txt"}}]
    project.write_config(venues=venues)
    result = cli("run", "ICLR2026", "--dry-run")
    assert result.code == 2 and "venue list not found" in result.err
