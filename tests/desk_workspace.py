"""A review-desk workspace: 32 drafts in ICLR2026 written straight into the store, and the desk as a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

from browser import MATHJAX_JS
from conftest import Project
from summarizer.core.records import FetchState, Record

VENUE = "ICLR2026"
PAPERS = 32
XSS_TITLE = "<img src=x onerror=alert(1)> Sparse attention for long context"
INVENTED = "INVENTED"  # the id of the paper whose summary claims numbers its abstract lacks
DUPLICATE_OF = (3, 4)  # paper 4 gets paper 3's summary, nearly word for word
NO_NUMBER = 5  # its summary has no number, though its abstract reports 2.1x
WRONG_FIELD = 7  # put in image generation: nothing in common with the field's description
FIELDS = [
    {
        "id": "llm_pretraining",
        "emoji": "📚",
        "name": "预训练",
        "description": "语言模型预训练：scaling law, data mixture",
    },
    {
        "id": "llm_reasoning",
        "emoji": "💡",
        "name": "LLM 推理",
        "description": "大模型推理与推理效率：inference, attention, KV cache",
    },
    {
        "id": "image_generation",
        "emoji": "🎨",
        "name": "图像生成",
        "description": "扩散模型与图像生成：diffusion, image synthesis",
    },
]
METHODS = [
    "提出把 attention 分解为局部窗口与全局摘要两部分的稀疏注意力，并让相邻层共享 KV cache",
    "设计一种面向长上下文的分块检索机制，先用轻量 encoder 选出相关段落再做精读",
    "把扩散模型的多步采样蒸馏为两步生成器，用一致性损失约束中间状态",
    "用投机解码配合小型草稿模型加速大模型推理，草稿失败时回退到逐词验证",
    "为数学推理引入过程奖励模型，在每一步推导上打分并据此做束搜索",
    "将检索增强生成中的检索器与生成器联合训练，用生成损失反向指导召回",
    "通过对比学习对齐图像与文本表示，再用指令数据微调多模态对话能力",
    "在量化感知训练中按通道学习缩放因子，使四比特权重几乎不损失精度",
]
RESULTS = [
    "在 LLaMA-7B 上把推理延迟降低 \\(2.1\\times\\)，LongBench 准确率与全注意力相当",
    "实验覆盖问答、摘要与代码三类任务，整体优于同等算力下的强基线",
    "消融实验表明两个组件缺一不可，去掉任一部分都会明显掉点",
    "作者还分析了失败案例，指出方法在极长输入上仍有退化",
    "训练与推理代码均已开源，便于复现和在其他模型上迁移",
    "该方法对超参数不敏感，在不同规模模型上表现稳定",
    "与现有工作相比，额外显存开销很小，可以直接用于部署",
]


def abstract(n: int) -> str:
    return (
        f"We study efficient inference for large language models (paper {n}). Our method splits attention into "
        "local and global parts and shares the KV cache. On LLaMA-7B it reduces latency by 2.1x while matching "
        "full attention accuracy on LongBench."
    )


def paper_summary(n: int) -> str:
    method, result = METHODS[n % len(METHODS)], RESULTS[(n * 3) % len(RESULTS)]
    ending = "这一思路对大模型在真实业务中的部署与后续研究都有直接的参考价值。"
    return f"本文{method}；{result}（第 {n + 11} 组实验），{ending}"


def make_records() -> list[Record]:
    records = []
    for n in range(PAPERS):
        pid = f"2601.{10000 + n:05d}"
        title = XSS_TITLE if n == 1 else f"Paper {n:02d}: efficient inference with structured attention"
        summary = paper_summary(n)
        if n == 0:
            pid = INVENTED
            summary = (
                "本文提出一种稀疏注意力，在 LLaMA-7B 上把推理加速 56.7x，准确率 86.70%，超过 GPT-4o 与全注意力基线。"
            )
        if n == DUPLICATE_OF[1]:
            summary = paper_summary(DUPLICATE_OF[0]).replace("本文", "该文", 1)
        if n == NO_NUMBER:
            summary = summary.replace(f"（第 {n + 11} 组实验）", "")
        field = "image_generation" if n == WRONG_FIELD else "llm_reasoning"
        record = Record(
            venue=VENUE,
            id=pid,
            title=title,
            authors=["Ada Lovelace", "Alan Turing"],
            arxiv_id=None if n == 0 else pid,
            abstract=abstract(n + 11),
            fetch=FetchState(abstract_only=True),
        )
        record.summaries.add_version(summary, ["LLM", "推理"], field, "llm", model="fake-model")
        records.append(record)
    return records


def write_workspace(project: Project, llm_base_url: str | None = None) -> list[Record]:
    project.write_config(fields=FIELDS)
    if llm_base_url:
        project.write_config(llm={**project.config["llm"], "base_url": llm_base_url, "api_key_env": "DESK_TEST_KEY"})
    store = project.store()
    records = make_records()
    for record in records:
        store.save(record)
    return records


@dataclass
class RunningDesk:
    url: str  # the first line's address, token included
    base: str  # http://127.0.0.1:PORT
    token: str
    process: subprocess.Popen[str]
    stderr: list[str]


@contextmanager
def desk(
    project: Project, *venues: str, env: dict[str, str] | None = None, browser: str | None = None
) -> Iterator[RunningDesk]:
    """`summarizer review serve VENUE --no-browser --port 0` in a subprocess; yields once its first line is out.

    With ``browser`` (a program, run as ``$BROWSER``) the desk opens the browser: without ``--no-browser``.
    """
    command = [sys.executable, "-m", "summarizer", "--config", str(project.config_path), "review", "serve"]
    mathjax = {"SUMMARIZER_MATHJAX": str(MATHJAX_JS)} if (MATHJAX_JS / "tex-mml-chtml.js").is_file() else {}
    opener = {"BROWSER": browser} if browser else {}
    full_env = {**os.environ, **mathjax, "DESK_TEST_KEY": "sk-test", **opener, **(env or {})}
    process = subprocess.Popen(
        [*command, *venues, *([] if browser else ["--no-browser"]), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        cwd=project.root,
    )
    stderr: list[str] = []
    reader = threading.Thread(target=lambda: stderr.extend(process.stderr or []), daemon=True)
    reader.start()
    try:
        assert process.stdout is not None
        first = process.stdout.readline().rstrip("\n")
        assert first.startswith("review desk: http://127.0.0.1:"), (first, stderr)
        url = first.removeprefix("review desk: ")
        base, _, token = url.partition("/?token=")
        yield RunningDesk(url, base, token, process, stderr)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        reader.join(timeout=10)  # the whole log, for the tests that read it


KEY_META = re.compile(r'<meta name="desk-key" content="([^"]+)">')


def session(base: str, token: str) -> requests.Session:
    """A client welcomed as the editor's browser is: the token once, then its cookie (and its page's key)."""
    s = requests.Session()
    welcome = s.get(f"{base}/?token={token}", allow_redirects=False, timeout=30)
    key = KEY_META.search(welcome.text)
    if key:  # what desk.js keeps in the page's own storage and sends with every change
        s.headers["X-Desk-Key"] = key.group(1)
    return s


def fake_browser(tmp_path: Path) -> tuple[str, Path]:
    """A program for $BROWSER that writes down its command line (what `ps` shows) and exits."""
    seen = tmp_path / "browser-argv.txt"
    program = tmp_path / "browser.sh"
    program.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{seen}.part" && mv "{seen}.part" "{seen}"\n')
    program.chmod(0o700)
    return str(program), seen


def wait_for_file(path: Path, process: subprocess.Popen[str]) -> str:
    for _ in range(600):  # up to a minute: a bound on a shared machine, not a timing claim
        if path.exists():
            return path.read_text()
        assert process.poll() is None, "the desk stopped before opening the browser"
        time.sleep(0.1)
    raise AssertionError("the desk never opened the browser")
