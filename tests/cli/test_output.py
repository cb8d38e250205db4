"""-v shows diagnostics from the summarizer.* loggers on stderr, -q only errors; the default is as before."""

import logging
from collections.abc import Iterator

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.apps.cli import console
from summarizer.core.records import Record


@pytest.fixture(autouse=True)
def _normal_afterwards() -> Iterator[None]:
    yield
    console.set_verbosity(console.NORMAL)


def exported_project(project: Project) -> None:
    record = Record(venue="ICML2026", id="2601.00001", title="T")
    record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
    project.store().save(record)


def test_default_shows_info_lines_but_no_diagnostics(cli: RunCli, project: Project) -> None:
    exported_project(project)
    result = cli("review", "reject", "ICML2026/2601.00001", "--note", "off topic")
    assert result.code == 0 and "rejected ICML2026/2601.00001" in result.err
    assert "summarizer.core.locks" not in result.err


def test_verbose_shows_diagnostics_through_logging(cli: RunCli, project: Project) -> None:
    exported_project(project)
    debug = cli("-vv", "review", "reject", "ICML2026/2601.00001", "--note", "off topic")
    assert debug.code == 0 and "summarizer.core.locks: holding" in debug.err and ".ICML2026.lock" in debug.err
    verbose = cli("-v", "review", "reject", "ICML2026/2601.00001", "--note", "off topic")
    assert verbose.code == 0 and "summarizer.core.locks" not in verbose.err  # a DEBUG line: -vv only
    assert logging.getLogger("summarizer.summarize.llm").isEnabledFor(logging.INFO)  # -v: retries and waits (INFO) show


def test_quiet_shows_only_errors(cli: RunCli, project: Project) -> None:
    exported_project(project)
    out = project.root / "out.jsonl"
    quiet = cli("-q", "export", "ICML2026", "-o", str(out))
    assert quiet.code == 0 and quiet.err == "" and out.is_file()
    built = cli("-q", "build")
    assert built.code == 0 and built.err == ""
    assert not logging.getLogger("summarizer.summarize.llm").isEnabledFor(logging.WARNING)
    failed = cli("-q", "export", "NOPE")
    assert failed.code == 2 and "error: unknown venue 'NOPE'" in failed.err


def test_quiet_and_verbose_contradict(cli: RunCli) -> None:
    result = cli("-q", "-v", "status")
    assert result.code == 2 and "-q and -v contradict each other" in result.err
