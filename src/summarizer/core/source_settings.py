"""A venue's ``source``: where its accepted papers come from, one model per type (a union tagged by ``type``).

Each type validates its own keys, so a misspelt or foreign key is an error naming the type's key path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator

from .config_base import Section


class _Source(Section):
    match_arxiv: bool = False
    """Find each paper's arXiv version (a verified close title match), to link it and fill what the source lacks."""


class ListSource(_Source):
    """A file of the venue's papers: ``.txt`` (arXiv ids, URLs or titles), ``.csv`` or ``.jsonl``."""

    type: Literal["list"]
    """`list`: a file of the venue's papers."""
    path: Path
    """A `.txt` (arXiv ids, abs/pdf URLs or titles, one a line), `.csv` or `.jsonl`; relative to the config."""


class ArxivQuerySource(_Source):
    type: Literal["arxiv_query"]
    """`arxiv_query`: an arXiv API search."""
    query: str
    """The search, e.g. `co:"AAAI 2026"`."""
    max_results: int = Field(2000, ge=1, le=30000)
    """Results read at most."""
    include_unconfirmed: bool = False
    """Keep "under review" and "submitted to" results too."""


class OpenReviewSource(_Source):
    type: Literal["openreview"]
    """`openreview`: a venue's accepted papers (needs a login: see `openreview`)."""
    openreview_venue: str
    """OpenReview's venue id, e.g. `ICLR.cc/2026/Conference`."""


class VirtualSiteSource(_Source):
    type: Literal["virtual_site"]
    """`virtual_site`: a conference site's orals-and-posters JSON."""
    url: str
    """e.g. `https://iclr.cc/static/virtual/data/iclr-2026-orals-posters.json`."""


class AclAnthologySource(_Source):
    type: Literal["acl_anthology"]
    """`acl_anthology`: ACL Anthology volumes (the `acl` extra)."""
    volumes: list[str] = Field(min_length=1)
    """e.g. `[2026.acl-long, 2026.findings-acl]`."""
    data_dir: Path | None = None
    """A copy of the Anthology's `data/` folder (default: the package's own clone)."""


class CvfSource(_Source):
    type: Literal["cvf"]
    """`cvf`: the CVF open-access listing."""
    conference: str
    """e.g. `CVPR2026`."""
    url: str | None = None
    """The listing's base (default: openaccess.thecvf.com)."""
    abstracts: bool = True
    """Read each paper's page for its abstract (one request per paper)."""


class PmlrSource(_Source):
    type: Literal["pmlr"]
    """`pmlr`: a PMLR volume."""
    volume: int | None = Field(None, ge=1)
    """e.g. `267` (ICML 2025)."""
    url: str | None = None
    """A `citeproc.yaml` of the volume, instead of the volume's own."""

    @model_validator(mode="after")
    def _volume_or_url(self) -> PmlrSource:
        if self.volume is None and not self.url:
            raise ValueError("a 'pmlr' source needs 'volume' (e.g. 267) or 'url'")
        return self


Source = Annotated[
    ListSource | ArxivQuerySource | OpenReviewSource | VirtualSiteSource | AclAnthologySource | CvfSource | PmlrSource,
    Field(discriminator="type"),
]
