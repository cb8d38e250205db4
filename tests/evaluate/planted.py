"""A small venue with known mistakes planted in its recorded answers, and a reference written for it.

Six papers known from their abstracts.  Configuration A's recorded answers hold three planted
mistakes: paper 2 is filed under the wrong field, paper 3 quotes a number its abstract does not have
(37.5%), paper 4 runs far past the house length.  Configuration B answers every paper in the house
style with the reference's field, at a tenth of A's price.  The reference is right about every paper
but paper 5, whose two labels disagree (``field_check``), as a misfiled note's would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conftest import Project
from summarizer.core.records import FetchState, Record
from summarizer.core.store import Store

VENUE = "ICML2026"


@dataclass
class Paper:
    id: str
    title: str
    abstract: str
    field: str  # the reference's
    field_check: str
    keywords: list[str]
    reference: str
    a: dict[str, Any]  # configuration A's recorded answer
    b: dict[str, Any]  # configuration B's


def _answer(summary: str, field: str, tags: list[str]) -> dict[str, Any]:
    return {"summary": summary, "field": field, "tags": tags}


PAPERS = [
    Paper(
        "2601.00101",
        "Token Budgets for Pretraining Data Mixtures",
        "We search data mixtures for LLM pretraining under a fixed token budget. A proxy model of 150M "
        "parameters predicts the best mixture, which lowers the loss of a 7B model by 2.3% at 1T tokens.",
        "llm_pretraining",
        "llm_pretraining",
        ["LLMs", "data mixture", "pretraining"],
        "本文用 150M 参数的代理模型在固定 token 预算下搜索预训练数据的配比，"
        "再把搜到的最优配比直接迁移到 7B 模型上训练，1T token 时的损失因此降低 2.3%。",
        _answer(
            "本文提出在固定 token 预算下搜索预训练数据配比的方法：先用 150M 参数的小代理模型评估候选配比，"
            "再把最优配比迁移到 7B 模型，在 1T token 时把损失降低 2.3%。",
            "llm_pretraining",
            ["LLM"],
        ),
        _answer(
            "本文先用 150M 参数的小代理模型在固定 token 预算下评估各种预训练数据配比，"
            "再把最优配比迁移到 7B 模型，1T token 时损失降低 2.3%。",
            "llm_pretraining",
            ["LLM"],
        ),
    ),
    Paper(
        "2601.00102",
        "Verifier Votes for Math Reasoning",
        "Several verifiers vote on each step of a chain of thought. Majority voting over 5 verifiers raises "
        "GSM8K accuracy of an 8B model from 81.2% to 85.0% without extra training of the policy.",
        "llm_reasoning",
        "llm_reasoning",
        ["推理", "verifier", "CoT"],
        "作者让多个验证器对思维链的每一个推理步骤分别投票，"
        "5 个验证器多数表决即可把 8B 模型的 GSM8K 准确率从 81.2% 提高到 85.0%，而且完全不需要再训练策略模型。",
        _answer(
            "本文提出让 5 个验证器对思维链每一步进行多数表决的推理增强方法，不需要额外训练策略模型，"
            "就把 8B 模型在 GSM8K 上的准确率从 81.2% 提升到 85.0%。",
            "llm_pretraining",  # planted: the wrong field
            ["推理"],
        ),
        _answer(
            "作者让 5 个验证器对思维链中的每一步进行多数表决，不需要再训练策略模型，"
            "就把 8B 模型在 GSM8K 上的准确率从 81.2% 提到 85.0%。",
            "llm_reasoning",
            ["推理"],
        ),
    ),
    Paper(
        "2601.00103",
        "Two-Step Diffusion Distillation",
        "We distill a diffusion model into a two-step generator with a consistency loss on intermediate "
        "states. On ImageNet 256 the student reaches an FID of 2.9, close to the 50-step teacher's 2.6.",
        "image_generation",
        "image_generation",
        ["diffusion models", "distillation"],
        "本文在中间状态上施加一致性损失，把多步扩散模型蒸馏成只需两步的生成器，"
        "学生模型在 ImageNet 256 上的 FID 为 2.9，已经接近 50 步教师模型的 2.6。",
        _answer(
            "本文把扩散模型蒸馏为两步生成器，在中间状态上施加一致性损失，"
            "在 ImageNet 256 上取得 FID 2.9，采样速度提升 37.5%，接近教师模型。",  # planted: 37.5% is invented
            "image_generation",
            ["扩散模型"],
        ),
        _answer(
            "本文用中间状态上的一致性损失把扩散模型蒸馏为两步生成器，"
            "学生在 ImageNet 256 上的 FID 达到 2.9，与 50 步教师模型的 2.6 相差不大。",
            "image_generation",
            ["扩散模型"],
        ),
    ),
    Paper(
        "2601.00104",
        "Long Chains of Thought at Low Cost",
        "Long chains of thought help reasoning but cost many tokens. We prune redundant steps with a learned "
        "scorer, cutting generated tokens by 42% while keeping MATH accuracy within 0.4 points.",
        "llm_reasoning",
        "llm_reasoning",
        ["reasoning", "efficiency"],
        "作者训练一个轻量打分器来评估长思维链中每个步骤的价值，并剪掉其中的冗余步骤，"
        "在生成 token 减少 42% 的同时，MATH 上的准确率只下降 0.4 个点。",
        _answer(
            "本文针对长思维链推理中大量冗余步骤导致生成开销过高的问题，"  # planted: long
            "提出训练一个轻量级的步骤打分器，"
            "在推理过程中逐步评估每个中间步骤对最终答案的贡献，自动识别并剪除重复验证、无效回溯和冗余展开等低价值步骤，"
            "同时保留关键的推导环节，使模型在保持原有推理能力的前提下显著压缩输出长度，"
            "作者还系统分析了不同剪枝阈值、不同打分器规模以及不同难度题目上的表现差异，"
            "实验表明生成 token 减少 42%，而 MATH 准确率仅下降 0.4 个点。",
            "llm_reasoning",
            ["推理"],
        ),
        _answer(
            "作者用学习到的步骤打分器逐一评估并剪除长思维链中的冗余推理步骤，"
            "在生成 token 减少 42% 的情况下，MATH 准确率只下降了 0.4 个点。",
            "llm_reasoning",
            ["推理"],
        ),
    ),
    Paper(
        "2601.00105",
        "Curriculum Tokenizers",
        "We grow a tokenizer's vocabulary during pretraining, from 8K to 64K entries, following the model's "
        "loss. A 1B model trained this way matches a fixed 64K tokenizer with 12% less compute.",
        "llm_pretraining",
        "llm_reasoning",  # the reference's two labels disagree: a misfiled note
        ["tokenizer", "大语言模型"],
        "本文在预训练过程中跟随模型损失的变化，把分词器的词表从 8K 逐步扩大到 64K，"
        "这样训练出的 1B 模型用少 12% 的算力即可追平使用固定 64K 词表的模型。",
        _answer(
            "本文提出在预训练中随模型损失逐步扩大分词器词表的课程策略，词表从 8K 增长到 64K，"
            "1B 模型用少 12% 的算力即可达到固定 64K 词表的效果。",
            "llm_pretraining",
            ["LLM"],
        ),
        _answer(
            "本文在预训练中按模型损失的变化把分词器词表从 8K 逐步扩大到 64K，"
            "这样训练出的 1B 模型少用 12% 的算力就能追平固定 64K 词表的模型。",
            "llm_pretraining",
            ["LLM"],
        ),
    ),
    Paper(
        "2601.00106",
        "Guided Sampling for Text-to-Image Diffusion",
        "Classifier-free guidance oversaturates images at high scales. We schedule the guidance scale over "
        "the sampling steps, which improves FID from 6.1 to 5.2 on COCO at equal CLIP score.",
        "image_generation",
        "image_generation",
        ["diffusion", "guidance"],
        "作者在扩散采样的各个步骤上动态调度 classifier-free guidance 的强度，"
        "缓解高引导强度下常见的图像过饱和问题，在 COCO 上 CLIP 分数不变时把 FID 从 6.1 降到 5.2。",
        _answer(
            "本文提出在扩散采样过程中动态调度 classifier-free guidance 强度，缓解高引导强度带来的过饱和问题，"
            "在 COCO 上保持 CLIP 分数不变时把 FID 从 6.1 降到 5.2。",
            "image_generation",
            ["扩散模型"],
        ),
        _answer(
            "作者按扩散采样的步骤动态调度 classifier-free guidance 的强度，"
            "以缓解高引导强度下常见的图像过饱和，在 COCO 上保持 CLIP 分数不变时，FID 从 6.1 降到 5.2。",
            "image_generation",
            ["扩散模型"],
        ),
    ),
]
BY_TITLE = {p.title: p for p in PAPERS}
ALIASES = {"diffusion models": "扩散模型", "diffusion": "扩散模型", "reasoning": "推理"}


def write_papers(project: Project) -> Store:
    """The six papers as fetched from their abstracts, with no summary yet."""
    store = project.store()
    for paper in PAPERS:
        record = Record(
            venue=VENUE,
            id=paper.id,
            title=paper.title,
            arxiv_id=paper.id,
            abstract=paper.abstract,
            fetch=FetchState(abstract_only=True),
        )
        store.save(record)
    return store


def reference_rows() -> list[dict[str, Any]]:
    return [
        {
            "venue": VENUE,
            "arxiv_id": p.id,
            "title": p.title,
            "summary": p.reference,
            "field": p.field,
            "field_check": p.field_check,
            "keywords": p.keywords,
            "note_summary": p.reference,
        }
        for p in PAPERS
    ]


def replay(which: str) -> Any:
    """The stand-in provider's answer function: the recorded answer ``which`` (a or b) of the paper the prompt names."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        from summarizer.testing.fake_openai import paper_title

        return dict(getattr(BY_TITLE[paper_title(body)], which))

    return answer
