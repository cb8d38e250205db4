"""Tags as a way into the site: one tally rule, one page per tag, one file name per tag.

A tag is one tag whatever its case (``Benchmark`` and ``benchmark``): the key is its NFKC casefold, and
it is shown in its most common spelling (ties: the spelling that sorts first).  Each tag has one page,
``docs/tags/<slug>.md``, listing its papers venue by venue; a venue's hot topics and a paper's tags link
to that venue's part of it (``#v-<VENUE>``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from summarizer.core.errors import RunError

from .markdown_text import sort_key

_NOT_WORD = re.compile(r"[^\w]+")
SLUG_MAX = 60
_HASHED = re.compile(r"-[0-9a-f]{8}\Z")


def tag_key(tag: str) -> str:
    return sort_key(tag).strip()


@dataclass
class TagTally:
    """Papers per tag key, and each key's spellings as written."""

    papers: Counter[str]
    spellings: dict[str, Counter[str]]

    def shown(self, key: str) -> str:
        counts = self.spellings[key]
        return min(counts, key=lambda spelling: (-counts[spelling], sort_key(spelling), spelling))


def tally(tag_lists: Iterable[Iterable[str]]) -> TagTally:
    """Each paper counts once per tag key, however many spellings of it the paper carries."""
    papers: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    for tags in tag_lists:
        seen: set[str] = set()
        for tag in tags:
            key = tag_key(tag)
            if not key:
                continue
            spellings.setdefault(key, Counter())[tag] += 1
            if key not in seen:
                seen.add(key)
                papers[key] += 1
    return TagTally(papers, spellings)


def top_tags(counted: TagTally, top_k: int, min_count: int) -> list[tuple[str, int]]:
    """``(shown spelling, papers)``: by count, ties by shown name; the first top_k with count >= min_count."""
    ranked = sorted(
        ((counted.shown(key), n) for key, n in counted.papers.items()),
        key=lambda item: (-item[1], sort_key(item[0]), item[0]),
    )
    return [(tag, n) for tag, n in ranked if n >= min_count][:top_k]


def slugs(keys: Iterable[str]) -> dict[str, str]:
    """A file name for each tag key: its words joined by ``-`` (Chinese kept), a short hash when two share one.

    The name depends on the keys of the whole build only to part tags that would share a name, so a tag's
    page keeps its address while the rest of the site changes.  A tag whose own name ends like a hash
    (``a-b-c8687a08``) is given one too, so it can never take the page of a tag that needed one; two names
    that still meet are an error, never one page over another.
    """
    by_base: dict[str, list[str]] = {}
    for key in sorted(set(keys)):
        base = _NOT_WORD.sub("-", key).strip("-_")[:SLUG_MAX].strip("-_") or "tag"
        by_base.setdefault(base, []).append(key)
    names: dict[str, str] = {}
    for base, keys_here in by_base.items():
        for key in keys_here:
            plain = len(keys_here) == 1 and base != "index" and not _HASHED.search(base)
            names[key] = base if plain else f"{base}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:8]}"
    shared = [name for name, n in Counter(names.values()).items() if n > 1]
    if shared:
        raise RunError(f"two tags would share the page tags/{shared[0]}.md: rename one of them")
    return names


def venue_anchor(venue_id: str) -> str:
    """The id of a venue's part of a tag page (venue ids are letters, digits, '.', '_', '-': a valid id)."""
    return f"v-{venue_id}"
