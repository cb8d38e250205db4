"""The CLI's exit codes and messages: 0 done, 1 some papers failed, 2 usage or configuration."""

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core import locks
from summarizer.core.records import Record


def test_status_json_has_the_documented_shape(cli: RunCli, project: Project) -> None:
    store = project.store()
    ok = Record(venue="ICML2026", id="2601.00001", title="Done", arxiv_id="2601.00001")
    ok.fetch.text_path = "text/abc.json"
    ok.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
    ok.notes.add_version("## 研究背景与动机\n背景。\n", "llm")
    ok.notes.approve()
    ok.usage.llm_calls, ok.usage.prompt_tokens, ok.usage.completion_tokens, ok.usage.cost_usd = 1, 1000, 200, 0.00027
    store.save(ok)
    broken = Record(venue="ICML2026", id="2601.00002", title="Broken", abstract="An abstract.")
    broken.fetch.abstract_only = True
    broken.fail("fetch", "not a PDF (got an HTML page)")
    store.save(broken)

    result = cli("status", "ICML2026", "--json")
    assert result.code == 0, result.err
    assert result.json() == {
        "venue": "ICML2026",
        "papers": 2,
        "fetched": 1,
        "summarized": 1,
        "by_status": {"draft": 1, "approved": 0, "rejected": 0},
        "notes": {"draft": 0, "approved": 1, "rejected": 0},
        "failed": [{"id": "2601.00002", "stage": "fetch", "reason": "not a PDF (got an HTML page)"}],
        "corrupt": [],
        "usage": {"llm_calls": 1, "prompt_tokens": 1000, "completion_tokens": 200, "cost_usd": 0.00027},
        "batches": [],
        "note_batches": [],
    }
    every = cli("status", "--json").json()
    assert [row["venue"] for row in every] == ["ICML2026", "ICLR2026"]
    table = cli("status")
    assert table.code == 0 and "ICML2026" in table.out and "not a PDF" in table.out


def test_status_of_every_venue_ends_with_their_totals(cli: RunCli, project: Project) -> None:
    store = project.store()
    for venue, n, cost in (("ICML2026", 1, 0.25), ("ICLR2026", 2, 0.5)):
        record = Record(venue=venue, id=f"2601.0000{n}", title="Done", arxiv_id=f"2601.0000{n}")
        record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
        record.usage.llm_calls, record.usage.prompt_tokens, record.usage.cost_usd = n, 1000 * n, cost
        store.save(record)
    table = cli("status")
    assert table.code == 0, table.err
    cells = [[c.strip() for c in line.strip("│").split("│")] for line in table.out.splitlines() if line.startswith("│")]
    rows = {row[0]: row[1:] for row in cells}
    # papers, fetched, summarized, draft, approved, rejected, failed, corrupt, calls, tokens, cost
    assert rows["total"] == ["2", "0", "2", "2", "0", "0", "0", "0", "3", "3,000", "$0.7500"]
    assert "total" not in cli("status", "ICML2026").out  # one venue: its row is the total


def test_usage_errors_exit_2_with_one_line(cli: RunCli) -> None:
    for args, message in [
        (("status", "NOPE"), "unknown venue 'NOPE'"),
        (("export", "NOPE"), "unknown venue 'NOPE'"),
        (("regen", "ICML2026"), "expected VENUE/ID"),
        (("review", "show", "ICML2026/../../x"), "not a valid paper id"),
        (("review", "approve", "ICML2026/a", "--all"), "with --all give one VENUE"),
        (("import", "missing.jsonl"), "file not found"),
        (("fetch",), "Missing argument"),
        (("frobnicate",), "No such command"),
    ]:
        result = cli(*args)
        assert result.code == 2, (args, result.err)
        assert message in result.err, (args, result.err)
        assert "Traceback" not in result.err


def test_debug_env_shows_the_traceback_and_keeps_the_exit_code(cli: RunCli) -> None:
    result = cli("status", "NOPE", env={"SUMMARIZER_DEBUG": "1"})
    assert result.code == 2
    assert "Traceback" in result.err and "error: unknown venue 'NOPE'" in result.err


def test_locked_venue_is_refused(cli: RunCli, project: Project) -> None:
    with locks.venue(project.store(), "ICML2026"):
        result = cli("review", "reject", "ICML2026/x", "--note", "n")
    assert result.code == 2 and "another summarizer command is working on ICML2026" in result.err


def test_version_with_a_short_flag(cli: RunCli) -> None:
    from importlib.metadata import PackageNotFoundError, version

    from summarizer.core.errors import DISTRIBUTION

    try:
        installed = version(DISTRIBUTION)
    except PackageNotFoundError:
        pytest.skip(f"{DISTRIBUTION} is not installed under that name here: `make` installs it again")
    for flag in ("-V", "--version"):
        result = cli(flag)
        assert result.code == 0 and result.out == f"summarizer, version {installed}\n"


def test_shell_completion_as_the_readme_sets_it_up(cli: RunCli) -> None:
    script = cli(env={"_SUMMARIZER_COMPLETE": "bash_source"})
    assert script.code == 0 and "complete -o nosort -F _summarizer_completion summarizer" in script.out
    words = cli(env={"_SUMMARIZER_COMPLETE": "bash_complete", "COMP_WORDS": "summarizer rev", "COMP_CWORD": "1"})
    assert words.code == 0 and words.out.split() == ["plain,review"]
