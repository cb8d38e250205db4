"""Settings: what ``config.yaml`` may say, as pydantic models (``config_file`` reads the file).

Every section but ``venues`` and ``fields`` has defaults, so a minimal file works.  A venue's
``source`` is one of seven types, each with its own keys (a discriminated union on ``type``).
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, Field, PrivateAttr, model_validator

from .config_base import Section
from .errors import MissingAPIKeyError, UnknownVenue
from .ids import SAFE_ID
from .source_settings import (
    Source,
)

CONFIG_ENV = "SUMMARIZER_CONFIG"
DEFAULT_CONFIG_NAME = "config.yaml"


def _check_safe_id(value: str) -> str:
    if not SAFE_ID.match(value):
        raise ValueError("use letters, digits, '.', '_' or '-' (it names a folder)")
    return value


SafeId = Annotated[str, AfterValidator(_check_safe_id)]


class Price(Section):
    input: float = Field(0.15, ge=0)
    """USD per million prompt (input) tokens."""
    output: float = Field(0.60, ge=0)
    """USD per million completion (output) tokens."""


class LLMSettings(Section):
    base_url: str = "https://api.openai.com/v1"
    """Any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, Qwen, Kimi, GLM, vLLM, Ollama …)."""
    api_key_env: str = "OPENAI_API_KEY"
    """The environment variable that holds the key; the key is read from it only when a call needs it."""
    model: str = "gpt-4o-mini"
    """The model name the provider knows."""
    temperature: float = Field(0.2, ge=0, le=2)
    """Sampling temperature (a reasoning model that refuses it gets its default)."""
    structured_output: Literal["auto", "json_schema", "json_object"] = "auto"
    """`auto` asks for a strict JSON schema and steps down to `json_object` with the schema when the server refuses or
    ignores it (docs/providers.md); `json_schema` or `json_object` forces one."""
    max_concurrency: int = Field(8, ge=1, le=256)
    """Requests in flight at once."""
    requests_per_minute: int = Field(500, ge=1)
    """Your account's request limit: requests are paced to stay under it."""
    tokens_per_minute: int = Field(200_000, ge=1)
    """Your account's token limit: requests are paced to stay under it."""
    timeout_s: float = Field(120, gt=0)
    """Seconds to wait for one answer."""
    max_attempts: int = Field(4, ge=1, le=20)
    """Calls per paper at most, re-asks and retries included."""
    input_token_budget: int = Field(6000, ge=500)
    """Tokens of the paper the model reads: abstract, introduction, conclusion first."""
    max_output_tokens: int = Field(1024, ge=64)
    """The answer's token cap (raise it for reasoning models, e.g. 4096)."""
    price_per_million: Price = Field(default_factory=Price)
    """Prices for the cost shown by `summarize` and `status`."""
    batch_poll_s: float = Field(60, gt=0)
    """`summarize --batch`: seconds between status polls."""
    batch_price_factor: float = Field(0.5, ge=0, le=1)
    """`summarize --batch`: its price as a share of `price_per_million` (OpenAI, Qwen, Groq: half price)."""
    backoff_s: float = Field(1.0, ge=0)
    """The longest first wait before a retry (jittered; doubles, at most 60 s)."""

    def api_key(self) -> str:
        """The key, read from the environment only when a call needs it."""
        key = os.environ.get(self.api_key_env, "").strip()
        if not key:
            raise MissingAPIKeyError(self.api_key_env)
        return key


class NotesSettings(Section):
    """Per-paper notes (`summarizer notes`): what the model reads of a paper and may answer, and the ratings."""

    input_token_budget: int = Field(12_000, ge=1_000)
    """Paper text a note's model call reads, in tokens (a summary reads `llm.input_token_budget`)."""
    max_output_tokens: int = Field(6_000, ge=1_000)
    """The completion cap of a note's call (a note is about 2,000-3,000 tokens; 11,000 characters at most)."""
    ratings: bool = False
    """A 1-5 score per dimension with a one-line reason (the reference's ratings are not informative)."""


class ArxivSettings(Section):
    api_url: str = "https://export.arxiv.org/api/query"
    """The arXiv API (a mirror may stand in)."""
    delay_s: float = Field(3, ge=0)
    """Seconds between arXiv API requests (arXiv asks for 3)."""


class OpenReviewSettings(Section):
    api_url: str = "https://api2.openreview.net"
    """OpenReview's API v2."""
    username_env: str = "OPENREVIEW_USERNAME"
    """The variable holding the OpenReview login (read from the environment, never from a file)."""
    password_env: str = "OPENREVIEW_PASSWORD"
    """The variable holding the OpenReview password."""


class HttpSettings(Section):
    """Every host the fetch stage talks to: listings, detail pages, PDFs, the arXiv API."""

    contact: str = ""
    """An e-mail address for the User-Agent, so a host can reach you instead of blocking you."""
    min_interval_s: float = Field(1.0, ge=0)
    """At most one request per host this often (listings, pages, PDFs)."""
    timeout_s: float = Field(60, gt=0)
    """Per read: connecting, and each wait for the next bytes."""
    download_deadline_s: float = Field(300, gt=0)
    """A whole download (a PDF, a listing), its retries included."""
    max_pdf_mb: float = Field(50, gt=0)
    """A PDF larger than this is refused (the paper is summarised from its abstract)."""
    pdf_concurrency: int = Field(2, ge=1, le=32)
    """PDF downloads at once (each host still paced by `min_interval_s`)."""
    retry_attempts: int = Field(4, ge=1, le=20)
    """Tries per request, the first included."""
    backoff_s: float = Field(2.0, ge=0)
    """The first wait before a retry; each further wait doubles (at most 60 s)."""


class ExtractSettings(Section):
    """Reading one PDF's text, in a worker process: bounds no real paper reaches, so a hostile file fails alone."""

    max_pages: int = Field(300, ge=1)
    """Pages read of one PDF at most."""
    max_chars: int = Field(2_000_000, ge=1_000)
    """Characters of text over the whole PDF at most."""
    timeout_s: float = Field(60, gt=0)
    """Seconds to read one PDF's text."""
    memory_mb: int = Field(400, ge=200)
    """The worker's address space (RLIMIT_AS), pymupdf and Python included."""


class HotTopics(Section):
    top_k: int = Field(3, ge=0)
    """Tags shown as a field's hot topics (0: none)."""
    min_count: int = Field(2, ge=1)
    """Papers a tag needs to be a hot topic."""


def _check_http_url(value: str | None) -> str | None:
    if value is not None and not re.fullmatch(r"https?://[^\s\"'<>]+", value):
        raise ValueError("give an http(s) URL")
    return value


HttpUrl = Annotated[str | None, AfterValidator(_check_http_url)]
# Folders at the site's root that are not venues: a venue of one of these names would write over them.
RESERVED_SITE_NAMES = frozenset({"tags", "search", "javascripts", "stylesheets", "assets", "pagefind", "search-index"})


class Palette(Section):
    """Material's palette: ``scheme`` default (light) or slate (dark); primary and accent colour names."""

    scheme: Literal["default", "slate"] = "default"
    """`default` (light) or `slate` (dark)."""
    primary: str = Field("indigo", pattern=r"^[a-z][a-z -]{0,30}$")
    """Material's primary colour name (indigo, teal, deep orange …)."""
    accent: str = Field("indigo", pattern=r"^[a-z][a-z -]{0,30}$")
    """Material's accent colour name."""


class Fonts(Section):
    """Google Fonts names: setting them makes every page load fonts from Google (off by default)."""

    text: str = Field(pattern=r"^[A-Za-z0-9 ]{1,60}$")
    """The Google font for the text."""
    code: str = Field("Roboto Mono", pattern=r"^[A-Za-z0-9 ]{1,60}$")
    """The Google font for code."""


class SiteSettings(Section):
    title: str = "论文解读"
    """The site's name, in its header and home page."""
    hot_topics: HotTopics = Field(default_factory=HotTopics)
    """The `🔥 高频主题` line of each field page."""
    # What a publisher sets in MkDocs, passed through to the written mkdocs.yml (docs/site.md, "Publish").
    site_url: HttpUrl = None
    """The published address: the sitemap, the feeds' absolute links, instant navigation."""
    repo_url: HttpUrl = None
    """The repository the site links to in its header."""
    repo_name: str | None = Field(None, max_length=100)
    """The repository's name shown beside that link."""
    copyright: str | None = Field(None, max_length=300)
    """The footer's copyright line."""
    palette: Palette = Field(default_factory=Palette)
    """Material's colour scheme and colours."""
    font: Fonts | None = None
    """Google Fonts to load (none: the system's fonts, nothing loaded from a third party)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """MkDocs' `extra` as is: analytics, social links."""
    extra_css: list[str] = Field(default_factory=list)
    """Style sheets: files under the site's docs/ folder, or URLs."""
    order: Literal["title", "tier", "import"] = "title"
    """A page's papers: by title, tier first (oral, spotlight, poster …, then title), or in the order they came."""
    mathjax: Literal["local", "cdn"] = "local"
    """local: MathJax served from the site itself (no request leaves it); cdn: from unpkg.com."""
    related: int = Field(5, ge=0, le=20)
    """Related papers listed on each paper page (0: none)."""
    tag_min_papers: int = Field(2, ge=1)
    """A tag gets a page when at least this many papers across the site hold it; a rarer tag shows as text."""


class PathSettings(Section):
    cache: Path = Path("cache")
    """PDFs, extracted text and model answers (safe to delete; re-runs then fetch and pay again)."""
    outputs: Path = Path("outputs")
    """Records (the editorial work: back it up), batch state, the sites."""
    prompts: Path | None = None
    """A prompts folder of your own (default: the shipped `prompts/`)."""


class _Named(Section):
    """A venue or a field: an id (a folder name), a display name (the id when absent), an emoji."""

    id: SafeId
    """Letters, digits, `.`, `_` or `-`: it names a folder and appears in URLs."""
    name: str = ""
    """The display name (default: the id)."""
    emoji: str = ""
    """Shown before the name."""

    @model_validator(mode="after")
    def _name_defaults_to_id(self) -> Self:
        if not self.name:
            self.name = self.id
        return self


class Venue(_Named):
    source: Source | None = None
    """Where its accepted papers come from (none: records arrive by `summarizer import`)."""


class FieldSpec(_Named):
    description: str = ""
    """What belongs in the field: the model picks a field by it, so tell neighbouring fields apart."""


class TagSettings(Section):
    vocabulary: list[str] = Field(default_factory=list)
    """The tags the model prefers (hot topics tally them)."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """Variants folded into a tag, e.g. `{大语言模型: LLM}`."""
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


class Settings(Section):
    llm: LLMSettings = Field(default_factory=LLMSettings)
    """The model provider."""
    notes: NotesSettings = Field(default_factory=NotesSettings)
    """Per-paper notes."""
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings)
    """arXiv's API."""
    openreview: OpenReviewSettings = Field(default_factory=OpenReviewSettings)
    """OpenReview's API and its login."""
    http: HttpSettings = Field(default_factory=HttpSettings)
    """Every host the fetch stage talks to: listings, pages, PDFs, the arXiv API."""
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    """Reading one PDF's text, in a worker process."""
    site: SiteSettings = Field(default_factory=SiteSettings)
    """The published site."""
    paths: PathSettings = Field(default_factory=PathSettings)
    """Where files go; relative paths are relative to the config file's folder."""
    venues: list[Venue]
    """The venues: each a folder of records and a section of the site (required; may be empty)."""
    fields: list[FieldSpec] = Field(min_length=1)
    """The fields (the sections of the site): at least one."""
    tags: TagSettings = Field(default_factory=TagSettings)
    """The tag vocabulary and its aliases."""
    stand_ins: Literal["none", "demo"] = "none"
    """Who answers for arXiv and the model provider: `none`, the hosts this file names; `demo`, the demo's offline
    loopback stand-ins, which serve the fictional papers of the `papers.yaml` beside this file and replay their
    recorded answers, with no key (the demo's own config says `demo`; a project of your own keeps `none`)."""

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
        taken = sorted(v.id for v in self.venues if v.id.casefold() in RESERVED_SITE_NAMES)
        if taken:
            raise ValueError(f"venues: id {taken[0]!r} names a folder of the site itself; choose another")
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
