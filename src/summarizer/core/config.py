"""Settings: config.yaml loaded into pydantic models.

Every section but ``venues`` and ``fields`` has defaults, so a minimal file
works.  Relative paths resolve against the folder of the config file.  Any
mistake (unknown key, wrong type, missing file) becomes a ``ConfigError``
naming the file and the key path, e.g. ``llm.max_concurency: unknown key``.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from .errors import ConfigError, MissingAPIKeyError, UnknownVenue
from .ids import SAFE_ID
from .wording import describe, key_path, ordered_errors, validation_problems

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
    timeout_s: float = Field(60, gt=0)
    max_pdf_mb: float = Field(50, gt=0)
    pdf_concurrency: int = Field(2, ge=1, le=32)
    retry_attempts: int = Field(4, ge=1, le=20)  # tries per request, the first included
    backoff_s: float = Field(2.0, ge=0)  # the first wait before a retry; each further wait doubles (at most 60 s)


# Keys that moved, still read for one release: old place -> new place.
MOVED_KEYS = {
    ("arxiv", "timeout_s"): ("http", "timeout_s"),
    ("arxiv", "max_pdf_mb"): ("http", "max_pdf_mb"),
    ("arxiv", "pdf_concurrency"): ("http", "pdf_concurrency"),
}


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
    arxiv: ArxivSettings = Field(default_factory=ArxivSettings)
    openreview: OpenReviewSettings = Field(default_factory=OpenReviewSettings)
    http: HttpSettings = Field(default_factory=HttpSettings)
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


def find_config_file(explicit: str | os.PathLike[str] | None) -> Path:
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(CONFIG_ENV)
    if from_env:
        return Path(from_env)
    return Path(DEFAULT_CONFIG_NAME)


SOURCE_TYPES = {"list", "arxiv_query", "openreview", "virtual_site", "acl_anthology", "cvf", "pmlr"}


def _every_problem(exc: ValidationError, shown: str) -> ConfigError:
    """One ConfigError naming every problem with its key path, so one edit fixes them all."""
    problems = validation_problems(exc, top="top level", special=_source_problem)
    first = ordered_errors(exc)[0]
    if len(problems) == 1:
        key, _, message = problems[0].partition(": ")
        return ConfigError(message, file=shown, key=key)
    error = ConfigError(f"{len(problems)} problems: " + "; ".join(problems), file=shown)
    error.key = key_path(_untagged(first["loc"])) or None
    return error


def _untagged(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """A source's key path without pydantic's step into the tagged member (``source.list.path`` → ``source.path``)."""
    return tuple(part for i, part in enumerate(loc) if not (i and loc[i - 1] == "source" and part in SOURCE_TYPES))


def _source_problem(error: Any, key: str) -> str | None:
    """A source's problem in the words of its type: ``venues[0].source: a 'list' source needs 'path'``."""
    loc = error["loc"]
    at = next((i for i, part in enumerate(loc[:-1]) if part == "source" and loc[i + 1] in SOURCE_TYPES), None)
    if at is None:
        return None
    kind, rest = loc[at + 1], loc[at + 2 :]
    where = key_path(loc[: at + 1])
    if error["type"] == "missing" and len(rest) == 1:
        return f"{where}: a '{kind}' source needs '{rest[0]}'"
    return f"{key_path(_untagged(loc))}: {describe(error)}"


def _resolve(base: Path, path: Path) -> Path:
    return path if path.is_absolute() else (base / path)


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Load and validate a config file; raise ConfigError on any problem."""
    config_file = find_config_file(path)
    shown = str(config_file)
    raw = _read_yaml(config_file, shown)
    deprecations = _moved_keys(raw)
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as exc:
        raise _every_problem(exc, shown) from exc
    settings._config_file = config_file.resolve()
    settings._deprecations = deprecations
    _resolve_paths(settings, settings._config_file.parent, shown)
    return settings


def _read_yaml(config_file: Path, shown: str) -> dict[str, Any]:
    try:
        text = config_file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError("config file not found (use --config PATH or SUMMARIZER_CONFIG)", file=shown) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read the config file: {exc.strerror}", file=shown) from exc
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} on line {line}): save the file as UTF-8",
            file=shown,
        ) from exc
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"not valid YAML{where}: {problem}", file=shown) from exc
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError("the top level must be a mapping of sections (llm, venues, fields, …)", file=shown)
    return raw


def _moved_keys(raw: dict[str, Any]) -> list[str]:
    """Keys that moved, taken from their old place (in ``raw``); one deprecation line for each."""
    said: list[str] = []
    for (section, key), (new_section, new_key) in MOVED_KEYS.items():
        old = raw.get(section)
        if isinstance(old, dict) and key in old:
            new = raw.setdefault(new_section, {})
            if isinstance(new, dict):
                new.setdefault(new_key, old.pop(key))
                said.append(
                    f"{section}.{key} is now {new_section}.{new_key}: move it (the old key goes in the next release)"
                )
    for i, venue in enumerate(raw.get("venues") or []):
        source = venue.get("source") if isinstance(venue, dict) else None
        if isinstance(source, dict) and source.get("type") == "openreview" and "venue_id" in source:
            source.setdefault("openreview_venue", source.pop("venue_id"))
            said.append(
                f"venues[{i}].source.venue_id is now openreview_venue: rename it (the old key goes in the next release)"
            )
    return said


def _resolve_paths(settings: Settings, base: Path, shown: str) -> None:
    """Relative paths in the file are relative to its folder."""
    settings.paths.cache = _resolve(base, settings.paths.cache)
    settings.paths.outputs = _resolve(base, settings.paths.outputs)
    settings.paths.prompts = _resolve(base, settings.paths.prompts) if settings.paths.prompts else shipped_prompts_dir()
    if not settings.paths.prompts.is_dir():
        raise ConfigError(f"prompts folder not found: {settings.paths.prompts}", file=shown, key="paths.prompts")
    for venue in settings.venues:
        if isinstance(venue.source, ListSource):
            # Checked when the venue is fetched: one missing list must not stop work on the others.
            venue.source.path = _resolve(base, venue.source.path)
        elif isinstance(venue.source, AclAnthologySource) and venue.source.data_dir is not None:
            venue.source.data_dir = _resolve(base, venue.source.data_dir)
