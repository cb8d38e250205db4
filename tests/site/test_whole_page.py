"""A paper's page is whole whatever its note leaves open: an unclosed comment, a fence opened inside a
comment, an unclosed fence or raw HTML block cannot take the page's own parts (authors, links, tags,
summary, related papers, the way back) with it; the reviewer is told what was mended."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_build import sample_store
from test_mkdocs import mkdocs_build
from test_paper_notes import NOTE, PAPER, with_note

from conftest import Project
from summarizer.core.markdown_containment import contained
from summarizer.site.build import build_site

OPEN_ENDED = {
    "comment-at-line-start": "## 研究背景与动机\n背景。\n\n<!-- 这段注释没有结束\n\n更多内容。\n",
    "comment-inline": "## 研究背景与动机\n背景 <!-- 这段注释没有结束\n\n更多内容。\n",
    "fence-in-comment": "## 研究背景与动机\n背景。\n\n<!--\n```python\n-->\n\n更多内容。\n",
    "open-fence": "## 研究背景与动机\n背景。\n\n```python\nprint(1)\n",
    "open-block": "## 研究背景与动机\n背景。\n\n<div>\n没有结束的块。\n",
}


@pytest.mark.parametrize("case", list(OPEN_ENDED))
def test_a_note_left_open_cannot_swallow_the_rest_of_its_page(project: Project, case: str) -> None:
    settings, store = sample_store(project)
    record = with_note(store, *PAPER, OPEN_ENDED[case] + "\n" + NOTE.split("\n", 3)[3])
    record.authors = ["Ada Lovelace"]
    store.save(record)
    root = Path(build_site(settings, store, None, drafts=False).subject)
    assert mkdocs_build(root).returncode == 0

    page = (root / "site" / PAPER[0] / "llm_reasoning" / PAPER[1] / "index.html").read_text("utf-8")
    content = page.split("<article", 1)[1].split("</article>", 1)[0]
    for part in ("Ada Lovelace", "arxiv.org/abs/", "相关论文", "← 返回", "方法详解", "背景"):
        assert part in content, (case, part)


@pytest.mark.parametrize("case", ["comment-at-line-start", "comment-inline", "open-block"])
def test_what_was_mended_is_said_for_the_reviewer(case: str) -> None:
    mended, said = contained(OPEN_ENDED[case])
    assert said and mended != OPEN_ENDED[case], case


@pytest.mark.parametrize("case", ["fence-in-comment", "open-fence"])
def test_what_cannot_reach_past_the_note_is_left_as_written(case: str) -> None:
    assert contained(OPEN_ENDED[case]) == (OPEN_ENDED[case], [])  # a fence needs its closing line to be one


def test_a_note_that_closes_what_it_opens_is_left_as_written() -> None:
    whole = (
        "## 方法\n<!-- 注释 -->\n\n```python\nprint(1)\n```\n\n<details>\n<summary>更多</summary>\n内容\n</details>\n"
    )
    assert contained(whole) == (whole, [])
