"""Pages rendered again only when what they are made from changed.

Every page of the site is one jinja2 template given one context (``pages``, ``paper_page``).  A
page's fingerprint is a digest of that context (its bytes as pickle writes them: every value and its
type), the template's name, and the code that turns a context into text (every file of this package:
the templates and the modules that make the environment).  Whatever a page function puts in the
context is in the fingerprint — a value added to a page later is covered without being named here.

``.summarizer-rendered`` beside the pages keeps, for each page, its fingerprint, what the build
derived from its text (the search's digest of it), and the size and modification time its file had
when the build left it.  A later build gives each page function the page's fingerprint through the
environment (``PageEnvironment``); the template, asked to render a context of that same fingerprint
for a file still as it was left, returns ``UNCHANGED`` instead: the page is neither rendered nor read.
Only a page that is exactly its one template's text gets a fingerprint; a page function that returns
anything else (more than one template, or text it changed) is rendered every time.  The cache only
ever saves work: a missing, damaged or edited cache file, or a page file touched since, means the
page is rendered and compared as before.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from summarizer.core.fsutil import write_if_changed

CACHE_FILE = ".summarizer-rendered"
_HEADER = "# summarizer build: each page's fingerprint, derived digest, size and mtime (a cache; safe to delete)"


class _Unchanged(str):
    """The text a template returns in place of a page it did not render (compare by identity)."""


UNCHANGED = _Unchanged("")


@dataclass(frozen=True)
class Kept:
    """A page as a build left it."""

    fingerprint: str
    derived: str
    size: int
    mtime_ns: int


@dataclass
class _Slot:
    """The page being made: its fingerprint last time (when its file is as left), what its templates did."""

    known: str | None
    renders: int = 0
    fingerprint: str | None = None
    skipped: bool = False
    output: str | None = None  # the text the template rendered


@cache
def code_digest() -> str:
    """Every file of this package (templates, modules): what turns a page's context into its text."""
    digest = hashlib.sha256(jinja2.__version__.encode())
    package = Path(__file__).resolve().parent
    for path in sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def fingerprint(template: str, context: dict[str, Any]) -> str | None:
    """The digest of a page's template and context; None when the context cannot be pickled."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.fast = True  # no memo: equal values give equal bytes, whichever objects hold them
    try:
        pickler.dump(context)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return None
    digest = hashlib.sha256(code_digest().encode() + b"\0" + template.encode() + b"\0")
    digest.update(buffer.getbuffer())
    return digest.hexdigest()[:32]


class PageTemplate(jinja2.Template):
    """A template that, for the page a build is making, skips rendering a context it rendered last time."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        slot = getattr(self.environment, "page_cache", None)
        slot = slot.slot if slot is not None else None
        if slot is None:
            return super().render(*args, **kwargs)
        context = dict(*args, **kwargs)
        slot.renders += 1
        slot.fingerprint = fingerprint(self.name or "", context)
        if slot.renders == 1 and slot.fingerprint is not None and slot.fingerprint == slot.known:
            slot.skipped = True
            return UNCHANGED
        slot.output = super().render(context)
        return slot.output


class PageEnvironment(jinja2.Environment):
    template_class = PageTemplate
    page_cache: PageCache | None = None


class PageCache:
    """The fingerprints of one site folder's pages: read at the start of a build, written at its end."""

    def __init__(self, root: Path):
        self.root = root
        self.previous = _read(root / CACHE_FILE)
        self.kept: dict[str, Kept] = {}
        self.fresh: dict[str, tuple[str, str]] = {}  # rel -> (fingerprint, derived) of pages written this build
        self.slot: _Slot | None = None

    def make(self, rel: str, make: Callable[[], str], derive: Callable[[str], str]) -> tuple[str | None, str]:
        """``(text, derived)`` of a page; text None when the page is as the last build left it."""
        known = self.previous.get(rel)
        as_left = known is not None and _stat(self.root / rel) == (known.size, known.mtime_ns)
        slot = self.slot = _Slot(known.fingerprint if as_left and known is not None else None)
        try:
            text = make()
        finally:
            self.slot = None
        if slot.skipped and text is UNCHANGED and slot.renders == 1 and known is not None:
            self.kept[rel] = known
            return None, known.derived
        if slot.skipped:  # the page function did more than return its template's text
            text = make()
        derived = derive(text)
        if slot.renders == 1 and text is slot.output and slot.fingerprint is not None:
            self.fresh[rel] = (slot.fingerprint, derived)  # the page is its template's text, as it came
        return text, derived

    def save(self) -> None:
        """Record the pages of this build (call it once their files are in place)."""
        lines = [_HEADER]
        for rel in sorted({*self.kept, *self.fresh}):
            kept = self.kept.get(rel)
            if kept is None:
                stat = _stat(self.root / rel)
                if stat is None:
                    continue
                fingerprint_, derived = self.fresh[rel]
                kept = Kept(fingerprint_, derived, *stat)
            lines.append(f"{rel}\t{kept.fingerprint}\t{kept.derived}\t{kept.size}\t{kept.mtime_ns}")
        write_if_changed(self.root / CACHE_FILE, ("\n".join(lines) + "\n").encode("utf-8"))


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def _read(path: Path) -> dict[str, Kept]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    return dict(_entries(text))


def _entries(text: str) -> Iterator[tuple[str, Kept]]:
    for line in text.split("\n"):
        parts = line.split("\t")
        if len(parts) != 5 or line.startswith("#"):
            continue
        rel, fingerprint_, derived, size, mtime = parts
        if size.isdigit() and mtime.isdigit():
            yield rel, Kept(fingerprint_, derived, int(size), int(mtime))
