"""What a person reads to decide is whole: `--help` keeps its blocks as written, and `review show` and
`review list --full` wrap a summary and its warnings at the terminal's width, never cutting them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from rich.cells import cell_len

import summarizer.apps.cli.console as console
from conftest import Project, RunCli
from summarizer.apps.cli.commands import cli as click_group
from summarizer.apps.cli.reference import surface
from summarizer.core.flags import current_warnings

# One run of Chinese with no space to break at, longer than a 60-column cell, then Latin words and numbers.
LONG_SUMMARY = (
    "本文提出一种在每次准备调用工具之前先估计调用工具与直接作答两者预期收益的轻量价值头并用带每次调用成本的强化学习"
    "与策略联合训练让智能体学会在把握足够时跳过工具，在 ToolBench 与 API-Bank 上把 8B agent 的工具调用次数减少 38%，"
    "任务成功率从 58.2% 提升到 71.3%，端到端延迟降低 1.9 倍，并在三个新的工具集上保持同样的收益与稳定的表现。"
)
ROWS = [
    {"venue": "ICML2026", "title": "Knowing When to Call", "arxiv_id": "2612.90010", "summary": LONG_SUMMARY,
     "tags": ["LLM"], "field": "llm_reasoning"},
]  # fmt: skip
pytestmark = pytest.mark.import_rows(ROWS)


@pytest.fixture
def columns(request: pytest.FixtureRequest) -> Iterator[int]:
    """console.out as wide as a terminal of ``request.param`` columns (a pipe is given 160 otherwise)."""
    saved = console.out.width
    console.out.width = request.param
    yield request.param
    console.out.width = saved


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def column(table: str, index: int) -> str:
    """Cell ``index`` of every body line of the first box-drawn table, joined: what that column says."""
    body = table.split("┩", 1)[1].split("└", 1)[0]
    return "".join(line.split("│")[index] for line in body.splitlines() if line.startswith("│"))


@pytest.mark.parametrize("width", [80, 120])
def test_help_keeps_the_overview_one_command_a_line(width: int, cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    result = cli("--help")
    assert result.code == 0 and "\\b" not in result.out
    lines = result.out.splitlines()
    assert max(len(line) for line in lines) <= width
    start = lines.index("  Commands at a glance (one a line; COMMAND --help for each):")
    overview = lines[start + 1 : lines.index("", start)]
    written = surface(click_group).split("\n\n", 1)[0].splitlines()[2:]
    assert [line.strip() for line in overview] == [line.strip() for line in written]
    indent = len(overview[0]) - len(overview[0].lstrip())
    named = {line.split()[0] for line in overview if not line.startswith(" " * (indent + 1))}  # deeper: goes on
    assert named == set(click_group.commands)  # every command, each on a line of its own
    exits = lines[lines.index("  Exit codes: 0 all done; 1 some papers failed (the rest is saved);") + 1]
    assert exits.strip().startswith("2 usage or configuration error.")


@pytest.mark.parametrize("columns", [60], indirect=True)
def test_review_show_wraps_the_summary_and_warnings_whole(columns: int, cli: RunCli, imported: Project) -> None:
    result = cli("review", "show", "ICML2026/2612.90010")
    assert result.code == 0, result.err
    assert max(cell_len(line) for line in result.out.splitlines()) <= columns, result.out
    assert squeezed(column(result.out, 2)) == squeezed(LONG_SUMMARY)
    assert "…" not in result.out
    record = imported.store().load("ICML2026", "2612.90010")
    warnings = current_warnings(imported.settings(), record)
    assert warnings  # the summary is longer than the house range: there is a warning to show
    for warning in warnings:
        assert squeezed(warning) in squeezed(result.out)


@pytest.mark.parametrize("columns", [60], indirect=True)
def test_review_list_full_wraps_each_summary_and_warning_whole(columns: int, cli: RunCli, imported: Project) -> None:
    result = cli("review", "list", "ICML2026", "--full")
    assert result.code == 0, result.err
    assert max(cell_len(line) for line in result.out.splitlines()) <= columns, result.out
    assert squeezed(LONG_SUMMARY) in squeezed(result.out) and "…" not in result.out
    record = imported.store().load("ICML2026", "2612.90010")
    for warning in current_warnings(imported.settings(), record):
        assert squeezed(f"warning: {warning}") in squeezed(result.out)
