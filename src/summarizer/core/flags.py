"""Warnings that find bad summaries: what a reviewer should look at first.

None of these rejects a summary (style is the reviewer's call): they are kept with the
version, shown by ``review list`` and the review desk, and rank the desk's
queue (most suspicious first).  Each warning says what it found.

Numbers are compared normalised: thousands separators dropped (``1,024`` =
``1024``), trailing zeros ignored (``86.70`` = ``86.7``), a unit or sign
after the number ignored (``56.7x``, ``56.7×``, ``86.70%`` look for 56.7 and
86.7).  Names that hold a digit (``GPT-4o``, ``LLaMA-7B``) must appear in the
paper text as written, case, spaces and hyphens aside.  Integers up to 10 are
not checked: a summary says "3 个基准" where the paper writes "three".

A field "shares no words" with a paper when no Latin word (2+ letters) and no
pair of Chinese characters of its description appears in the paper text or the
summary (generic words such as 模型, 方法 and "the" are left out).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from .cjk import CJK_RANGES
from .config import Settings
from .errors import NoInput
from .paper_text import paper_sections
from .records import Record, Version
from .rules import length_warning, summary_warnings

# A run of letters/digits joined by hyphens or dots that holds a digit: 56.7x, 86.70%, GPT-4o, 1,024.
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[.,\-][A-Za-z0-9]+)*%?")
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_UNIT_NUMBER = re.compile(rf"^({_NUMBER.pattern})(?:x|X|%|k|K|M|B)?$")  # a number with its unit: 56.7x, 86.70%
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_RESULT = re.compile(r"\d+(?:\.\d+)?\s*(?:%|×|x\b)|\d+\.\d+")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")
_STOP = {
    "of",
    "to",
    "in",
    "on",
    "at",
    "by",
    "an",
    "as",
    "is",
    "be",
    "or",
    "we",
    "it",
    "its",
    "the",
    "and",
    "for",
    "with",
    "from",
    "that",
    "this",
    "are",
    "our",
    "via",
    "using",
    "based",
    "模型",
    "方法",
    "研究",
    "问题",
    "任务",
    "学习",
    "训练",
    "数据",
    "提出",
    "本文",
    "进行",
    "以及",
    "基于",
    "通过",
}
SMALL_INTEGER = 10
DUPLICATE_SHARE = 0.8

PREFIX_NUMBERS = "numbers not in the paper text"
PREFIX_NO_NUMBER = "no number, though the paper reports results"
# What the checks read when the paper's text is not there (never fetched, or its PDF failed): the abstract.
PAPER_TEXT = "paper text"
ABSTRACT = "abstract"
_NUMBERS_IN = {PAPER_TEXT: PREFIX_NUMBERS, ABSTRACT: "numbers not in the abstract (the paper's text was not read)"}
_NO_NUMBER_IN = {PAPER_TEXT: PREFIX_NO_NUMBER, ABSTRACT: "no number, though the abstract reports results"}
ABSTRACT_ONLY = "abstract only"
PREFIX_FIELD = "field "
PREFIX_TAGS = "tags outside the vocabulary"
PREFIX_DUPLICATE = "nearly identical to"

# kind -> (what the filter shows, weight in the queue's order)
KINDS: dict[str, tuple[str, int]] = {
    "numbers": ("numbers not in the paper", 5),
    "duplicate": ("near-duplicate", 4),
    "no-number": ("no number", 2),
    "field": ("field shares no words", 2),
    "length": ("length", 1),
    "chinese": ("little Chinese", 1),
    "tags": ("tags outside vocabulary", 1),
    "abstract-only": ("summarised from the abstract only", 0),
    "other": ("other", 1),
}


def warning_kind(warning: str) -> str:
    for prefix, kind in (
        ("numbers not in the", "numbers"),
        ("no number, though", "no-number"),
        (PREFIX_TAGS, "tags"),
        (PREFIX_DUPLICATE, "duplicate"),
        ("length ", "length"),
        ("little Chinese", "chinese"),
        (ABSTRACT_ONLY, "abstract-only"),
    ):
        if warning.startswith(prefix):
            return kind
    if warning.startswith(PREFIX_FIELD) and "shares no words" in warning:
        return "field"
    return "other"


def suspicion_score(warnings: Iterable[str]) -> int:
    return sum(KINDS[warning_kind(w)][1] for w in warnings)


def _number_key(text: str) -> str | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    return format(value.normalize(), "f")


def _squash(text: str) -> str:
    return re.sub(r"[\s\-_]+", "", text).casefold()


class PaperFacts:
    """What the model read, indexed for the checks: its numbers, its words, its squashed text.

    ``words`` (for the field check) can be left out where no field is checked (a note).
    """

    def __init__(self, text: str, *, words: bool = True):
        # Each distinct spelling once: a paper repeats its numbers, and each costs a Decimal.
        self.numbers = {key for raw in set(_NUMBER.findall(text)) if (key := _number_key(raw)) is not None}
        self.squashed = _squash(text)
        self.words = _words(text) if words else set()
        self.has_results = _RESULT.search(text) is not None


def _words(text: str) -> set[str]:
    """Latin words (2+ letters, lowercased) and Chinese character pairs, the most generic left out."""
    words = {w.casefold() for w in _LATIN_WORD.findall(text)}
    for run in _CJK_RUN.findall(text):
        words.update(run[i : i + 2] for i in range(len(run) - 1))
    return words - _STOP


def invented_numbers(summary: str, facts: PaperFacts) -> list[str]:
    """Tokens of the summary holding a digit that the paper text does not have."""
    found: list[str] = []
    for token in _TOKEN.findall(_TEX_COMMAND.sub(" ", summary)):
        if not any(ch.isdigit() for ch in token):
            continue
        unit = _UNIT_NUMBER.match(token)
        if unit:
            key = _number_key(unit.group(1))
            if key is None or key in facts.numbers:
                continue
            if "." not in key and int(key) <= SMALL_INTEGER:
                continue
        elif _squash(token) in facts.squashed:
            continue
        if token not in found:
            found.append(token)
    return found


@dataclass(frozen=True)
class CheckText:
    """What a summary is checked against: the text the model read, and whether that was only the abstract."""

    text: str
    source: str = PAPER_TEXT  # PAPER_TEXT or ABSTRACT: the warnings name it


def read_paper_for_checks(settings: Settings, record: Record) -> CheckText | None:
    """Title plus the sections the model read; a paper whose text is not there (an import never fetched, a
    cached text gone) is checked against its abstract; None when there is nothing to compare with."""
    try:
        sections = paper_sections(settings, record)
    except NoInput:
        sections = [("abstract", record.abstract)] if record.abstract else []
    if not sections:
        return None
    source = ABSTRACT if [name for name, _ in sections] == ["abstract"] else PAPER_TEXT
    return CheckText("\n".join([record.title, *(body for _, body in sections)]), source)


def paper_warnings(
    settings: Settings, summary: str, tags: list[str], field: str, text: str | CheckText | None
) -> list[str]:
    """Every warning about one summary that needs no other paper (the near-duplicate check does)."""
    warnings = list(summary_warnings(summary))
    checked = CheckText(text) if isinstance(text, str) else text
    facts = PaperFacts(checked.text) if checked and checked.text else None
    if checked is not None and facts is not None:
        invented = invented_numbers(summary, facts)
        if invented:
            warnings.append(f"{_NUMBERS_IN[checked.source]}: {', '.join(invented[:8])}")
        if facts.has_results and not any(ch.isdigit() for ch in summary):
            warnings.append(_NO_NUMBER_IN[checked.source])
        spec = settings.field(field)
        # The paper is often English and the description Chinese: the summary (its Chinese rendering) counts too.
        if spec is not None and spec.description and not (_words(spec.description) & (facts.words | _words(summary))):
            warnings.append(f"{PREFIX_FIELD}{field}: its description shares no words with the paper")
    vocabulary = {w.casefold() for w in settings.tags.vocabulary}
    if vocabulary:
        outside = [t for t in tags if t.casefold() not in vocabulary]
        if outside:
            warnings.append(f"{PREFIX_TAGS}: {', '.join(outside)}")
    return warnings


def record_warnings(settings: Settings, record: Record, summary: str, tags: list[str], field: str) -> list[str]:
    return paper_warnings(settings, summary, tags, field, read_paper_for_checks(settings, record))


def current_warnings(settings: Settings, record: Record, version: Version | None = None) -> list[str]:
    """A version's stored warnings plus those found now (a version stored before a check existed,
    a human edit, an import): what `review list` and `review show` print.  Default: the current version."""
    current = version or record.summaries.current
    if current is None:
        return []
    # A stored length warning was judged by the house range of its day: the length is judged anew (it needs no read).
    length = length_warning(current.summary)
    fresh = [length] if length else []
    stored = [w for w in current.warnings if warning_kind(w) != "length"]
    if current.checked:  # found when it was stored: no need to read the paper again (5,000 of them in a list)
        return merge(fresh, stored)
    stored = stored or summary_warnings(current.summary)
    return merge(fresh, stored, record_warnings(settings, record, current.summary, current.tags, current.field))


def merge(*groups: Iterable[str]) -> list[str]:
    out: list[str] = []
    for group in groups:
        out.extend(w for w in group if w not in out)
    return out


def _shingles(text: str) -> set[str]:
    squashed = re.sub(r"\s+", "", text)
    return {squashed[i : i + 3] for i in range(max(0, len(squashed) - 2))}


class DuplicateIndex:
    """Summaries by their 3-grams, to find one nearly identical to another paper's (thread-safe).

    An inverted index that skips the 3-grams most summaries share (本文提出…), so a venue
    of thousands is compared without testing every pair.
    """

    def __init__(self, share: float = DUPLICATE_SHARE):
        self.share = share
        self._grams: dict[str, set[str]] = {}
        self._postings: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, records: Iterable[Record]) -> DuplicateIndex:
        """The current summaries of these records (rejected papers left out)."""
        index = cls()
        for record in records:
            if record.summaries.current is not None and record.summaries.status != "rejected":
                index.add(f"{record.venue}/{record.id}", record.summaries.current.summary)
        return index

    def add(self, ref: str, text: str) -> None:
        with self._lock:
            for gram in self._grams.pop(ref, set()):
                self._postings[gram].discard(ref)
            self._grams[ref] = grams = _shingles(text)
            for gram in grams:
                self._postings.setdefault(gram, set()).add(ref)

    def find(self, ref: str, text: str) -> str | None:
        """A warning naming the most similar other summary, when it shares ``share`` of the 3-grams."""
        grams = _shingles(text)
        with self._lock:
            common = max(50, len(self._grams) // 20)
            shared: Counter[str] = Counter()
            for gram in grams:
                refs = self._postings.get(gram, set())
                if len(refs) <= common:
                    shared.update(r for r in refs if r != ref)
            for other, _ in shared.most_common(3):
                union = len(grams | self._grams[other])
                similarity = len(grams & self._grams[other]) / union if union else 0.0
                if similarity >= self.share:
                    return f"{PREFIX_DUPLICATE} {other}'s summary ({similarity:.0%} the same)"
        return None

    def check(self, ref: str, text: str) -> str | None:
        """``find``, then remember this summary for the papers that come after it."""
        found = self.find(ref, text)
        self.add(ref, text)
        return found


def near_duplicates(summaries: dict[str, str], share: float = DUPLICATE_SHARE) -> dict[str, str]:
    """ref -> a warning naming the other paper, for summaries sharing ``share`` of their 3-grams."""
    index = DuplicateIndex(share)
    for ref, text in summaries.items():
        index.add(ref, text)
    found = {ref: index.find(ref, text) for ref, text in summaries.items()}
    return {ref: warning for ref, warning in found.items() if warning is not None}


def venue_duplicates(records: Iterable[Record]) -> dict[str, str]:
    """ref -> a near-duplicate warning, found now among each venue's current summaries (rejected papers left out)."""
    by_venue: dict[str, dict[str, str]] = {}
    for record in records:
        if record.summaries.current is not None and record.summaries.status != "rejected":
            by_venue.setdefault(record.venue, {})[f"{record.venue}/{record.id}"] = record.summaries.current.summary
    found: dict[str, str] = {}
    for summaries in by_venue.values():
        found.update(near_duplicates(summaries))
    return found


def shown_warnings(record: Record, version_warnings: Iterable[str], twin: str | None) -> list[str]:
    """What `review list` and the review desk show for a paper, the same in both: its version's warnings (a stored
    near-duplicate warning left out, as its twin may have changed since), "abstract only", and the twin found now."""
    warnings = [w for w in version_warnings if warning_kind(w) != "duplicate"]
    if record.fetch.abstract_only:
        warnings.append(ABSTRACT_ONLY)
    if twin:
        warnings.append(twin)
    return warnings
