"""Reading ``config.yaml``: the file → ``Settings``, every problem in one line naming the file and the key.

Relative paths resolve against the folder of the config file.  Keys that moved (``MOVED_KEYS``,
an OpenReview source's ``venue_id``) are still read for one release, and ``Settings.deprecations``
says so, a line each.  Any mistake (unknown key, wrong type, missing file) becomes a
``ConfigError`` naming the file and the key path, e.g. ``llm.max_concurency: unknown key``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, get_args

import yaml
from pydantic import ValidationError

from .config import CONFIG_ENV, DEFAULT_CONFIG_NAME, Settings, shipped_prompts_dir
from .errors import ConfigError
from .sanitize import unstorable_characters
from .source_settings import AclAnthologySource, ListSource, Source
from .wording import describe, key_path, ordered_errors, validation_problems

# Keys that moved, still read for one release: old place -> new place.
MOVED_KEYS = {
    ("arxiv", "timeout_s"): ("http", "timeout_s"),
    ("arxiv", "max_pdf_mb"): ("http", "max_pdf_mb"),
    ("arxiv", "pdf_concurrency"): ("http", "pdf_concurrency"),
}
# The source types, as pydantic names the union's members in an error's key path.
SOURCE_TYPES = {get_args(member.model_fields["type"].annotation)[0] for member in get_args(get_args(Source)[0])}


def find_config_file(explicit: str | os.PathLike[str] | None) -> Path:
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(CONFIG_ENV)
    if from_env:
        return Path(from_env)
    return Path(DEFAULT_CONFIG_NAME)


def _every_problem(exc: ValidationError | None, shown: str, missing: list[str]) -> ConfigError:
    """One ConfigError naming every problem with its key path (the files it names that are missing too), so one
    edit fixes them all."""
    problems = validation_problems(exc, top="top level", special=_source_problem) if exc is not None else []
    problems += missing
    if len(problems) == 1:
        key, _, message = problems[0].partition(": ")
        return ConfigError(message, file=shown, key=key)
    error = ConfigError(f"{len(problems)} problems: " + "; ".join(problems), file=shown)
    first = key_path(_untagged(ordered_errors(exc)[0]["loc"])) if exc is not None else missing[0].partition(": ")[0]
    error.key = first or None
    return error


def _missing_files(raw: dict[str, Any], base: Path) -> list[str]:
    """The venue lists and the prompts folder the file names that are not there, as ``key: problem``: every
    command that reads the config reports them, with its other problems."""
    missing = []
    for i, venue in enumerate(raw.get("venues") or []):
        source = venue.get("source") if isinstance(venue, dict) else None
        if isinstance(source, dict) and source.get("type") == "list" and isinstance(source.get("path"), str):
            path = _resolve(base, Path(source["path"]))
            if not path.is_file():
                missing.append(f"venues[{i}].source.path: venue list not found: {path}")
    paths = raw.get("paths")
    prompts = paths.get("prompts") if isinstance(paths, dict) else None
    if isinstance(prompts, str) and prompts and not _resolve(base, Path(prompts)).is_dir():
        missing.append(f"paths.prompts: prompts folder not found: {_resolve(base, Path(prompts))}")
    return missing


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
    unstorable: list[str] = []
    raw = _paired_surrogates(raw, (), unstorable)
    missing = unstorable + _missing_files(raw, config_file.resolve().parent)
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as exc:
        raise _every_problem(exc, shown, missing) from exc
    if missing:
        raise _every_problem(None, shown, missing)
    settings.place(config_file.resolve(), deprecations)
    _resolve_paths(settings, settings.config_file.parent, shown)
    return settings


def _read_yaml(config_file: Path, shown: str) -> dict[str, Any]:
    try:
        text = config_file.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        folder = config_file.resolve().parent
        raise ConfigError(
            f"config file not found (looked in {folder}): give --config PATH or set SUMMARIZER_CONFIG, "
            "or start a project there with `summarizer init`",
            file=shown,
        ) from exc
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


def _paired_surrogates(node: Any, where: tuple[Any, ...], problems: list[str]) -> Any:
    """YAML reads a JSON-style escaped pair (``"\\ud83d\\udd25"``) as two lone surrogates: each string is joined
    into the character the pair means; what stays unpaired (or a non-character) is a problem at its key."""
    if isinstance(node, dict):
        return {k: _paired_surrogates(v, (*where, k), problems) for k, v in node.items()}
    if isinstance(node, list):
        return [_paired_surrogates(v, (*where, i), problems) for i, v in enumerate(node)]
    if not isinstance(node, str) or not unstorable_characters(node):
        return node
    joined = node.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    left = unstorable_characters(joined)
    if left:
        problems.append(
            f"{key_path(where) or 'top level'}: holds {', '.join(left[:3])}, a lone surrogate or a non-character: "
            "write the character itself"
        )
    return joined


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
            venue.source.path = _resolve(base, venue.source.path)
        elif isinstance(venue.source, AclAnthologySource) and venue.source.data_dir is not None:
            venue.source.data_dir = _resolve(base, venue.source.data_dir)
