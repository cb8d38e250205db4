import shutil
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from summarizer import demo
from summarizer.markdown_text import escape_inline


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(REPO / "examples" / "demo", folder, ignore=shutil.ignore_patterns("outputs", "cache"))
    return folder


def test_demo_offers_the_batch_path(demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo.run_demo(demo_copy, batch=True)
    err = capsys.readouterr().err
    assert "summarize ICML2026: 5 sent in a batch, 5 summarized, 0 failed" in err
    assert "summarize ICLR2026: 3 sent in a batch, 3 summarized, 0 failed" in err
    assert "batch batch_0001: completed, 3/3 completed, 0 failed" in err
    docs = demo_copy / "outputs" / "site" / "docs"
    papers = yaml.safe_load((demo_copy / "papers.yaml").read_text("utf-8"))["papers"]
    for paper in papers:
        page = (docs / paper["venue"] / paper["answer"]["field"] / "index.md").read_text("utf-8")
        assert escape_inline(paper["answer"]["summary"]) in page, paper["title"]


def test_demo_builds_a_site_of_the_recorded_summaries(
    demo_copy: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "REPLAY_LATENCY_S", 0.0)
    demo.run_demo(demo_copy)
    out = capsys.readouterr().out
    assert "mkdocs serve -f" in out and "summarizer run ICML2026" in out

    papers = yaml.safe_load((demo_copy / "papers.yaml").read_text("utf-8"))["papers"]
    docs = demo_copy / "outputs" / "site" / "docs"
    for paper in papers:
        page = (docs / paper["venue"] / paper["answer"]["field"] / "index.md").read_text("utf-8")
        assert escape_inline(paper["answer"]["summary"]) in page, paper["title"]
    assert "🔥 **高频主题：** " in (docs / "ICML2026" / "llm_efficiency" / "index.md").read_text("utf-8")

    # A second run costs nothing: every paper is cached, every page unchanged.
    before = {p: p.read_bytes() for p in (demo_copy / "outputs").rglob("*") if p.is_file()}
    demo.run_demo(demo_copy)
    err = capsys.readouterr().err
    assert "0 fetched, 5 cached" in err and "0 pages written" in err
    assert {p: p.read_bytes() for p in (demo_copy / "outputs").rglob("*") if p.is_file()} == before
