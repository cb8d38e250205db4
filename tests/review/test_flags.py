"""The warnings that find bad summaries, and where an editor sees them (`review list`)."""

from __future__ import annotations

import pytest

from conftest import Project, RunCli
from summarizer.apps.desk.queue import WarningCache, load_rows
from summarizer.core import flags
from summarizer.core.flags import (
    PaperFacts,
    current_warnings,
    invented_numbers,
    near_duplicates,
    paper_warnings,
    suspicion_score,
    warning_kind,
)
from summarizer.core.records import FetchState, Record
from summarizer.testing.fake_openai import FakeOpenAI

PAPER = (
    "Sparse Attention at Scale. We reduce latency by 2.1x on LLaMA-7B and reach 86.7% accuracy on LongBench, "
    "1,024 tokens per block, compared with GPT-4 and Mixtral-8x7B."
)
GOOD = (
    "本文提出稀疏注意力，在 LLaMA-7B 上把延迟降低 \\(2.1\\times\\)，LongBench 准确率 86.70%，"
    "每块 1024 个 token，与 GPT-4 相比更省显存，适合长上下文推理与在线服务的部署场景。"
)


def test_numbers_absent_from_the_paper_are_named() -> None:
    facts = PaperFacts(PAPER)
    summary = "本文在 LLaMA-7B 上加速 56.7x，准确率 86.70%，超过 GPT-4o，比 Mixtral-8x7B 快 3 倍。"
    assert invented_numbers(summary, facts) == ["56.7x", "GPT-4o"]


def test_numbers_are_normalised_before_comparing() -> None:
    # 86.70% = 86.7%, 1024 = 1,024, 2.1 inside TeX = 2.1x, GPT-4 as written, small integers skipped.
    assert invented_numbers(GOOD + " 共 3 个基准。", PaperFacts(PAPER)) == []
    assert invented_numbers("准确率 87.7%", PaperFacts(PAPER)) == ["87.7%"]


def test_a_summary_true_to_its_paper_gets_no_suspicion(project: Project) -> None:
    assert paper_warnings(project.settings(), GOOD, ["LLM"], "llm_reasoning", PAPER + " 大模型推理") == []


def test_each_check_says_what_it_found(project: Project) -> None:
    settings = project.settings()
    no_number = (
        "本文提出稀疏注意力，在长上下文上显著降低延迟并保持准确率，方法简单，易于在现有推理框架中实现与部署，"
        "值得关注和复现，适合工程团队参考，作者也讨论了它在更长输入上的局限与未来的改进方向。"
    )
    warnings = paper_warnings(settings, no_number, ["LLM", "稀疏性"], "image_generation", PAPER)
    assert "no number, though the paper reports results" in warnings
    assert "field image_generation: its description shares no words with the paper" in warnings
    assert "tags outside the vocabulary: 稀疏性" in warnings
    assert [warning_kind(w) for w in warnings] == ["no-number", "field", "tags"]
    assert paper_warnings(settings, "太短了，只有几个字的摘要内容。", ["LLM"], "llm_reasoning", None) == [
        "length 13 Chinese characters, 15 in all: outside the house range (43-101 Chinese, 73-202 in all)"
    ]


def test_near_duplicates_are_found_and_different_summaries_are_not() -> None:
    other = "本文把扩散模型的多步采样蒸馏为两步生成器，用一致性损失约束中间状态，在 ImageNet 上 FID 与原模型相当。"
    found = near_duplicates({"V/a": GOOD, "V/b": GOOD.replace("本文", "该文"), "V/c": other})
    assert set(found) == {"V/a", "V/b"}
    assert found["V/a"].startswith("nearly identical to V/b's summary")
    too_long = "length 130 Chinese characters, 260 in all: outside the house range"
    assert suspicion_score(["numbers not in the paper text: 56.7x"]) > suspicion_score([too_long])


def test_summarize_stores_the_warning_and_review_list_shows_it(project: Project, cli: RunCli) -> None:
    """The stand-in model's summary claims "4.2 个点", which this abstract does not have."""
    with FakeOpenAI() as provider:
        project.write_config(llm={**project.config["llm"], "base_url": provider.base_url, "api_key_env": "K"})
        store = project.store()
        for n, title in enumerate(["Sparse attention at scale", "Sparse attention at scale, revisited"]):
            store.save(
                Record(
                    venue="ICML2026",
                    id=f"2601.0000{n}",
                    title=title,
                    abstract="We cut the cost of attention to O(n log n) and halve training cost on benchmarks.",
                    fetch=FetchState(abstract_only=True),
                )
            )
        assert cli("summarize", "ICML2026", env={"K": "sk-test"}).code == 0
    versions = [r.summaries.current for r in store.records("ICML2026")]
    # Abstract-only papers: the warning says what it compared with.
    numbers = "numbers not in the abstract (the paper's text was not read): 4.2"
    assert all(v is not None and numbers in v.warnings for v in versions)
    # The stand-in writes nearly the same summary for both: the second one written is flagged.
    twins = [w for v in versions if v is not None for w in v.warnings if w.startswith("nearly identical to ICML2026/")]
    assert len(twins) == 1
    assert all(v is not None and v.checked for v in versions)
    listed = cli("review", "list", "ICML2026")
    assert listed.code == 0
    assert "numbers not in the abstract (the paper's text was not read): 4.2" in listed.out
    assert "nearly identical to" in listed.out and "'s summary (" in listed.out  # the table folds long cells


def test_review_list_and_show_flag_a_version_stored_without_the_check(project: Project, cli: RunCli) -> None:
    """An edit, an import or a version older than these checks: the warnings are found when listed."""
    record = Record(
        venue="ICML2026",
        id="2601.00009",
        title="Sparse attention at scale",
        abstract=PAPER,
        fetch=FetchState(abstract_only=True),
    )
    record.summaries.add_version(GOOD.replace("86.70%", "91.3%"), ["LLM"], "llm_reasoning", "human")
    project.store().save(record)
    listed = cli("review", "list", "ICML2026", "--status", "draft")
    assert listed.code == 0 and "numbers not in the abstract (the paper's text was not read): 91.3%" in listed.out
    shown = cli("review", "show", "ICML2026/2601.00009")
    assert shown.code == 0 and "numbers not in the abstract (the paper's text was not read): 91.3%" in shown.out


def test_review_list_does_not_read_the_paper_again_for_a_checked_version(
    project: Project, cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venue of 5,000: the warnings found when the version was stored are shown as stored."""
    record = Record(venue="ICML2026", id="2601.00001", title="T", abstract="We halve the cost.")
    record.summaries.add_version(
        GOOD, ["LLM"], "llm_pretraining", "llm", warnings=["numbers not in the paper text: 9.9"], checked=True
    )
    project.store().save(record)

    def read_again(*_args: object) -> str:
        raise AssertionError("the paper was read again")

    monkeypatch.setattr(flags, "read_paper_for_checks", read_again)
    listed = cli("review", "list", "ICML2026")
    assert listed.code == 0, listed.err
    assert "numbers not in the paper text: 9.9" in listed.out


def test_a_length_warning_stored_under_an_earlier_house_range_is_found_anew(project: Project) -> None:
    """`review list` and the desk judge the length against today's house range (core/limits.py), not the one
    a version was stored under: a summary of 150 Chinese characters was fine at 90-360 and is long now."""
    settings = project.settings()
    store = project.store()
    long_summary = "本文提出一种新的稀疏注意力方法，" * 10
    record = Record(venue="ICML2026", id="2601.00042", title="Sparse", arxiv_id="2601.00042", abstract="a")
    record.summaries.add_version(
        long_summary, ["LLM"], "llm_reasoning", "llm", warnings=["length 160 outside 90-360"], checked=True
    )
    record.summaries.add_version(long_summary, ["LLM"], "llm_reasoning", "llm", warnings=[], checked=True)
    store.save(record)
    now = "length 150 Chinese characters, 160 in all: outside the house range (43-101 Chinese, 73-202 in all)"
    for version in record.summaries.versions:
        assert current_warnings(settings, record, version) == [now]
    rows = load_rows(settings, store, ["ICML2026"], WarningCache(settings))
    assert [w for w in rows[0].warnings if warning_kind(w) == "length"] == [now]


def _imported_record(n: int, summary: str, *, abstract: str) -> Record:
    """An imported draft that was never fetched: an arXiv id and an abstract, no text, not abstract-only."""
    record = Record(venue="ICML2026", id=f"2601.0010{n}", title=f"Sparse attention {n}", arxiv_id=f"2601.0010{n}")
    record.abstract = abstract
    record.summaries.add_version(summary, ["LLM"], "llm_reasoning", "import")
    return record


def test_a_draft_never_fetched_is_checked_against_its_abstract_and_says_so(project: Project, cli: RunCli) -> None:
    abstract = "We study sparse attention. Our method reaches 64.0% accuracy on LongBench with LLaMA-7B."
    summary = (
        "本文提出一种稀疏注意力，把 attention 分解为局部窗口与全局摘要两部分，在 LongBench 上让 LLaMA-7B 的"
        "准确率达到 71.3%，同时显著降低长上下文推理的显存与延迟，适合部署。"
    )
    project.store().save(_imported_record(1, summary, abstract=abstract))
    listed = cli("review", "list", "ICML2026")
    assert listed.code == 0, listed.err
    assert listed.out.startswith("ICML2026: 1 paper\n")
    assert "numbers not in the abstract (the paper's text was not read): 71.3%" in listed.out
    assert warning_kind("numbers not in the abstract (the paper's text was not read): 71.3%") == "numbers"
    shown = cli("review", "show", "ICML2026/2601.00101")
    assert "numbers not in the abstract (the paper's text was not read): 71.3%" in shown.out


def test_review_list_flags_exact_duplicates_it_did_not_write(project: Project, cli: RunCli) -> None:
    """Two imported drafts with one summary: no stored warning, found when listed (as the desk does)."""
    store = project.store()
    for n in (1, 2):
        store.save(_imported_record(n, GOOD, abstract=PAPER))
    listed = cli("review", "list", "ICML2026")
    assert listed.code == 0, listed.err
    assert listed.out.count("nearly identical to ICML2026/") == 2
