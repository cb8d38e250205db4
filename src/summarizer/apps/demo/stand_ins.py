"""The demo's outside world: the loopback stand-ins that answer for arXiv and the model in a demo folder.

A demo folder is one whose ``config.yaml`` chooses the demo's stand-ins (``stand_ins: demo``, as the demo's own
config does) and sits beside the demo's ``papers.yaml`` (fictional papers with recorded answers).  The setting
decides, never the file: a project of your own may keep a ``papers.yaml`` of its own beside its config and still
talks to the hosts its config names.  ``summarizer demo`` runs in a demo folder, and so does every command an
editor runs next: a command that reaches arXiv or the model provider (``fetch``, ``summarize``, ``notes``,
``run``, ``regen``, the review desk's regenerate button) gets a loopback arXiv serving those papers and a
provider that replays their recorded answers, with a placeholder key, and says so on one line.  So the whole
editor's loop works on the demo with no key and no network.  Anywhere else these commands talk to the hosts the
config names; a folder that looks like a demo folder made before the setting existed says in one line what to add.

A regenerate with feedback (审稿意见 in the prompt) is answered with the paper's ``revised`` answer when it
has one: the demo's flagged drafts come with the summary an editor's feedback would get back.

A request for a paper's note (``summarizer notes``, ``regen --notes``) is answered with the paper's recorded
``note`` (its ``note_revised`` on feedback); a paper recorded without one gets the stand-in's generic note
(``fake_requests.default_note``: Chinese sections naming the title, a table of the paper's own numbers).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from summarizer.core.config import Settings
from summarizer.core.errors import ConfigError
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.fake_openai import FakeOpenAI, paper_title
from summarizer.testing.fake_requests import default_note, is_note_request, prompt_text

PAPERS_FILE = "papers.yaml"
DEMO_SETTING = "stand_ins: demo"  # the config line that chooses the demo's stand-ins
PLACEHOLDER_KEY = "demo-placeholder-not-a-real-key"
REPLAY_LATENCY_S = 0.3  # a little model latency, so the progress and the overlap are visible
BATCH_POLL_S = 0.3  # the stand-in's batches finish in four polls: no minute between them
# What the shipped prompt (prompts/user.md.j2) says before the editor's feedback in a regenerate's prompt.
FEEDBACK_MARK = "审稿意见"


@dataclass
class DemoPaper:
    venue: str
    paper: FakePaper
    answer: dict[str, Any]
    revised: dict[str, Any] | None = None  # the answer to a regenerate with feedback
    left_for_review: bool = False  # the demo leaves its draft for the editor
    note: dict[str, Any] | None = None  # the recorded answer to a request for the paper's note
    note_revised: dict[str, Any] | None = None  # … to a note's regenerate with feedback
    note_left_for_review: bool = False  # the demo leaves its draft note for the editor


def load_papers(path: Path) -> list[DemoPaper]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    papers = []
    for item in data["papers"]:
        paper = FakePaper(
            arxiv_id=str(item["arxiv_id"]),
            title=item["title"],
            abstract=item["abstract"],
            authors=list(item["authors"]),
            categories=list(item["categories"]),
            comment=item.get("comment"),
            published="2026-12-01T08:00:00Z",
            sections=list(item["sections"].items()),
        )
        papers.append(
            DemoPaper(
                venue=item["venue"],
                paper=paper,
                answer=dict(item["answer"]),
                revised=_optional(item, "revised"),
                left_for_review=bool(item.get("left_for_review")),
                note=_optional(item, "note"),
                note_revised=_optional(item, "note_revised"),
                note_left_for_review=bool(item.get("note_left_for_review")),
            )
        )
    return papers


def _optional(item: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = item.get(key)
    return dict(value) if value else None


def _shown(path: Path) -> str:
    return os.path.relpath(path)


def _demo_shaped(path: Path) -> bool:
    """Whether ``path`` reads as the demo's papers: a list of papers, each with its recorded answer."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    items = data.get("papers") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        return False
    return all(isinstance(item, dict) and isinstance(item.get("answer"), dict) for item in items)


def demo_papers(settings: Settings) -> list[DemoPaper] | None:
    """The demo's papers when the config chooses the demo's stand-ins, else None (whatever files sit beside it).

    A config that chooses them needs the ``papers.yaml`` beside it: missing or not the demo's, it is a one-line
    error naming the file (the stand-ins would have nothing to serve)."""
    if settings.stand_ins != "demo":
        return None
    path = settings.config_file.parent / PAPERS_FILE
    file, chosen = _shown(path), f"{settings.config_file.name} says `{DEMO_SETTING}`"
    if not path.is_file():
        raise ConfigError(
            f"missing, yet {chosen} (the demo's stand-ins serve the papers of this file): make a demo folder "
            "with `summarizer demo --dir PATH`, or leave the setting out",
            file=file,
        )
    if not _demo_shaped(path):
        raise ConfigError(
            f"not the demo's papers (a list of papers, each with its recorded answer), yet {chosen}", file=file
        )
    return load_papers(path)


def unchosen_demo(settings: Settings) -> str | None:
    """One line for a demo folder made before the setting existed (the demo's papers beside a config that does
    not choose the stand-ins): what to add. None anywhere else."""
    path = settings.config_file.parent / PAPERS_FILE
    if settings.stand_ins == "demo" or not path.is_file() or not _demo_shaped(path):
        return None
    return (
        f"{_shown(settings.config_file)}: the demo's {PAPERS_FILE} sits beside it, but the config does not choose "
        f"the demo's offline stand-ins, so arXiv and the model provider are the real ones: add the line "
        f"`{DEMO_SETTING}` to it for the demo"
    )


def replay(papers: list[DemoPaper]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The stand-in provider's answer: the recorded summary or note of the paper the prompt names (revised on
    feedback)."""
    by_title = {p.paper.title: p for p in papers}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        title = paper_title(body)
        if title not in by_title:
            raise KeyError(f"no recorded answer for {title!r}")
        paper = by_title[title]
        feedback = FEEDBACK_MARK in prompt_text(body)
        if is_note_request(body):
            if feedback and paper.note_revised is not None:
                return paper.note_revised
            return paper.note if paper.note is not None else default_note(body)
        if feedback and paper.revised is not None:
            return paper.revised
        return paper.answer

    return answer


@contextlib.contextmanager
def _key(variable: str) -> Iterator[None]:
    """The placeholder key in ``variable`` while the stand-ins run (a key already set stays), then as it was."""
    before = os.environ.get(variable)
    if not (before or "").strip():
        os.environ[variable] = PLACEHOLDER_KEY
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = before


@contextlib.contextmanager
def stand_ins(settings: Settings, papers: list[DemoPaper], *, latency: float = REPLAY_LATENCY_S) -> Iterator[None]:
    """arXiv and the model provider as loopback stand-ins, ``settings`` pointed at them, for the block."""
    with (
        _key(settings.llm.api_key_env),
        FakeArxiv([p.paper for p in papers]) as arxiv_stub,
        FakeOpenAI(answer=replay(papers), latency=latency, model=settings.llm.model) as provider,
    ):
        settings.arxiv.api_url = arxiv_stub.api_url
        settings.llm.base_url = provider.base_url
        settings.llm.batch_poll_s = min(settings.llm.batch_poll_s, BATCH_POLL_S)
        yield


@contextlib.contextmanager
def in_demo_folder(
    settings: Settings, say: Callable[[str], None], warn: Callable[[str], None] | None = None
) -> Iterator[bool]:
    """The demo's stand-ins for the block when ``settings`` chooses them (saying so); yields whether it does.

    A folder that looks like an older demo folder, without the setting, gets a line from ``warn`` (else ``say``)
    saying what to add, and the hosts its config names."""
    papers = demo_papers(settings)
    if papers is None:
        hint = unchosen_demo(settings)
        if hint is not None:
            (warn or say)(hint)
        yield False
        return
    say(
        f"demo folder {_shown(settings.config_file.parent)}: arXiv and the model provider are the demo's "
        "offline stand-ins (fictional papers, recorded answers; no key needed)"
    )
    with stand_ins(settings, papers):
        yield True
