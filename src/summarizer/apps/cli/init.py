"""`summarizer init [DIR]`: a project to fill in — a commented ``config.yaml``, a sample venue list, ``prompts/``.

The config names one venue (a list of arXiv ids), three sample fields and the provider section; every other
section is written at its defaults with each key's description above it (``core.config_doc``: the same words
as ``docs/config.md``).  Nothing is ever overwritten: when any of the files exists, nothing is written.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from summarizer.core.config import shipped_prompts_dir
from summarizer.core.config_doc import section_yaml
from summarizer.core.errors import DISTRIBUTION, UsageError
from summarizer.core.fsutil import atomic_create_text

VENUE = "MyVenue2026"
# The README, where a wheel's user (who has no checkout) reads it: the project's page on the package index.
PROJECT_URL = f"https://pypi.org/project/{DISTRIBUTION}/"
HEADER = """\
# summarizer's configuration, written by `summarizer init`. Each key's meaning and default is written above
# it. The README walks through a project ("A first real venue"; "A local model" for llama.cpp, Ollama or vLLM,
# whose llm section `summarizer init --local` writes): it is the project's page, {project_url}, and
# `summarizer --help` lists the commands.
# To start: set `llm` for your provider (base_url, model, api_key_env; the README lists OpenAI, DeepSeek,
# Qwen, Kimi, GLM, vLLM and Ollama), put your venue's papers in venues/{venue}.txt, describe your fields,
# then: summarizer run {venue} --limit 3   (a few papers first: see what they cost and how they read).
# Only `venues` and `fields` are required; the other sections are at their defaults: change what you need.
"""
VENUES = """\
# The venues: where each one's accepted papers come from. A `list` is a file of arXiv ids, abs/pdf URLs
# or titles; the other sources (openreview, virtual_site, pmlr, cvf, acl_anthology, arxiv_query) are in
# the README ("A first real venue", step "3. The venue's source").
venues:
  - id: {venue}
    emoji: "📄"
    source: {{type: list, path: venues/{venue}.txt}}

"""
FIELDS = """\
# The fields: the sections of the site. The model files each paper under one by its description, so write
# descriptions that tell neighbouring fields apart.
fields:
  - id: llm_reasoning
    emoji: "💡"
    name: LLM 推理
    description: "提升大模型推理能力：思维链、数学与代码推理、test-time compute、过程奖励、面向推理的强化学习"
  - id: llm_efficiency
    emoji: "⚡"
    name: LLM 效率
    description: "大模型训练与推理效率：KV cache、投机解码、稀疏注意力、长上下文、量化与蒸馏"
  - id: image_generation
    emoji: "🎨"
    name: 图像生成
    description: "图像与视频生成：扩散模型、flow matching、自回归生成、图像编辑、可控生成"

# The tags the model prefers (the hot topics tally them), and variants folded into one.
tags:
  vocabulary: [LLM, 推理, 强化学习, 思维链, KV cache, 长上下文, 量化, 扩散模型, 图像生成, 评测基准]
  aliases: {大语言模型: LLM, LLMs: LLM, diffusion: 扩散模型, CoT: 思维链}
"""
SAMPLE_LIST = """\
# {venue}: one paper a line — an arXiv id (2501.12948), an arXiv abs or pdf URL, or a paper's title
# (found by an arXiv title search, accepted only on a close match). '#' starts a comment.
# Two well-known papers, to try the pipeline on; replace them with your venue's accepted papers.
1706.03762
2501.12948
"""
DEFAULT_SECTIONS = ("arxiv", "openreview", "http", "extract", "notes", "site", "stand_ins")
# `init --local`: a model served on this machine (README, "A local model"): llama-cpp-python's server or
# llama.cpp's llama-server on port 8080, one request at a time (a CPU serves one answer at a time anyway),
# minutes allowed per answer, no price.  The server asks for no key; the variable only has to be set.
LOCAL_KEY_ENV = "LOCAL_LLM_KEY"
LOCAL_LLM = {
    "llm.base_url": "http://127.0.0.1:8080/v1",
    "llm.api_key_env": LOCAL_KEY_ENV,
    "llm.model": "local-model",
    "llm.max_concurrency": 1,
    "llm.requests_per_minute": 60,
    "llm.timeout_s": 900,
    "llm.input_token_budget": 3000,
    "llm.max_output_tokens": 512,
    "llm.price_per_million.input": 0,
    "llm.price_per_million.output": 0,
}


def config_text(*, local: bool = False) -> str:
    """The commented config.yaml: the provider (``local``: a model on this machine), the venue, the fields,
    every other section at its defaults."""
    parts = [
        HEADER.format(venue=VENUE, project_url=PROJECT_URL),
        section_yaml("llm", LOCAL_LLM if local else None),
        "",
        VENUES.format(venue=VENUE),
        FIELDS,
    ]
    for name in DEFAULT_SECTIONS:
        parts += ["", section_yaml(name)]
    parts += ["", section_yaml("paths", {"paths.prompts": "prompts"})]
    return "\n".join(parts)


def init_project(folder: Path, *, local: bool = False) -> list[Path]:
    """Write the project into ``folder`` (made when missing); the paths written.  Refuses when any exists."""
    prompts = shipped_prompts_dir()
    files = {
        folder / "config.yaml": config_text(local=local),
        folder / "venues" / f"{VENUE}.txt": SAMPLE_LIST.format(venue=VENUE),
        **{folder / "prompts" / p.name: p.read_text(encoding="utf-8") for p in sorted(prompts.glob("*.j2"))},
    }
    taken = [p for p in [*files, folder / "prompts"] if p.exists() or p.is_symlink()]
    if taken:
        names = ", ".join(os.path.relpath(p) for p in dict.fromkeys(taken))
        verb = "exists" if len(taken) == 1 else "exist"
        raise UsageError(
            f"{names} already {verb}: nothing written (init never overwrites; "
            "give it a new or empty folder: summarizer init DIR)"
        )
    written: list[Path] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_create_text(path, text)
            written.append(path)
    except BaseException:
        for path in written:  # all or nothing: a half-made project would be refused by the next init
            path.unlink(missing_ok=True)
        shutil.rmtree(folder / "prompts", ignore_errors=True)
        raise
    return written
