"""A migrated folder of notes loses nothing and mixes nothing: two files for one paper, a lost TeX backslash,
an ambiguous title, files that are not notes, relative links that lead nowhere or to another note."""

from __future__ import annotations

from pathlib import Path

from conftest import Project, RunCli
from summarizer.core.lost_escapes import repair
from summarizer.core.note_markdown import render
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.review.note_files import read_note


def note(title: str, arxiv: str | None, summary: str, body: str = "方法的细节写在这里。", keywords: str = "") -> str:
    lines = [f"# {title}", "", "**会议**: ICML 2026  "]
    if arxiv:
        lines.append(f"**arXiv**: [{arxiv}](https://arxiv.org/abs/{arxiv})  ")
    if keywords:
        lines.append(f"**关键词**: {keywords}")
    return "\n".join([*lines, "", "## 一句话总结", summary, "", "## 研究背景与动机", body, ""])


def paper(store: Store, paper_id: str, title: str, field: str = "llm_reasoning", arxiv: str | None = None) -> None:
    record = Record(venue="ICML2026", id=paper_id, title=title, arxiv_id=arxiv, authors=["Ada Lovelace"])
    record.summaries.add_version(
        "本文提出一种新方法，在多个基准上显著优于已有方法，并给出了理论分析与消融实验。", ["推理"], field, "import"
    )
    record.summaries.approve()
    store.save(record)


def write(folder: Path, rel: str, text: str) -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


FACECOT_TITLE = "FaceCoT: Chain-of-Thought Reasoning for Face Anti-Spoofing"
HARNESS_TITLE = "Harnessing Chain-of-Thought Reasoning in Multimodal Models"
FACECOT = note(FACECOT_TITLE, "2506.01783", "FaceCoT 的一句话总结，讲人脸防伪。",
               "FaceCoT 的正文：人脸防伪的思维链数据集。", "人脸防伪, 思维链, 多模态")  # fmt: skip
HARNESS = note(HARNESS_TITLE, "2506.01783", "另一篇笔记的一句话总结，讲多模态推理。",
               "Harnessing 的正文：多模态模型中的推理。", "多模态推理, 思维链")  # fmt: skip


def test_two_files_for_one_paper_never_mix_the_other_is_a_note_of_its_own(project: Project, cli: RunCli) -> None:
    store = project.store()
    paper(store, "2506.01783", "FaceCoT: Chain-of-Thought Reasoning for Face Anti-Spoofing", arxiv="2506.01783")
    folder = project.root / "notes"
    write(folder, "ICML2026/llm_reasoning/facecot_face_anti_spoofing.md", FACECOT)
    write(folder, "ICML2026/image_generation/harnessing_cot_reasoning.md", HARNESS)

    result = cli("import", str(folder))

    assert result.code == 0, result.err
    assert "2 notes imported" in result.err
    said = " ".join(result.err.split())
    assert "llm_reasoning/facecot_face_anti_spoofing.md is its note" in said
    assert "image_generation/harnessing_cot_reasoning.md is a note of its own, " in said
    assert "ICML2026/image_generation/harnessing_cot_reasoning" in said
    paper_record = store.load("ICML2026", "2506.01783")
    (version,) = paper_record.notes.versions  # the paper's page: FaceCoT's header, FaceCoT's body, nothing else
    assert (
        version.header is not None and version.header.startswith("# FaceCoT") and "人脸防伪的思维链" in version.markdown
    )
    other = store.load("ICML2026", "harnessing_cot_reasoning")
    assert other.title == "Harnessing Chain-of-Thought Reasoning in Multimodal Models" and other.arxiv_id is None
    assert other.summaries.approved is not None and other.summaries.approved.field == "image_generation"
    assert other.summaries.approved.summary == "另一篇笔记的一句话总结，讲多模态推理。"
    assert other.summaries.approved.tags == ["多模态推理", "思维链"] and other.url is None
    (own,) = other.notes.versions
    assert (own.header or "") + own.markdown == HARNESS  # kept whole, as written

    before = {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")}
    again = cli("import", str(folder))
    assert again.code == 0 and "0 notes imported, 2 unchanged" in again.err
    assert {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")} == before


def test_the_file_that_is_the_papers_note_is_the_one_with_its_title_whatever_the_path_order(
    project: Project, cli: RunCli
) -> None:
    store = project.store()
    paper(store, "2506.01783", "Harnessing Chain-of-Thought Reasoning in Multimodal Models", arxiv="2506.01783")
    folder = project.root / "notes"
    write(folder, "ICML2026/llm_reasoning/a_facecot.md", FACECOT)
    write(folder, "ICML2026/llm_reasoning/b_harnessing.md", HARNESS)

    assert cli("import", str(folder)).code == 0
    (version,) = store.load("ICML2026", "2506.01783").notes.versions
    assert version.header is not None and version.header.startswith("# Harnessing")
    assert store.load("ICML2026", "a_facecot").title.startswith("FaceCoT")


def test_a_lost_tex_backslash_is_restored_other_control_characters_removed_with_a_warning(
    project: Project, cli: RunCli
) -> None:
    store = project.store()
    paper(store, "2601.00001", "Breaking the Correlation Plateau", arxiv="2601.00001")
    broken = note("Breaking the Correlation Plateau", "2601.00001", "系数 $\x07lpha$ 与 $\x08eta$ 的关系\x01。",
                  "当 $x \x07pprox \x0crac{1}{2}$ 且 $a \times b$ 时成立。\n\n\tindented\tcode stays")  # fmt: skip
    write(project.root / "notes", "ICML2026/llm_reasoning/breaking.md", broken)

    result = cli("import", str(project.root / "notes"))

    assert result.code == 0, result.err
    (version,) = store.load("ICML2026", "2601.00001").notes.versions
    whole = (version.header or "") + version.markdown
    assert "$\\alpha$ 与 $\\beta$ 的关系。" in whole and "$x \\approx \\frac{1}{2}$ 且 $a \\times b$" in whole
    assert "\n\tindented\tcode stays" in whole  # a tab that is indentation or text stays a tab
    assert "restored 5 TeX backslash(es) lost as control characters (\\alpha, \\beta, \\approx, \\frac, \\times)" in (
        version.warnings
    )
    assert "removed 1 control character(s)" in version.warnings
    assert "restored 5 TeX backslash(es)" in result.err


def test_repair_leaves_text_without_control_characters_alone(tmp_path: Path) -> None:
    text = "正常的笔记 $\\alpha$\n\t缩进\n"
    assert repair(text) == (text, [])
    lost_tab = write(tmp_path, "a.md", note("T", "2601.00001", "总结：$a \times b$。"))  # only a tab, lost from \times
    read = read_note(lost_tab)
    assert "$a \\times b$" in read.note.markdown and read.note.warnings[0].startswith("restored 1 TeX backslash")
    assert repair("a\x1b[31mred\u202e") == ("a[31mred", ["removed 2 control character(s)"])


def test_a_title_two_records_share_is_ambiguous_naming_both_unless_the_folder_names_one_field(
    project: Project, cli: RunCli
) -> None:
    store = project.store()
    paper(store, "toolhop-a", "ToolHop: Multi-Hop Tool Use", field="llm_reasoning")
    paper(store, "toolhop-b", "ToolHop: Multi-Hop Tool Use", field="llm_pretraining")
    folder = project.root / "notes"
    write(
        folder,
        "ICML2026/image_generation/toolhop_multi_hop_tool_use.md",
        note("ToolHop: Multi-Hop Tool Use", None, "总结。"),
    )

    result = cli("import", str(folder))

    assert result.code == 1
    said = " ".join(result.err.split())
    assert (
        "toolhop_multi_hop_tool_use.md: ambiguous: its title is the title of ICML2026/toolhop-a and ICML2026/toolhop-b"
        in said
    )

    (folder / "ICML2026/image_generation/toolhop_multi_hop_tool_use.md").unlink()
    write(folder, "ICML2026/llm_pretraining/toolhop.md", note("ToolHop: Multi-Hop Tool Use", None, "总结。"))
    assert cli("import", str(folder)).code == 0
    assert store.load("ICML2026", "toolhop-b").notes.versions and not store.load("ICML2026", "toolhop-a").notes.versions


def test_files_that_are_not_notes_are_skipped_not_failed(project: Project, cli: RunCli) -> None:
    store = project.store()
    paper(store, "2601.00001", "A Paper", arxiv="2601.00001")
    folder = project.root / "notes"
    write(folder, "ICML2026/llm_reasoning/a_paper.md", note("A Paper", "2601.00001", "总结。"))
    write(folder, "ICML2026/index.md", "# ICML 2026\n\n- [A Paper](llm_reasoning/a_paper.md)\n")
    write(folder, "TODO.md", "# TODO\n\n## 待读\n- 还没读的论文\n")

    result = cli("import", str(folder))

    assert result.code == 0, result.err
    assert "1 notes imported, 0 unchanged, 2 skipped (not notes)" in result.err
    assert "skipped ICML2026/index.md: not a note" in result.err and "failures" not in result.err


def test_relative_links_lead_to_the_paper_pages_they_mean_or_become_text(project: Project, cli: RunCli) -> None:
    store = project.store()
    paper(store, "2601.00001", "AdaGen", arxiv="2601.00001")
    paper(store, "2601.00002", "DPCache", field="image_generation", arxiv="2601.00002")
    paper(store, "2601.00003", "Titled Elsewhere", arxiv="2601.00003")
    folder = project.root / "notes"
    body = (
        "与 [DPCache](../image_generation/dpcache_denoising.md#方法) 对比，参见 [想法](../ideas/idea_1.md)、"
        "[Titled Elsewhere](missing_file.md)、[其它](2601.00002.md) 与 [网页](https://example.org/x)。\n\n"
        "`[code](kept.md)` 中的链接是代码。"
    )
    write(folder, "ICML2026/llm_reasoning/adagen.md", note("AdaGen", "2601.00001", "总结。", body))
    write(folder, "ICML2026/image_generation/dpcache_denoising.md", note("DPCache", "2601.00002", "总结。"))

    result = cli("import", str(folder))

    assert result.code == 0, result.err
    assert "4 links rewritten" in result.err
    said = " ".join(result.err.split())
    assert "adagen.md: link ../ideas/idea_1.md → text (no such page on this site)" in said
    assert "adagen.md: link ../image_generation/dpcache_denoising.md#方法 → the page of ICML2026/2601.00002" in said
    (version,) = store.load("ICML2026", "2601.00001").notes.versions
    assert "与 [DPCache](../../ICML2026/image_generation/2601.00002.md) 对比，参见 想法、" in version.markdown
    assert "[Titled Elsewhere](../../ICML2026/llm_reasoning/2601.00003.md)" in version.markdown  # by its title
    assert "[其它](../../ICML2026/image_generation/2601.00002.md)" in version.markdown  # by its arXiv id
    assert "[网页](https://example.org/x)" in version.markdown and "`[code](kept.md)`" in version.markdown
    assert "4 relative link(s) rewritten to paper pages or made text" in version.warnings
    page = render(project.settings(), store.load("ICML2026", "2601.00001"), version)
    assert "idea_1" not in page
