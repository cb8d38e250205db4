"""The reference an evaluation scores against: a JSONL file in the import format, one paper a line.

    {"venue"?, "title", "summary", "field", "tags"?, "arxiv_id"?, "url"?, "id"?,
     "keywords"?, "field_check"?, "trusted"?, "note_summary"?}

The import keys mean what they mean for ``summarizer import`` (an export is a reference as it is;
its other keys are read and left unused).  Four keys are the reference's own:

* ``keywords``: the reference's keywords as it wrote them (tag recall maps them onto the
  vocabulary; without them the line's ``tags`` are used);
* ``field_check``: a second field label for the paper (on papernotes.org, the note's own 领域
  line, where the folder gives ``field``), so ``--trust agree`` scores fields only where both agree;
* ``trusted``: ``true`` where a person checked the field (``--trust trusted``);
* ``note_summary``: the 一句话总结 of the paper's note, which should equal the digest text.

A line is matched to the venue's record by arXiv id, else by id, else by its normalised title;
a line of another venue is left out, and a second line for the same paper is reported, not used.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from summarizer.core import limits
from summarizer.core.bounds import check_arxiv_id, check_oneline, check_text, check_title, check_url
from summarizer.core.errors import FileSystemError, Problems, UsageError
from summarizer.core.ids import normalize_title, parse_arxiv_id, strip_version
from summarizer.core.records import Record, Version
from summarizer.core.wording import validation_problems

Trust = Literal["all", "trusted", "agree"]
TRUST_RULES: dict[str, str] = {
    "all": "every matched line",
    "trusted": 'lines marked "trusted": true',
    "agree": "lines whose field_check equals their field",
}
PROBLEMS_SHOWN = 20  # a broken file's first problems; the count says how many more


class ReferenceLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    venue: str | None = None
    title: str
    summary: str
    field: str
    tags: list[str] = []
    arxiv_id: str | None = None
    url: str | None = None
    id: str | None = None
    keywords: list[str] | None = None
    field_check: str | None = None
    trusted: bool | None = None
    note_summary: str | None = None
    # The import format's other keys: an export is a reference as it is.  Read, not used.
    status: Any = None
    authors: Any = None
    abstract: Any = None
    note: Any = None
    pending: Any = None
    source_type: Any = None
    source_id: Any = None
    tier: Any = None

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return check_title(value)

    @field_validator("summary", "note_summary")
    @classmethod
    def _summary(cls, value: str | None) -> str | None:
        return check_text(value, limits.HUMAN_SUMMARY)

    @field_validator("venue", "field", "field_check", "id")
    @classmethod
    def _label(cls, value: str | None) -> str | None:
        return check_oneline(value, limits.SOURCE_ID)

    @field_validator("tags", "keywords")
    @classmethod
    def _keywords(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        kept = [word for word in (check_oneline(v, limits.REFERENCE_KEYWORD) for v in value) if word]
        if len(kept) > limits.REFERENCE_KEYWORDS:
            raise ValueError(f"{len(kept)} keywords (at most {limits.REFERENCE_KEYWORDS})")
        return kept

    @field_validator("arxiv_id")
    @classmethod
    def _arxiv_id(cls, value: str | None) -> str | None:
        parsed = check_arxiv_id(value)
        return strip_version(parsed) if parsed else None

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return check_url(value)

    def paper_arxiv_id(self) -> str | None:
        """The arXiv id, or the one an arXiv abs/pdf URL names."""
        if self.arxiv_id:
            return self.arxiv_id
        from_url = parse_arxiv_id(self.url) if self.url else None
        return strip_version(from_url) if from_url else None

    @property
    def reference_keywords(self) -> list[str]:
        return self.keywords if self.keywords is not None else self.tags

    def trusted_by(self, rule: Trust) -> bool:
        """Whether this line's field counts under ``rule`` (``TRUST_RULES``)."""
        if rule == "trusted":
            return self.trusted is True
        if rule == "agree":
            return self.field_check is not None and self.field_check == self.field
        return True


def read_reference(path: Path) -> list[tuple[int, ReferenceLine]]:
    """Every line of the file as (line number, line); ``Problems`` listing each bad line (nothing is scored)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise UsageError(f"{path}: reference file not found") from exc
    except OSError as exc:
        raise FileSystemError(path, exc) from exc
    lines: list[tuple[int, ReferenceLine]] = []
    problems: list[str] = []
    # Lines end at \n only, as in every JSONL file this tool reads: U+2028 is text inside a line.
    raw_lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    if len(raw_lines) > limits.REFERENCE_LINES:
        raise UsageError(f"{path}: {len(raw_lines):,} lines (at most {limits.REFERENCE_LINES:,})")
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        try:
            lines.append((number, _parse(raw)))
        except ValueError as exc:
            problems.append(f"{path}:{number}: {exc}")
    if problems:
        more = len(problems) - PROBLEMS_SHOWN
        shown = problems[:PROBLEMS_SHOWN] + ([f"and {more} more lines like these"] if more > 0 else [])
        raise Problems([f"{len(problems)} lines of the reference have problems (nothing was scored)", *shown])
    return lines


def _parse(raw: bytes) -> ReferenceLine:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError("each line must be a JSON object")
    try:
        return ReferenceLine.model_validate(data)
    except ValidationError as exc:
        raise ValueError("; ".join(validation_problems(exc, top="line"))) from None


@dataclass
class Pair:
    """A reference line and the record it is about, with the version that is scored (None: nothing to score)."""

    number: int
    line: ReferenceLine
    record: Record
    version: Version | None


@dataclass
class Matched:
    """A reference file matched to one venue's records."""

    pairs: list[Pair] = field(default_factory=list)
    other_venues: int = 0  # lines of another venue, left out
    unmatched: list[int] = field(default_factory=list)  # line numbers with no record of the venue
    duplicates: list[tuple[int, int]] = field(default_factory=list)  # (line, the earlier line of the same paper)

    @property
    def scored(self) -> list[Pair]:
        return [pair for pair in self.pairs if pair.version is not None]


def scored_version(record: Record) -> Version | None:
    """What an evaluation scores of a paper: its approved version, else its newest draft (a rejected paper: none)."""
    if record.summaries.approved is not None:
        return record.summaries.approved
    return record.summaries.current if record.summaries.status == "draft" else None


class _Index:
    """A venue's records by arXiv id, id and normalised title (a title two records share finds neither)."""

    def __init__(self, records: list[Record]):
        self.by_arxiv = {strip_version(r.arxiv_id): r for r in records if r.arxiv_id}
        self.by_id = {r.id: r for r in records}
        titles: dict[str, list[Record]] = {}
        for record in records:
            titles.setdefault(normalize_title(record.title), []).append(record)
        self.by_title = {title: found[0] for title, found in titles.items() if len(found) == 1}

    def find(self, line: ReferenceLine) -> Record | None:
        arxiv = line.paper_arxiv_id()
        if arxiv and arxiv in self.by_arxiv:
            return self.by_arxiv[arxiv]
        if line.id and line.id in self.by_id:
            return self.by_id[line.id]
        return self.by_title.get(normalize_title(line.title))


def match(lines: list[tuple[int, ReferenceLine]], records: list[Record], venue_id: str) -> Matched:
    """The venue's lines paired with its records (see the module doc for the order of the keys)."""
    index = _Index(records)
    matched = Matched()
    first_line: dict[str, int] = {}
    for number, line in lines:
        if line.venue is not None and line.venue != venue_id:
            matched.other_venues += 1
            continue
        record = index.find(line)
        if record is None:
            matched.unmatched.append(number)
        elif record.id in first_line:
            matched.duplicates.append((number, first_line[record.id]))
        else:
            first_line[record.id] = number
            matched.pairs.append(Pair(number, line, record, scored_version(record)))
    return matched
