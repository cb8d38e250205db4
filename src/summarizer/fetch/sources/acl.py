"""The ``acl_anthology`` source (ACL, EMNLP, NAACL) through the ``acl-anthology`` package.

``source: {type: acl_anthology, volumes: ["2026.acl-long", "2026.findings-acl"], data_dir: …}``.
``data_dir`` is a copy of the Anthology's ``data/`` folder (``xml/<collection>.xml``); without it
the package's own shallow clone of github.com/acl-org/acl-anthology is used (about 120 MB on first
use, ``git pull`` afterwards).  The tier is the volume's track (``long``, ``short``, ``findings`` …);
frontmatter is not a paper.
"""

from __future__ import annotations

import warnings
from typing import Any

from summarizer.core.errors import MissingExtra, SourceError
from summarizer.core.source_settings import AclAnthologySource

from .base import Entry, Gathered, SourceContext, native_entry


def gather(ctx: SourceContext, source: AclAnthologySource, limit: int | None) -> Gathered:
    anthology = _open(source)
    entries: list[Entry] = []
    for volume_id in source.volumes:
        try:
            volume = anthology.get_volume(volume_id)
        except _data_errors() as exc:
            problem = f"{type(exc).__name__}: {exc}"
            raise SourceError(f"ACL Anthology volume {volume_id!r} could not be read ({problem})") from exc
        if volume is None:
            raise SourceError(f"ACL Anthology has no volume {volume_id!r} (ids look like 2026.acl-long)")
        entries.extend(
            _entry(paper, tier_of_volume(volume_id)) for paper in volume.papers() if not paper.is_frontmatter
        )
    return Gathered(entries)


def _data_errors() -> tuple[type[BaseException], ...]:
    """What the package raises for a bad, missing or unreadable collection (its own errors are ValueErrors)."""
    from acl_anthology.exceptions import AnthologyException
    from git.exc import GitError
    from lxml.etree import LxmlError

    return (AnthologyException, ValueError, KeyError, OSError, LxmlError, GitError, ExceptionGroup)


def _open(source: AclAnthologySource) -> Any:
    try:
        from acl_anthology import Anthology
    except ImportError as exc:
        raise MissingExtra("an acl_anthology source", "acl") from exc

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if source.data_dir is not None:
                if not (source.data_dir / "xml").is_dir():
                    raise SourceError(f"{source.data_dir} is not an Anthology data folder (no xml/ inside)")
                return Anthology(datadir=source.data_dir)
            return Anthology.from_repo()
    except _data_errors() as exc:
        raise SourceError(f"the ACL Anthology data could not be opened ({type(exc).__name__}: {exc})") from exc


def tier_of_volume(volume_id: str) -> str:
    """``2026.acl-long`` → ``long``; ``2026.findings-acl`` → ``findings``."""
    collection, _, volume = volume_id.partition("-")
    return "findings" if ".findings" in collection else (volume or collection)


def _entry(paper: Any, tier: str) -> Entry:
    pdf = paper.pdf.url if getattr(paper, "pdf", None) else None
    abstract = paper.abstract.as_text() if paper.abstract else ""
    return native_entry(
        "acl_anthology",
        str(paper.full_id),
        title=paper.title.as_text(),
        authors=[a.name.as_first_last() for a in paper.authors],
        abstract=abstract,
        url=str(paper.web_url),
        pdf_url=pdf,
        tier=tier,
    )
