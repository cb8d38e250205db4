"""The prompts: editable jinja2 templates in ``prompts/`` (system, user, re-ask), rendered per paper.

Two sets: the summary's (``system.md.j2``, ``user.md.j2``, ``reask.md.j2``) and the note's
(``note_system.md.j2``, ``note_user.md.j2``, ``note_reask.md.j2``).  Every template of a set that
reaches the model is in its ``Prompts.hash``: editing one invalidates that set's cached answers.
Paper text sits inside a ``<paper>`` fence it cannot open or close.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jinja2

from summarizer.core import limits
from summarizer.core.config import Settings, shipped_prompts_dir
from summarizer.core.errors import ConfigError, clip
from summarizer.core.fsutil import sha256_text
from summarizer.core.records import Record
from summarizer.core.rules import house_range

SYSTEM_TEMPLATE = "system.md.j2"


USER_TEMPLATE = "user.md.j2"


REASK_TEMPLATE = "reask.md.j2"

# The note's set: (system, user, re-ask).
NOTE_TEMPLATES = ("note_system.md.j2", "note_user.md.j2", "note_reask.md.j2")
# Templates a prompts folder made before them may lack: the shipped one is used (see _source).
_NEWER_TEMPLATES = (REASK_TEMPLATE, *NOTE_TEMPLATES)


SECTION_NAMES = {"abstract": "摘要", "introduction": "引言", "conclusion": "结论", "rest": "正文其他部分"}


# The fence's tags as a paper could mimic them: any spacing, attributes, full-width brackets.
_PAPER_TAG = re.compile(r"[<＜]\s*/?\s*paper\b[^>＞\n]*[>＞]", re.IGNORECASE)


def paper_text(text: str) -> str:
    """Paper text (the title too) cannot open or close the <paper> block it sits in."""
    return _PAPER_TAG.sub("[paper]", text)


class Prompts:
    """The editable jinja2 templates in ``prompts/`` (StrictUndefined: a typo is an error, not a blank).

    ``templates`` is the set (system, user, re-ask); ``answer_limit`` how much of an answer a re-ask quotes.
    """

    def __init__(
        self,
        folder: Path,
        templates: tuple[str, str, str] = (SYSTEM_TEMPLATE, USER_TEMPLATE, REASK_TEMPLATE),
        answer_limit: int = limits.REASK_ANSWER,
    ):
        self.folder = folder
        self.templates = templates
        self.answer_limit = answer_limit
        # A prompts folder made before the re-ask template existed gets the shipped one (see _source).
        loaders = [jinja2.FileSystemLoader(str(folder)), jinja2.FileSystemLoader(str(shipped_prompts_dir()))]
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
        )
        self.env.filters["paper_text"] = paper_text
        # Every template that reaches the model is in the hash: editing one invalidates cached answers.
        self.hash = sha256_text("\0".join(self._source(name) for name in templates))[:16]

    def _source(self, name: str) -> str:
        path = self.folder / name
        if name in _NEWER_TEMPLATES and not path.is_file():
            path = shipped_prompts_dir() / name
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            raise ConfigError(f"prompt template not found: {path}", key="paths.prompts") from None

    @classmethod
    def load(cls, settings: Settings) -> Prompts:
        return cls(settings.prompts_dir)

    @classmethod
    def load_notes(cls, settings: Settings) -> Prompts:
        return cls(settings.prompts_dir, NOTE_TEMPLATES, limits.REASK_NOTE_ANSWER)

    def pair(self, **values: Any) -> list[dict[str, str]]:
        """The set's system and user messages, rendered with ``values``."""
        system, user, _ = self.templates
        return [
            {"role": "system", "content": self._render(system, **values)},
            {"role": "user", "content": self._render(user, **values)},
        ]

    def _render(self, name: str, **values: Any) -> str:
        try:
            return self.env.get_template(name).render(**values).strip()
        except jinja2.TemplateError as exc:
            raise ConfigError(f"{self.folder / name}: {exc}", key="paths.prompts") from None

    def messages(
        self,
        settings: Settings,
        record: Record,
        sections: list[tuple[str, str]],
        *,
        feedback: str | None = None,
        previous_summary: str | None = None,
    ) -> list[dict[str, str]]:
        venue = next((v for v in settings.venues if v.id == record.venue), None)
        values = {
            "title": paper_text(" ".join(record.title.split())),  # sits inside the fence too
            "venue": venue.name if venue else record.venue,
            "sections": [(SECTION_NAMES.get(name, name), text) for name, text in sections],
            "fields": settings.fields,
            "vocabulary": settings.tags.vocabulary,
            "feedback": (feedback or "").strip(),
            "previous_summary": previous_summary or "",
            "house": house_range(),  # the length the system prompt asks for, measured on the reference
        }
        return self.pair(**values)

    def reask(self, raw: str, problems: list[str]) -> list[dict[str, str]]:
        """The model's previous answer, then the problems with it (``prompts/reask.md.j2``), both bounded
        (``limits.REASK_*``): the online and the batch re-asks are built here."""
        shown = [clip(problem, limits.REASK_PROBLEM) for problem in problems[: limits.REASK_PROBLEMS]]
        if len(problems) > len(shown):
            shown.append(f"and {len(problems) - len(shown)} more problems like these")
        return [
            {"role": "assistant", "content": quoted_answer(raw, self.answer_limit)},
            {"role": "user", "content": self._render(self.templates[2], problems=shown)},
        ]


def quoted_answer(raw: str, limit: int = limits.REASK_ANSWER) -> str:
    """A model's answer as a re-ask quotes it: its first ``limit`` characters, and a mark when cut."""
    if len(raw) <= limit:
        return raw
    return raw[:limit] + f"\n…[cut here: {len(raw) - limit:,} more characters not shown]"
