"""A migrated site loses nothing and mixes nothing: the reference's real notes (../shared) and notes written here
for each hard case, imported as a migration does (records from the notes, then the notes folder), approved and
built: every note's body on exactly one page, under its own header; ``mkdocs build --strict`` green; in Chromium
no page of it, nor of the demo, raises a script error, and code blocks have Material's copy button."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mkdocs import _reference_line, mkdocs_build

from browser import chromium, new_page, serve_directory
from conftest import REAL_FIXTURES, Project
from demo_folder import run_demo_in
from summarizer.core.config_file import load_settings
from summarizer.core.store import Store
from summarizer.review.note_files import split_note

pytestmark = pytest.mark.slow  # mkdocs build of two sites, real Chromium over every page

SLOW = 30_000  # ms: a generous bound on a shared machine, never a timing claim
# Material's copy button on a code block (9.7+: a button in the block's nav; before: .md-clipboard).
COPY_BUTTON = "pre [data-md-type=copy], pre .md-clipboard"
SAFE_LINE = re.compile(r"^[^<>\[\]{}$\\|*&`#:\x00-\x1f]{15,}$")


def _note(title: str, arxiv: str | None, summary: str, body: str, keywords: str = "测试") -> str:
    arxiv_line = f"**arXiv**: [{arxiv}](https://arxiv.org/abs/{arxiv})  \n" if arxiv else ""
    return (
        f"# {title}\n\n**会议**: 测试  \n{arxiv_line}**关键词**: {keywords}\n\n"
        f"## 一句话总结\n{summary}\n\n## 研究背景与动机\n{body}\n"
    )


# The hard cases, each a file of the migrated folder (path: text); the records they mean are made below.
CASES = {
    # Two files, one arXiv id, two different write-ups (the reference showed each as its own page).
    "CVPR2026/llm_reasoning/facecot_face_anti_spoofing.md": _note(
        "FaceCoT: Chain-of-Thought for Face Anti-Spoofing", "2506.01783", "FaceCoT 的总结：人脸防伪的思维链数据集。",
        "FaceCoT 正文独有的一句：我们构建了人脸防伪思维链数据集。", "人脸防伪, 思维链"),
    "CVPR2026/llm_reasoning/harnessing_cot_reasoning.md": _note(
        "Harnessing Chain-of-Thought Reasoning in MLLMs", "2506.01783", "另一篇的总结：多模态大模型中的思维链推理。",
        "Harnessing 正文独有的一句：多模态大模型借助推理提升判别能力。", "多模态推理"),
    # A lost backslash: BEL for \a, BS for \b.
    "NeurIPS2025/ai_safety/beyond_last_click.md": _note(
        "Beyond Last-Click Attribution", "2509.00001", "丢了反斜杠的笔记：系数 $\x07lpha$ 与 $\x08eta$ 的估计。",
        "这条正文独有的一句用来确认只发布一次。\n\n```python\nprint('copy me')\n```"),
    # A title two records share: the folder names the field of one of them.
    "ACL2025/llm_agent/toolhop_multi_hop_tool_use.md": _note(
        "ToolHop: A Query-Driven Benchmark for Multi-Hop Tool Use", None, "没有 arXiv 行的笔记，按标题与方向找到论文。",
        "ToolHop 正文独有的一句：多跳工具调用的评测。"),
    # Relative links: to a page neither site has, and to another imported note.
    "ECCV2024/image_generation/adagen_adaptive_generation.md": _note(
        "AdaGen: Adaptive Generation", "2409.00001", "自适应生成的总结，链接到另一篇笔记。",
        "AdaGen 正文独有的一句在这里。参见 [DPCache](dpcache_denoising_cache.md) 与 [笔记想法](../ideas/idea_7.md)。"),
    "ECCV2024/image_generation/dpcache_denoising_cache.md": _note(
        "DPCache: Denoising Path Cache", "2409.00002", "去噪路径缓存的总结，被另一篇笔记链接。",
        "DPCache 正文独有的一句在这里。"),
    # Files that are not notes.
    "CVPR2026/index.md": "# CVPR 2026\n\n- [FaceCoT](llm_reasoning/facecot_face_anti_spoofing.md)\n",
    "TODO.md": "# TODO\n\n## 待读\n- 还没读完的论文\n",
}  # fmt: skip
NOT_NOTES = {"CVPR2026/index.md", "TODO.md"}
TOOLHOP_TWIN = {"venue": "ACL2025", "title": "ToolHop: A Query-Driven Benchmark for Multi-Hop Tool Use",
                "summary": "同名的另一条记录，归在另一个方向。", "tags": ["工具"], "field": "llm_nlp",
                "status": "approved", "arxiv_id": "2501.00002"}  # fmt: skip


def _lines_for(folder: Path) -> list[dict[str, Any]]:
    """A record line per paper, from its first note file (as a migration's converter writes them)."""
    lines, seen = [], set()
    for path in sorted(folder.glob("*/*/*.md")):
        line = _reference_line(path)
        key = (line["venue"], line.get("arxiv_id") or line["title"])
        if key not in seen:
            seen.add(key)
            lines.append(line)
    toolhop = next(line for line in lines if str(line["title"]).startswith("ToolHop"))
    toolhop["arxiv_id"] = "2501.00001"
    return [*lines, TOOLHOP_TWIN]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], str]]:
    """The migrated project, its note files (path: text) and the notes import's stderr, built with mkdocs."""
    if not (REAL_FIXTURES / "notes").is_dir():
        pytest.skip("../shared/fixtures/real/notes is not beside the checkout")
    root = tmp_path_factory.mktemp("migrated")
    folder = root / "notes"
    shutil.copytree(REAL_FIXTURES / "notes", folder, ignore=shutil.ignore_patterns("*.yml"))
    for rel, text in CASES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, "utf-8")
    project = Project(root, {"paths": {"outputs": "outputs", "cache": "cache"}})
    paths = sorted(folder.glob("*/*/*.md"))
    venues = sorted({p.parent.parent.name for p in paths})
    fields = sorted({p.parent.name for p in paths} | {"llm_nlp"})
    project.write_config(venues=[{"id": v} for v in venues], fields=[{"id": f, "name": f} for f in fields])
    (root / "records.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in _lines_for(folder)))
    run = _runner(root)
    run("import", "records.jsonl", "--skip-invalid", codes=(0, 1))  # the second line of a paper: its note's own
    imported = run("import", "notes")
    for venue in venues:
        run("review", "notes", "approve", venue, "--all", codes=(0, 1))
    run("build")
    result = mkdocs_build(root / "outputs" / "site")
    assert result.returncode == 0 and "WARNING" not in result.stderr, result.stderr[-3000:]
    notes = {p.relative_to(folder).as_posix(): p.read_text("utf-8") for p in folder.rglob("*.md")}
    yield root, notes, imported


def _runner(root: Path) -> Any:
    def run(*args: str, codes: tuple[int, ...] = (0,)) -> str:
        done = subprocess.run([sys.executable, "-m", "summarizer", "--config", str(root / "config.yaml"), *args],
                              cwd=root, capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode in codes, (args, done.stderr[-3000:])
        return done.stderr

    return run


def _own_line(text: str) -> str:
    """A line of the note's body that only it holds and that no markup changes on the page."""
    _, body = split_note(text)
    lines = [line.strip() for line in body.split("\n") if SAFE_LINE.match(line.strip())]
    return max(lines, key=len)


def test_every_note_body_is_published_exactly_once_under_its_own_header(
    migrated: tuple[Path, dict[str, str], str],
) -> None:
    root, notes, imported = migrated
    said = " ".join(imported.split())
    assert "2 skipped (not notes)" in said and "failures" not in said
    assert "43 notes imported" in said and "2 links rewritten" in said
    store = Store(load_settings(root / "config.yaml").outputs_dir)
    (repaired,) = store.load("NeurIPS2025", "2509.00001").notes.versions
    assert "$\\alpha$ 与 $\\beta$" in repaired.markdown
    assert any(w.startswith("restored 2 TeX backslash(es)") for w in repaired.warnings)
    pages = {p: p.read_text("utf-8") for p in (root / "outputs/site/docs").glob("*/*/*.md") if p.name != "index.md"}
    for rel, text in notes.items():
        if rel in NOT_NOTES:
            assert not any(text.split("\n")[0] in page for page in pages.values())
            continue
        line = _own_line(text)
        holding = [p for p, page in pages.items() if line in page]
        assert len(holding) == 1, (rel, line, holding)
        page = pages[holding[0]]
        title = re.search(r"^# (.+)$", text, re.M).group(1)  # type: ignore[union-attr]
        assert f"\n# {title}\n" in page, rel  # its own header's title
        meta_title = page.split("\ntitle: ", 1)[1].split("\n", 1)[0]
        assert title[:20] in meta_title, (rel, meta_title)
        summary = re.search(r"^## 一句话总结\n+(.+)$", text, re.M).group(1)  # type: ignore[union-attr]
        assert summary.strip()[:12] in html.unescape(page.split("\ndescription: ", 1)[1].split("\n", 1)[0]), rel
    adagen = next(page for p, page in pages.items() if "AdaGen 正文独有" in page)
    assert "[DPCache](../../ECCV2024/image_generation/2409.00002.md)" in adagen and "参见" in adagen
    assert "idea_7" not in adagen and "笔记想法" in adagen


def _all_pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "404.html")


def _page_errors(site: Path, paths: list[str], check: Any = None) -> list[str]:
    errors: list[str] = []
    with serve_directory(site) as base, chromium() as browser, new_page(browser) as page:
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
        for path in paths:
            page.goto(f"{base}/{path}", wait_until="networkidle", timeout=SLOW)
            if check is not None:
                check(page, path)
    return errors


def test_no_page_of_the_migrated_site_raises_a_script_error_and_code_has_a_copy_button(
    migrated: tuple[Path, dict[str, str], str],
) -> None:
    site = migrated[0] / "outputs" / "site" / "site"
    copy_buttons: dict[str, int] = {}

    def check(page: Any, path: str) -> None:
        if page.locator("pre > code").count():
            page.wait_for_selector(COPY_BUTTON, state="attached", timeout=SLOW)
            copy_buttons[path] = page.locator(COPY_BUTTON).count()

    paths = _all_pages(site)
    assert len(paths) > 50
    assert _page_errors(site, paths, check) == []
    assert copy_buttons and all(n >= 1 for n in copy_buttons.values()), copy_buttons


def test_no_page_of_the_demo_site_raises_a_script_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = run_demo_in(tmp_path, monkeypatch, capsys)
    site = folder / "outputs" / "site"
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(site / "mkdocs.yml")],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    paths = _all_pages(site / "site")
    assert len(paths) > 10
    assert _page_errors(site / "site", paths) == []
