"""Related papers across venues: a BM25 ranking over titles, abstracts, tags and fields, offline.

No model, no network.  Each paper is a bag of terms: the words of its title (counted twice) and
abstract (its summary when it has none), Latin words lowercased and Chinese as character pairs (no
dictionary needed, and a two-character word is a pair), each tag as one term (three times) and its
field as one term (twice).  A paper's related papers are the others that score highest with its own
terms as the query (BM25, k1 1.2, b 0.75), any venue; the same paper filed in two venues is not its
own relative.  Only a paper's 32 most telling terms (by weight) that another paper also has are
asked, and only until their postings reach 20,000, which bounds the work per paper whatever its
abstract's length or the corpus: 20,000 papers take a few seconds.

The result depends only on those inputs, so it is kept beside the site (``.summarizer-related``) with
their digest, and a build after a change of summaries or reviews alone does not rank again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from summarizer.core.fsutil import write_if_changed

K1 = 1.2
B = 0.75
QUERY_TERMS = 32
POSTINGS_BUDGET = 20_000  # postings read per paper, at most (one term's alone when longer)
CACHE = ".summarizer-related"
RANKING = 2  # in the cache's digest: a change of how papers are ranked ranks them again
_LATIN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "that",
        "the",
        "their",
        "this",
        "to",
        "via",
        "we",
        "with",
        "which",
        "while",
        "using",
        "based",
        "towards",
        "toward",
        "new",
        "method",
        "methods",
        "approach",
        "paper",
        "propose",
        "proposed",
        "show",
    }
)


@dataclass(frozen=True)
class Doc:
    """One paper as the ranking sees it; ``key`` is ``VENUE/ID``, ``same`` names the paper across venues."""

    key: str
    same: str
    title: str
    text: str
    tags: tuple[str, ...]
    field: str


def terms(doc: Doc) -> Counter[str]:
    bag: Counter[str] = Counter()
    for weight, text in ((2, doc.title), (1, doc.text)):
        for word in _words(text):
            bag[word] += weight
    for tag in doc.tags:
        bag["#" + tag.casefold()] += 3
    bag["@" + doc.field] += 2
    return bag


def _words(text: str) -> list[str]:
    lowered = text.casefold()
    out = [w for w in _LATIN.findall(lowered) if len(w) > 1 and w not in _STOP]
    for run in _CJK_RUN.findall(lowered):
        out.extend([run[i : i + 2] for i in range(len(run) - 1)] or [run])
    return out


def _digest(docs: Sequence[Doc], k: int) -> str:
    inputs = [[d.key, d.same, d.title, d.text, d.tags, d.field] for d in docs]
    payload = json.dumps([RANKING, k, inputs], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class _Index:
    """Per-term postings (doc numbers and BM25 weights), term by term in one array each (CSR)."""

    def __init__(self, bags: list[Counter[str]]):
        vocabulary: dict[str, int] = {}
        rows: list[tuple[np.ndarray, np.ndarray]] = []
        for bag in bags:
            ids = np.fromiter((vocabulary.setdefault(t, len(vocabulary)) for t in bag), dtype=np.int64, count=len(bag))
            rows.append((ids, np.fromiter(bag.values(), dtype=np.float64, count=len(bag))))
        n = len(bags)
        lengths = np.array([tf.sum() for _, tf in rows]) if rows else np.zeros(0)
        norm = K1 * (1 - B + B * lengths / max(float(lengths.mean()) if n else 1.0, 1e-9))
        df = np.zeros(len(vocabulary))
        for ids, _ in rows:
            df[ids] += 1
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        self.rows = [(ids, idf[ids] * tf * (K1 + 1) / (tf + norm[i])) for i, (ids, tf) in enumerate(rows)]
        doc_of = np.concatenate([np.full(len(ids), i) for i, (ids, _) in enumerate(self.rows)]) if n else np.zeros(0)
        term_of = np.concatenate([ids for ids, _ in self.rows]) if n else np.zeros(0, dtype=np.int64)
        weight = np.concatenate([w for _, w in self.rows]) if n else np.zeros(0)
        order = np.lexsort((doc_of, term_of))
        self.docs = doc_of[order].astype(np.int64)
        self.weights = weight[order]
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(term_of, minlength=len(vocabulary)))])
        self.n = n

    def scores(self, i: int) -> np.ndarray:
        ids, weights = self.rows[i]
        # A term no other paper has finds nothing: in a small site a paper's rarest words would fill the
        # query and leave it with no related paper at all.
        shared = self.indptr[ids + 1] - self.indptr[ids] > 1
        ids, weights = ids[shared], weights[shared]
        if not len(ids):
            return np.zeros(self.n)
        asked = ids[np.argsort(-weights, kind="stable")[:QUERY_TERMS]]
        lengths = self.indptr[asked + 1] - self.indptr[asked]
        # The most telling terms first, until their postings reach the budget: the common ones, which
        # weigh least, are left out of long queries.
        kept = max(1, int(np.searchsorted(np.cumsum(lengths), POSTINGS_BUDGET, side="right")))
        spans = [(self.indptr[t], self.indptr[t + 1]) for t in asked[:kept]]
        docs = np.concatenate([self.docs[a:b] for a, b in spans])
        return np.bincount(docs, weights=np.concatenate([self.weights[a:b] for a, b in spans]), minlength=self.n)


def rank(docs: Sequence[Doc], k: int) -> dict[str, list[str]]:
    """``VENUE/ID`` -> up to k related ``VENUE/ID``, best first (ties: the order of ``docs``)."""
    if k <= 0 or len(docs) < 2:
        return {d.key: [] for d in docs}
    index = _Index([terms(d) for d in docs])
    same = [d.same for d in docs]
    out: dict[str, list[str]] = {}
    for i, doc in enumerate(docs):
        scores = index.scores(i)
        wanted = min(k + 4, len(scores))
        floor = max(np.partition(scores, len(scores) - wanted)[len(scores) - wanted], 1e-12)
        candidates = np.flatnonzero(scores >= floor)
        best = candidates[np.lexsort((candidates, -scores[candidates]))]
        out[doc.key] = [docs[j].key for j in best[: k + 4] if j != i and same[j] != same[i]][:k]
    return out


def related(docs: Sequence[Doc], k: int, cache_dir: Path | None) -> dict[str, list[str]]:
    """``rank``, read from the cache beside the site when the inputs are the same as last time."""
    digest = _digest(docs, k)
    cache = cache_dir / CACHE if cache_dir is not None else None
    if cache is not None:
        try:
            kept = json.loads(cache.read_text(encoding="utf-8"))
            if isinstance(kept, dict) and kept.get("digest") == digest and isinstance(kept.get("related"), dict):
                return {key: list(value) for key, value in kept["related"].items()}
        except (OSError, ValueError):
            pass  # missing or damaged: rank again
    result = rank(docs, k)
    if cache is not None:
        data = json.dumps({"digest": digest, "related": result}, ensure_ascii=False, sort_keys=True)
        write_if_changed(cache, data.encode("utf-8"))
    return result
