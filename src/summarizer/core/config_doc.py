"""The settings as documentation: every key ``config.yaml`` may hold, with its type, default and description,
read from the models in ``config`` (a key's docstring is its description), so the two cannot drift apart.

``reference_markdown()`` is ``docs/config.md`` (``make docs`` writes it; a test fails when it is stale), and
``section_yaml()`` is a section at its defaults, commented, as ``summarizer init`` writes it.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .config import Settings
from .source_settings import Source

DOC_PATH = "docs/config.md"
_SCALARS = {int: "integer", float: "number", str: "text", bool: "true or false", Path: "path"}


@dataclass(frozen=True)
class Key:
    path: str  # llm.max_concurrency; venues[].source.path
    type: str
    default: str  # as YAML; "" when required or a section
    description: str
    required: bool = False
    section: bool = False
    optional_section: bool = False  # a section that is absent (null) unless the file sets it: ``site.font``


def _members(annotation: Any) -> list[Any]:
    """The types of a union (``X | None``, a tagged union inside it), or the one type."""
    if get_origin(annotation) is Annotated:
        return _members(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        return [m for a in get_args(annotation) if a is not type(None) for m in _members(a)]
    return [annotation]


def _type_name(annotation: Any) -> str:
    members = _members(annotation)
    optional = type(None) in get_args(annotation) if get_origin(annotation) in (Union, types.UnionType) else False
    names = []
    for member in members:
        origin = get_origin(member)
        if origin is Literal:
            values = [f"`{v}`" for v in get_args(member)]
            names.append(values[0] if len(values) == 1 else "one of " + ", ".join(values))
        elif origin is list:
            names.append(f"list of {_type_name(get_args(member)[0])}")
        elif origin is dict:
            key, value = get_args(member)
            names.append(f"mapping of {_type_name(key)} to {_type_name(value)}")
        elif isinstance(member, type) and issubclass(member, BaseModel):
            names.append("section")
        else:
            names.append(_SCALARS.get(member, getattr(member, "__name__", str(member))))
    return " or ".join(dict.fromkeys(names)) + (" or null" if optional else "")


def _bounds(info: FieldInfo) -> str:
    words = {
        annotated_types.Ge: ("ge", "≥ {}"),
        annotated_types.Gt: ("gt", "> {}"),
        annotated_types.Le: ("le", "≤ {}"),
        annotated_types.Lt: ("lt", "< {}"),
        annotated_types.MinLen: ("min_length", "at least {}"),
    }
    found = []
    for item in info.metadata:
        for kind, (attribute, text) in words.items():
            if isinstance(item, kind):
                found.append(text.format(getattr(item, attribute)))
    return f" ({', '.join(found)})" if found else ""


def yaml_value(value: Any) -> str:
    """A default as it is written in YAML (``0.15``, ``https://…``, ``论文解读``, ``[]``)."""
    if isinstance(value, Path):
        value = str(value)
    text = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True, width=10_000).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def _key(path: str, info: FieldInfo, *, section: bool) -> Key:
    required = info.is_required()
    default = "" if required or section else yaml_value(info.get_default(call_default_factory=True))
    kind = _type_name(info.annotation) + _bounds(info)
    return Key(path, kind, default, " ".join((info.description or "").split()), required, section)


def _fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    """A model's keys in the order a person reads them: a source's ``type`` first, ``match_arxiv`` last."""
    order = {"type": -1, "match_arxiv": 1}
    return sorted(model.model_fields.items(), key=lambda item: order.get(item[0], 0))


def keys(model: type[BaseModel] = Settings, prefix: str = "") -> list[Key]:
    """Every key of ``model``, depth first, sections before their keys."""
    out: list[Key] = []
    for name, info in _fields(model):
        path = f"{prefix}{name}"
        members = _members(info.annotation)
        inner = get_args(members[0])[0] if get_origin(members[0]) is list else members[0]
        if members == _members(Source):
            out.append(_key(path, info, section=True))
            for source in _members(Source):
                kind = get_args(source.model_fields["type"].annotation)[0]
                out += keys(source, f"{path}({kind}).")
        elif isinstance(inner, type) and issubclass(inner, BaseModel):
            key = _key(path, info, section=True)
            absent = not info.is_required() and info.get_default(call_default_factory=True) is None
            out.append(Key(**{**key.__dict__, "optional_section": absent}))
            out += keys(inner, f"{path}[]." if inner is not members[0] else f"{path}.")
        else:
            out.append(_key(path, info, section=False))
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def reference_markdown() -> str:
    """``docs/config.md``: a table per top-level section."""
    lines = [
        "# Configuration reference",
        "",
        "Every key `config.yaml` may hold, with its type, default and description. This file is generated from",
        "the settings models (`core/config.py`, `core/source_settings.py`: each key's docstring) by `make docs`;",
        "`tests/core/test_config_doc.py` fails when it is stale. Only `venues` and `fields` are required; every other",
        "section has defaults. Relative paths resolve against the config file's folder. A misspelt key is an error",
        "naming it. `venues[].source(list).path` is the `path` of a venue whose source has `type: list`.",
    ]
    for key in keys():
        top = "." not in key.path
        if top:
            lines += ["", f"## `{key.path}`", "", key.description, "", "| key | type | default | description |"]
            lines.append("| --- | --- | --- | --- |")
        if top and key.section:
            continue
        default = "required" if key.required else (f"`{_cell(key.default)}`" if key.default else "")
        lines.append(f"| `{key.path}` | {_cell(key.type)} | {default} | {_cell(key.description)} |")
    return "\n".join(lines) + "\n"


def section_yaml(name: str, overrides: dict[str, Any] | None = None) -> str:
    """A top-level section at its defaults (``overrides`` by key path), each key under its description; a
    top-level key that is no section, its one line under its description."""
    overrides = overrides or {}
    section = next(k for k in keys() if k.path == name)
    if not section.section:  # a top-level key of its own (``stand_ins``): one line under its description
        value = yaml_value(overrides[name]) if name in overrides else section.default
        return f"# {section.description}\n{name}: {value}\n"
    lines = [f"# {section.description}", f"{name}:"]
    absent: list[str] = []  # optional sections, written as null: their keys are not written
    for key in keys():
        if not key.path.startswith(f"{name}.") or "[]" in key.path or "(" in key.path:
            continue
        if any(key.path.startswith(f"{prefix}.") for prefix in absent):
            continue
        depth = key.path.count(".")
        indent = "  " * depth
        leaf = key.path.rsplit(".", 1)[1]
        lines.append(f"{indent}# {key.description}")
        if key.optional_section:
            absent.append(key.path)
            lines.append(f"{indent}{leaf}: null")
        elif key.section:
            lines.append(f"{indent}{leaf}:")
        else:
            value = yaml_value(overrides[key.path]) if key.path in overrides else key.default
            lines.append(f"{indent}{leaf}: {value}")
    return "\n".join(lines) + "\n"
