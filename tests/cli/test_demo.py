import shutil
from pathlib import Path

import pytest
import yaml

from conftest import REPO, RunCli
from summarizer.apps.demo import run as demo
from summarizer.site.markdown_text import escape_inline

pytestmark = pytest.mark.slow  # the whole demo, run in a folder: `make test-all`


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    shutil.copytree(REPO / "examples" / "demo", folder, ignore=shutil.ignore_patterns("outputs", "cache"))
    return folder


def test_demo_offers_the_batch_path(demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo.run_demo(demo_copy, batch=True)
    err = capsys.readouterr().err
    assert "summarize ICML2026: 7 sent in a batch, 7 summarized, 0 failed" in err
    assert "summarize ICLR2026: 4 sent in a batch, 4 summarized, 0 failed" in err
    assert "batch batch_0001: completed, 4/4 completed, 0 failed" in err
    docs = demo_copy / "outputs" / "site" / "docs"
    papers = yaml.safe_load((demo_copy / "papers.yaml").read_text("utf-8"))["papers"]
    for paper in papers:
        page = (docs / paper["venue"] / paper["answer"]["field"] / "index.md").read_text("utf-8")
        published = escape_inline(paper["answer"]["summary"]) in page
        assert published != bool(paper.get("left_for_review")), paper["title"]


def test_demo_builds_a_site_of_the_recorded_summaries(
    demo_copy: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "REPLAY_LATENCY_S", 0.0)
    demo.run_demo(demo_copy)
    out = capsys.readouterr().out
    assert "mkdocs serve -f" in out and "review serve" in out

    papers = yaml.safe_load((demo_copy / "papers.yaml").read_text("utf-8"))["papers"]
    docs = demo_copy / "outputs" / "site" / "docs"
    for paper in papers:
        page = (docs / paper["venue"] / paper["answer"]["field"] / "index.md").read_text("utf-8")
        # The drafts left for the editor are not published until approved.
        published = escape_inline(paper["answer"]["summary"]) in page
        assert published != bool(paper.get("left_for_review")), paper["title"]
    assert "🔥 **高频主题：** " in (docs / "ICML2026" / "llm_reasoning" / "index.md").read_text("utf-8")
    # Each paper it approved has its recorded note on its page, in the reference's order, with a results table;
    # the note it leaves for the editor is not published.
    sections = ["## 一句话总结", "## 研究背景与动机", "## 方法详解", "## 实验关键数据", "## 亮点与洞察", "## 局限性"]
    for paper in (p for p in papers if not p.get("left_for_review")):
        page = (docs / paper["venue"] / paper["answer"]["field"] / f"{paper['arxiv_id']}.md").read_text("utf-8")
        shown = not paper.get("note_left_for_review")
        assert ('class="paper-note"' in page) == shown, paper["title"]
        if shown:
            assert [page.index(s) for s in sections] == sorted(page.index(s) for s in sections), paper["title"]
            assert "\n|---|" in page.split("## 实验关键数据", 1)[1], paper["title"]

    # A second run costs nothing: every paper is cached, every page unchanged.
    before = {p: p.read_bytes() for p in (demo_copy / "outputs").rglob("*") if p.is_file()}
    demo.run_demo(demo_copy)
    err = capsys.readouterr().err
    assert "0 fetched, 7 cached" in err and "0 pages written" in err
    assert {p: p.read_bytes() for p in (demo_copy / "outputs").rglob("*") if p.is_file()} == before


def _listing(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*")}


def test_demo_from_any_folder_writes_its_own_folder_and_says_where(
    cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "REPLAY_LATENCY_S", 0.0)
    shipped = REPO / "examples" / "demo"
    before = _listing(shipped)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    result = cli("demo")

    assert result.code == 0, result.err
    folder = elsewhere / "summarizer-demo"
    assert "writing to summarizer-demo/" in result.err
    assert "demo folder: summarizer-demo/" in result.out
    assert "serve -f summarizer-demo/outputs/site/mkdocs.yml" in result.out
    assert (folder / "config.yaml").read_bytes() == (shipped / "config.yaml").read_bytes()
    assert (folder / "venues" / "ICML2026.txt").is_file()
    assert (folder / "outputs" / "site" / "docs" / "ICML2026" / "llm_efficiency" / "index.md").is_file()
    assert _listing(shipped) == before  # the demo's source files are read, never written to


def test_demo_dir_names_the_folder_and_refuses_one_that_holds_something_else(
    cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "REPLAY_LATENCY_S", 0.0)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")

    refused = cli("demo", "--dir", str(busy))

    assert refused.code == 2
    assert "not empty and holds no demo" in refused.err and "--dir" in refused.err
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]

    target = tmp_path / "new" / "demo-here"
    made = cli("demo", "--dir", str(target))
    assert made.code == 0, made.err
    assert (target / "outputs" / "site" / "mkdocs.yml").is_file()
    again = cli("demo", "--dir", str(target))  # an earlier demo folder is reused as it is
    assert again.code == 0 and "0 fetched, 7 cached" in again.err and "0 pages written" in again.err
