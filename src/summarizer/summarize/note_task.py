"""Notes as a ``Task`` of the shared run: which papers get one, what the model reads, how a note is stored.

A paper gets a note when its summary is approved and its text was fetched (a note reads the method
and the experiments, which an abstract does not have).  The model reads the paper within
``notes.input_token_budget`` (``paper_text.note_sections``) and the approved summary, and answers
the note's sections (``note_schema``, checked by ``note_answer``); the stored version is their
Markdown, with the paper-level warnings (``core.note_flags``) and the code URL the paper's own text
gives.  A note is reviewed on its own: its status is not the summary's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from summarizer.core.bounds import fit_url
from summarizer.core.config import Settings
from summarizer.core.errors import NoInput, TextRejected
from summarizer.core.flags import merge
from summarizer.core.note_flags import note_warnings
from summarizer.core.note_markdown import summary_version
from summarizer.core.paper_text import code_url, load_paper_text, note_sections
from summarizer.core.records import NoteVersion, Record, Stage

from .chat_request import AnswerSpec, Messages
from .note_answer import CheckedNote, check_note, parse_note
from .note_schema import NOTE_SCHEMA_VERSION, SCHEMA_NAME, response_schema, schema_note
from .prompts import SECTION_NAMES, Prompts, paper_text
from .task import apply_answer, cache_key


@dataclass
class NoteDraft:
    """A checked note from the model, with what produced it."""

    answer: dict[str, Any]
    markdown: str
    warnings: list[str] = field(default_factory=list)
    model: str = ""
    prompt_hash: str = ""
    cached: bool = False


class NoteTask:
    """A per-paper note: ``notes``."""

    kind = "note"
    stage: Stage = "notes"
    command = "notes"
    done_label = "written"
    undone = "without a note"
    expected_output_tokens = 2_500  # a note of ~3,700 characters (the reference's median) as JSON

    def __init__(self, settings: Settings, prompts: Prompts | None = None):
        self.settings = settings
        self.prompts = prompts or Prompts.load_notes(settings)
        self.ratings = settings.notes.ratings

    @property
    def prompt_hash(self) -> str:
        return self.prompts.hash

    def spec(self) -> AnswerSpec[CheckedNote]:
        return AnswerSpec(
            name=SCHEMA_NAME,
            schema=response_schema(self.ratings),
            schema_note=schema_note(self.ratings),
            validate=lambda raw: parse_note(raw, self.ratings),
            reask=self.prompts.reask,
            max_tokens=self.settings.notes.max_output_tokens,
            max_tokens_key="notes.max_output_tokens",
        )

    def prepare(self, records: list[Record]) -> None:
        """Nothing to gather: a note is not compared with the venue's others."""

    def skip_reason(self, record: Record, force: bool) -> str | None:
        """None when the paper is to get a note, else the count it goes under."""
        notes = record.notes
        if notes.status == "rejected" and notes.versions and not force:
            return "note rejected (skipped)"
        if record.summaries.approved is None:
            return "no approved summary yet"
        if not record.fetch.text_path:
            return "abstract only (no note)" if record.fetch.abstract_only else "not fetched"
        current = notes.current
        if current is None:
            return None
        if not force:
            return "already have a note"
        if notes.approved is not None or current.origin != "llm":
            return "approved or edited note (kept)"
        return None

    def messages(self, record: Record, *, feedback: str | None = None) -> Messages:
        """The note's prompt; ``NoInput`` when the paper has no text or no summary to write from."""
        summary = summary_version(record)
        if summary is None:
            raise NoInput("a note needs the paper's summary first: `summarizer summarize`, then approve it")
        sections = note_sections(self.settings, record)
        venue = next((v for v in self.settings.venues if v.id == record.venue), None)
        previous = record.notes.current.markdown if (feedback and record.notes.current) else ""
        return self.prompts.pair(
            title=paper_text(" ".join(record.title.split())),  # sits inside the fence too
            venue=venue.name if venue else record.venue,
            summary=summary.summary,
            sections=[(SECTION_NAMES.get(name, name), text) for name, text in sections],
            ratings=self.ratings,
            feedback=(feedback or "").strip(),
            previous_note=previous,
        )

    def cache_key(self, messages: Messages) -> str:
        schema = f"note-{NOTE_SCHEMA_VERSION}" + ("-rated" if self.ratings else "")
        return cache_key(self.settings, self.prompt_hash, schema, messages)

    def answered(self, value: CheckedNote, model: str, prompt_hash: str) -> NoteDraft:
        return NoteDraft(value.answer, value.markdown, list(value.warnings), model, prompt_hash)

    def from_cache(self, entry: dict[str, Any]) -> NoteDraft | None:
        try:
            checked = check_note(entry["note"], self.ratings)
        except (KeyError, TypeError, TextRejected):
            return None
        model = str(entry.get("model") or self.settings.llm.model)
        return NoteDraft(checked.answer, checked.markdown, checked.warnings, model, self.prompt_hash, cached=True)

    def cache_entry(self, answer: NoteDraft) -> dict[str, Any]:
        return {"note": answer.answer}

    def unchanged(self, record: Record, answer: NoteDraft) -> bool:
        current = record.notes.current
        return current is not None and current.same_content(answer.markdown, None, "tex")

    def apply(self, record: Record, answer: NoteDraft) -> list[str]:
        """The note as the paper's newest note version (unless it holds it already); the counts it goes under."""
        return apply_answer(
            record,
            record.notes,
            "notes",
            unchanged=self.unchanged(record, answer),
            add=lambda: add_note_version(self.settings, record, answer),
        )


def add_note_version(
    settings: Settings, record: Record, draft: NoteDraft, *, feedback: str | None = None
) -> NoteVersion:
    """Add ``draft`` as the paper's newest note version (origin llm), its warnings found, its failure cleared.

    The note's status is not touched: on an approved note the new version is a pending draft.  The
    code URL is taken from the paper's own text when the record has none yet.
    """
    if record.notes.code_url is None:
        text = load_paper_text(settings, record)
        record.notes.code_url = fit_url(code_url(text)) if text is not None else None
    version = record.notes.add_version(
        draft.markdown,
        "llm",
        model=draft.model,
        prompt_hash=draft.prompt_hash,
        feedback=(feedback or None),
        checked=True,
    )
    version.warnings = merge(draft.warnings, note_warnings(settings, record, version))
    record.clear_failure("notes")
    return version
