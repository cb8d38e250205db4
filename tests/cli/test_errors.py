"""Settings and records refuse with domain errors; the CLI shows them as one line and exit 2."""

from __future__ import annotations

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core.errors import BadRequest, NothingToApprove, UnknownVenue, UsageError
from summarizer.core.records import Record


def test_unknown_venue_is_a_domain_error(project: Project) -> None:
    with pytest.raises(UnknownVenue, match=r"unknown venue 'NOPE' \(configured: ICML2026, ICLR2026\)") as caught:
        project.settings().venue("NOPE")
    assert isinstance(caught.value, BadRequest) and not isinstance(caught.value, UsageError)


def test_approving_nothing_is_a_domain_error() -> None:
    record = Record(venue="ICML2026", id="2601.00001", title="T")
    with pytest.raises(NothingToApprove, match=r"no summary to approve"):
        record.summaries.approve(what="summary")
    record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
    with pytest.raises(NothingToApprove):
        record.summaries.approve(7)  # no such version
    assert record.summaries.status == "draft"


def test_the_cli_maps_domain_errors_to_exit_2(cli: RunCli, project: Project) -> None:
    unknown = cli("review", "list", "NOPE")
    assert unknown.code == 2 and "error: unknown venue 'NOPE'" in unknown.err
    store = project.store()
    store.save(Record(venue="ICML2026", id="2601.00001", title="T"))
    empty = cli("review", "approve", "ICML2026/2601.00001")
    assert empty.code == 2 and "ICML2026/2601.00001 has no summary to approve" in empty.err
