"""arXiv identifiers and the ids that name records on disk.

A record's id is the arXiv id without its version (``2501.12948``; the
old-style ``hep-th/9901001`` becomes ``hep-th_9901001``), else an ASCII slug of
the title.  Either way it is a single safe path segment: never ``..``, never a
slash, never empty.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

# YYMM.NNNN from 0704 to 1412, YYMM.NNNNN since 1501: a dropped digit is caught before any request.
NEW_STYLE = r"(?:0[7-9]|1[0-4])(?:0[1-9]|1[0-2])\.\d{4}|(?:1[5-9]|[2-9]\d)(?:0[1-9]|1[0-2])\.\d{5}"
OLD_STYLE = r"[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}"
ARXIV_ID = re.compile(rf"^(?P<base>{NEW_STYLE}|{OLD_STYLE})(?P<version>v\d+)?\Z")
ARXIV_URL = re.compile(
    rf"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>(?:{NEW_STYLE}|{OLD_STYLE})(?:v\d+)?)(?:\.pdf)?/?(?:[?#].*)?\Z"
)
SLUG_MAX = 80


def parse_arxiv_id(text: str) -> str | None:
    """The arXiv id (with its version, if any) in an id or abs/pdf URL, else None."""
    text = text.strip()
    if text.lower().startswith("arxiv:"):
        text = text[6:].strip()
    if ARXIV_ID.match(text):
        return text
    m = ARXIV_URL.match(text)
    return m.group("id") if m else None


def strip_version(arxiv_id: str) -> str:
    m = ARXIV_ID.match(arxiv_id)
    return m.group("base") if m else arxiv_id


def is_arxiv_id(text: str) -> bool:
    return bool(ARXIV_ID.match(text))


def normalize_title(title: str) -> str:
    """A title as compared, not shown: NFKC, casefold, LaTeX markup and punctuation dropped, spaces collapsed."""
    text = unicodedata.normalize("NFKC", title).casefold()
    text = re.sub(r"\\[a-z]+\s*", " ", text)  # \mathcal, \emph …
    text = re.sub(r"[^\w\s]|_", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def slugify(title: str) -> str:
    """An ASCII slug of the title, at most 80 characters; a hash when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > SLUG_MAX:
        slug = slug[:SLUG_MAX].rstrip("-")
    if not slug:
        digest = hashlib.sha1(unicodedata.normalize("NFKC", title).encode("utf-8")).hexdigest()[:12]
        slug = f"paper-{digest}"
    return slug


def record_id(*, arxiv_id: str | None = None, title: str | None = None) -> str:
    if arxiv_id:
        return strip_version(arxiv_id).replace("/", "_")
    if title is None:
        raise ValueError("a paper needs an arXiv id or a title")
    return slugify(title)


# Venue and field ids become folder names in outputs/ and on the site.  Every id rule ends in \Z, not $:
# `$` also matches before a final newline, and "ICML2026\n" would name a second folder.
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
SAFE_PAPER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")


def is_safe_paper_id(value: str) -> bool:
    return bool(SAFE_PAPER_ID.match(value)) and ".." not in value
