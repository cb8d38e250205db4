"""A configuration to compare: the project's settings with a file's model, provider or prompts in their place.

    # mini.yaml
    label: mini                       # optional: the name in the report (default: the file's name)
    llm: {model: gpt-4o-mini, price_per_million: {input: 0.15, output: 0.60}}
    prompts: prompts-short            # optional: a prompts folder, relative to this file

``llm`` is merged key by key over the project's ``llm:`` section (so a file names only what
differs), and checked like ``config.yaml``: a mistake is one line naming the file and the key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from summarizer.core.config import LLMSettings, Settings
from summarizer.core.errors import ConfigError, FileSystemError
from summarizer.core.wording import validation_problems

KEYS = ("label", "llm", "prompts")


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError("configuration file not found", file=str(path)) from exc
    except OSError as exc:
        raise FileSystemError(path, exc) from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"not a YAML file ({type(exc).__name__})", file=str(path)) from exc
    if not isinstance(data, dict):
        raise ConfigError("write a mapping: label, llm, prompts", file=str(path))
    unknown = [str(key) for key in data if key not in KEYS]
    if unknown:
        raise ConfigError(f"{', '.join(unknown)}: unknown key (known: {', '.join(KEYS)})", file=str(path))
    return data


def load_configuration(settings: Settings, path: Path) -> tuple[str, Settings]:
    """(label, the settings this file makes of the project's) — see the module doc."""
    data = _read(path)
    llm = data.get("llm") or {}
    if not isinstance(llm, dict):
        raise ConfigError("a mapping of llm keys", file=str(path), key="llm")
    try:
        merged = LLMSettings.model_validate(_merged(settings.llm.model_dump(), llm))
    except ValidationError as exc:
        problems = [f"llm.{problem}" for problem in validation_problems(exc, top="llm")]
        raise ConfigError("; ".join(problems), file=str(path)) from exc
    configured = settings.model_copy(deep=True)
    configured.llm = merged
    if data.get("prompts") is not None:
        folder = Path(str(data["prompts"]))
        folder = folder if folder.is_absolute() else path.parent / folder
        if not folder.is_dir():
            raise ConfigError(f"prompts folder not found: {folder}", file=str(path), key="prompts")
        configured.paths.prompts = folder
    label = str(data.get("label") or path.stem)
    return label, configured
