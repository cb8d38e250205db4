"""Settings: what ``config.yaml`` may say, as pydantic models (``config_file`` reads the file).

Every section but ``venues`` and ``fields`` has defaults, so a minimal file works.  A venue's
``source`` is one of seven types, each with its own keys (a discriminated union on ``type``).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from .errors import MissingAPIKeyError, UnknownVenue
from .ids import SAFE_ID

CONFIG_ENV = "SUMMARIZER_CONFIG"
DEFAULT_CONFIG_NAME = "config.yaml"


def _check_safe_id(value: str) -> str:
    if not SAFE_ID.match(value):
        raise ValueError("use letters, digits, '.', '_' or '-' (it names a folder)")
    return value


SafeId = Annotated[str, AfterValidator(_check_safe_id)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


class Price(_Section):
    input: float = Field(0.15, ge=0)
    output: float = Field(0.60, ge=0)


class LLMSettings(_Section):
    base_url: str = "https://api.openai.com/v1"
    api_key_env: str = "OPENAI_API_KEY"
    model: str = "gpt-4o-mini"
    temperature: float = Field(0.2, ge=0, le=2)
    structured_output: Literal["auto", "json_schema", "json_object"] = "auto"
    max_concurrency: int = Field(8, ge=1, le=256)
    requests_per_minute: int = Field(500, ge=1)
    tokens_per_minute: int = Field(200_000, ge=1)
    timeout_s: float = Field(120, gt=0)
    max_attempts: int = Field(4, ge=1, le=20)
    input_token_budget: int = Field(6000, ge=500)
    max_output_tokens: int = Field(1024, ge=64)
    price_per_million: Price = Field(default_factory=Price)
    # The Batch API path (`summarize --batch`): seconds between status polls, and its price as a
    # fraction of price_per_million (OpenAI, Qwen and Groq bill batches at half price).
    batch_poll_s: float = Field(60, gt=0)
    batch_price_factor: float = Field(0.5, ge=0, le=1)
    backoff_s: float = Field(1.0, ge=0)  # the longest first wait before a retry (jittered; doubles, at most 60 s)

    def api_key(self) -> str:
        """The key, read from the environment only when a call needs it."""
        key = os.environ.get(self.api_key_env, "").strip()
        if not key:
            raise MissingAPIKeyError(self.api_key_env)
        return key


class NotesSettings(_Section):
    """Per-paper notes (`summarizer notes`): what the model reads of a paper and may answer, and the ratings."""

    input_token_budget: int = Field(12_000, ge=1_000)  # paper text per note (the summary reads llm.input_token_budget)
    max_output_tokens: int = Field(6_000, ge=1_000)  # a note is ~2,000-3,000 tokens; the hard cap is 11,000 characters
    ratings: bool = False  # a 1-5 score per dimension with a one-line reason (the reference's are not informative)


class ArxivSettings(_Section):
    api_url: str = "https://export.arxiv.org/api/query"
    delay_s: float = Field(3, ge=0)


class OpenReviewSettings(_Section):
    api_url: str = "https://api2.openreview.net"
    username_env: str = "OPENREVIEW_USERNAME"  # the account is read from these variables, never from a file
    password_env: str = "OPENREVIEW_PASSWORD"


class HttpSettings(_Section):
    """Every host the fetch stage talks to: listings, detail pages, PDFs, the arXiv API."""

    contact: str = ""  # an e-mail address for the User-Agent, so a host can reach you instead of blocking you
    min_interval_s: float = Field(1.0, ge=0)  # at most one request per host this often (listings, pages, PDFs)
    timeout_s: float = Field(60, gt=0)  # per read: connecting, and each wait for the next bytes
    download_deadline_s: float = Field(300, gt=0)  # a whole download (a PDF, a listing), its retries included
    max_pdf_mb: float = Field(50, gt=0)
    pdf_concurrency: int = Field(2, ge=1, le=32)
    retry_attempts: int = Field(4, ge=1, le=20)  # tries per request, the first included
    backoff_s: float = Field(2.0, ge=0)  # the first wait before a retry; each further wait doubles (at most 60 s)


class ExtractSettings(_Section):
    """Reading one PDF's text, in a worker process: bounds no real paper reaches, so a hostile file fails alone."""

    max_pages: int = Field(300, ge=1)
    max_chars: int = Field(2_000_000, ge=1_000)  # characters of text over the whole PDF
    timeout_s: float = Field(60, gt=0)
    memory_mb: int = Field(400, ge=200)  # the worker's address space (RLIMIT_AS), pymupdf and Python included


class HotTopics(_Section):
    top_k: int = Field(3, ge=0)
    min_count: int = Field(2, ge=1)


class SiteSettings(_Section):
    title: str = "论文解读"
    hot_topics: HotTopics = Field(default_factory=HotTopics)


class PathSettings(_Section):
    cache: Path = Path("cache")
    outputs: Path = Path("outputs")
    prompts: Path | None = None


class _Source(_Section):
    match_arxiv: bool = False  # find each paper's arXiv version (verified close title match)


class ListSource(_Source):
    """A file of the venue's papers: ``.txt`` (arXiv ids, URLs or titles), ``.csv`` or ``.jsonl``."""

    type: Literal["list"]
    path: Path


class ArxivQuerySource(_Source):
    type: Literal["arxiv_query"]
    query: str
    max_results: int = Field(2000, ge=1, le=30000)
    include_unconfirmed: bool = False  # keep "under review" / "submitted to" results too


class OpenReviewSource(_Source):
    type: Literal["openreview"]
    openreview_venue: str  # OpenReview's venue id, e.g. ICLR.cc/2026/Conference


class VirtualSiteSource(_Source):
    type: Literal["virtual_site"]
    url: str  # …/static/virtual/data/iclr-2026-orals-posters.json


class AclAnthologySource(_Source):
    type: Literal["acl_anthology"]
    volumes: list[str] = Field(min_length=1)  # e.g. [2026.acl-long, 2026.findings-acl]
    data_dir: Path | None = None  # default: the package's own clone of the Anthology data


class CvfSource(_Source):
    type: Literal["cvf"]
    conference: str  # e.g. CVPR2026
    url: str | None = None  # the listing's base (default: openaccess.thecvf.com)
    abstracts: bool = True  # read each paper page for its abstract (one request per paper)


class PmlrSource(_Source):
    type: Literal["pmlr"]
    volume: int | None = Field(None, ge=1)  # e.g. 267
    url: str | None = None  # a citeproc.yaml of the volume, instead of the volume's own

    @model_validator(mode="after")
    def _volume_or_url(self) -> PmlrSource:
        if self.volume is None and not self.url:
            raise ValueError("a 'pmlr' source needs 'volume' (e.g. 267) or 'url'")
        return self


Source = Annotated[
    ListSource | ArxivQuerySource | OpenReviewSource | VirtualSiteSource | AclAnthologySource | CvfSource | PmlrSource,
    Field(discriminator="type"),
]


class _Named(_Section):
    """A venue or a field: an id (a folder name), a display name (the id when absent), an emoji."""

    id: SafeId
    name: str = ""
    emoji: str = ""

    @model_validator(mode="after")
    def _name_defaults_to_id(self) -> Self:
        if not self.name:
            self.name = self.id
        return self


class Venue(_Named):
    source: Source | None = None


class FieldSpec(_Named):
    description: str = ""


class TagSettings(_Section):
    vocabulary: list[str] = Field(default_factory=list)
    aliases: dict[str, str] = Field(default_factory=dict)
    _lookup: dict[str, str] | None = PrivateAttr(default=None)

    def canonical(self, key: str) -> str | None:
        """The tag a casefolded tag stands for: an alias's target, else the vocabulary's spelling."""
        if self._lookup is None:  # built once: every tag of every record is looked up on a build
            lookup: dict[str, str] = {}
            for word in self.vocabulary:
                lookup.setdefault(word.casefold(), word)
            for alias, target in self.aliases.items():
                lookup[unicodedata.normalize("NFKC", alias).strip().casefold()] = target
            self._lookup = lookup
        return self._lookup.get(key)


class Settings(_Section):
    llm: LLMSettings = Field(default_factory=LLMSettings)
    notes: NotesSettings = Field(default_factory=NotesSettings)
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings)
    openreview: OpenReviewSettings = Field(default_factory=OpenReviewSettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    site: SiteSettings = Field(default_factory=SiteSettings)
    paths: PathSettings = Field(default_factory=PathSettings)
    venues: list[Venue]
    fields: list[FieldSpec] = Field(min_length=1)
    tags: TagSettings = Field(default_factory=TagSettings)

    # Where the file came from, and the moved keys it still uses; not keys of the file.
    _config_file: Path = PrivateAttr(default=Path(DEFAULT_CONFIG_NAME))
    _deprecations: list[str] = PrivateAttr(default_factory=list)

    @property
    def config_file(self) -> Path:
        return self._config_file

    @property
    def deprecations(self) -> list[str]:
        """One line per moved key the file still uses (read as before, for one release)."""
        return list(self._deprecations)

    def place(self, config_file: Path, deprecations: list[str]) -> None:
        """Where the file came from (absolute), and the moved keys it uses."""
        self._config_file = config_file
        self._deprecations = list(deprecations)

    @model_validator(mode="after")
    def _ids_unique(self) -> Settings:
        for name, items in (("venues", self.venues), ("fields", self.fields)):
            seen: set[str] = set()
            for item in items:
                if item.id in seen:
                    raise ValueError(f"{name}: id {item.id!r} appears twice")
                seen.add(item.id)
        return self

    # -- lookups ---------------------------------------------------------
    def venue(self, venue_id: str) -> Venue:
        for venue in self.venues:
            if venue.id == venue_id:
                return venue
        known = ", ".join(v.id for v in self.venues) or "none"
        raise UnknownVenue(f"unknown venue {venue_id!r} (configured: {known})")

    def field_ids(self) -> list[str]:
        return [f.id for f in self.fields]

    def field(self, field_id: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.id == field_id), None)

    @property
    def cache_dir(self) -> Path:
        return self.paths.cache

    @property
    def outputs_dir(self) -> Path:
        return self.paths.outputs

    @property
    def prompts_dir(self) -> Path:
        assert self.paths.prompts is not None  # filled in by load_settings
        return self.paths.prompts


def shipped_prompts_dir() -> Path:
    """The prompts/ folder shipped with the project (source tree or wheel)."""
    package = Path(__file__).resolve().parents[1]  # src/summarizer in a checkout, summarizer/ in a wheel
    checkout = package.parents[1] / "prompts"
    for candidate in (checkout, package / "prompts"):
        if candidate.is_dir():
            return candidate
    return checkout
