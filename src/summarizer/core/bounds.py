"""What a record's fields from outside may hold, one rule each, for every way a record comes in.

Each rule has two faces, so they cannot drift apart:

* ``check_*`` refuses (``ValueError`` with the reason): an import line is a person's file, and
  what it says is kept as it is or not at all (``review.import_lines``);
* ``fit_*`` makes a value the rule holds: a source's metadata is kept as far as it fits (cut to
  its bound, an unusable URL dropped, TeX that could put a link on a page defused), so what fetch
  stores always passes ``check_*``, and an export always imports again.

``fit_record`` fits every such field of a record; the fetch stage runs it before each save.  The
bounds themselves are ``core.limits``'s.
"""

from __future__ import annotations

import re

from . import limits
from .ids import parse_arxiv_id
from .records import Record
from .sanitize import clean_line, clean_text
from .unsafe_tex import unsafe_tex_commands, without_unsafe_tex

HTTP_URL = re.compile(r"^https?://\S+\Z", re.IGNORECASE)


def _shown(value: str) -> str:
    text = repr(value)
    return text if len(text) <= limits.SHOWN_VALUE else text[: limits.SHOWN_VALUE] + "…"


# -- URLs ------------------------------------------------------------------------------------------


def check_url(value: str | None) -> str | None:
    """An http(s) URL without spaces, at most ``limits.URL`` characters; None for none."""
    if value in (None, ""):
        return None
    value = value.strip()
    if len(value) > limits.URL or not HTTP_URL.match(value):
        raise ValueError(f"not an http(s) URL: {_shown(value)}")
    return value


def fit_url(value: str | None) -> str | None:
    """The URL ``check_url`` keeps, or None (a relative, ``ftp:`` or ``javascript:`` link is no link)."""
    try:
        return check_url(clean_line(value or ""))
    except ValueError:
        return None


# -- arXiv ids -------------------------------------------------------------------------------------


def check_arxiv_id(value: str | None) -> str | None:
    """An arXiv id as written (``2501.12948``, ``2501.12948v2``, ``hep-th/9901001``, an abs or pdf URL) made
    canonical; None for none."""
    if value in (None, ""):
        return None
    parsed = parse_arxiv_id(value)
    if parsed is None:
        raise ValueError(f"not an arXiv id: {_shown(value)}")
    return parsed


# -- one-line fields: ids, labels, names, titles --------------------------------------------------


def check_oneline(value: str | None, limit: int) -> str | None:
    """A one-line field (controls removed, breaks made spaces) of at most ``limit`` characters; None when empty."""
    if value is None:
        return None
    value = clean_line(value)
    if len(value) > limit:
        raise ValueError(f"{len(value)} characters (at most {limit})")
    return value or None


def fit_oneline(value: str | None, limit: int) -> str | None:
    return clean_line(clean_line(value or "")[:limit]) or None


def check_title(value: str) -> str:
    value = check_oneline(value, limits.TITLE) or ""
    if not value:
        raise ValueError("the title is empty")
    unsafe = unsafe_tex_commands(value)
    if unsafe:
        raise ValueError(f"unsafe TeX {', '.join(unsafe)}")
    return value


def fit_title(value: str | None) -> str:
    """The title cut to its bound (then defused: a cut can end on ``\\href``), unsafe TeX made plain words."""
    return clean_line(without_unsafe_tex(fit_oneline(value, limits.TITLE) or ""))


def check_names(names: list[str] | None) -> list[str] | None:
    if names is None:
        return None
    kept = [name for name in map(clean_line, names) if name]
    if len(kept) > limits.AUTHORS:
        raise ValueError(f"{len(kept)} names (at most {limits.AUTHORS})")
    long = next((name for name in kept if len(name) > limits.AUTHOR), None)
    if long is not None:
        raise ValueError(f"a name of {len(long)} characters (at most {limits.AUTHOR})")
    return kept


def fit_names(names: list[str]) -> list[str]:
    return [name for name in (fit_oneline(n, limits.AUTHOR) for n in names) if name][: limits.AUTHORS]


# -- multi-line text --------------------------------------------------------------------------------


def check_text(value: str | None, limit: int) -> str | None:
    """A multi-line text (line breaks kept, other controls removed), at most ``limit`` characters once trimmed."""
    if value is None:
        return None
    value = clean_text(value).strip()
    if len(value) > limit:
        raise ValueError(f"{len(value)} characters (at most {limit})")
    return value


def fit_text(value: str | None, limit: int) -> str | None:
    return clean_text(value or "").strip()[:limit].strip() or None


# -- a whole record ------------------------------------------------------------------------------


def fit_record(record: Record) -> Record:
    """Every field an export writes from the paper's metadata, fitted to the rules import checks."""
    record.title = fit_title(record.title) or record.id
    record.authors = fit_names(record.authors)
    record.abstract = fit_text(record.abstract, limits.ABSTRACT)
    record.url = fit_url(record.url)
    record.source_type = fit_oneline(record.source_type, limits.SOURCE_ID)
    record.source_id = fit_oneline(record.source_id, limits.SOURCE_ID)
    record.tier = fit_oneline(record.tier, limits.SOURCE_ID)
    return record
