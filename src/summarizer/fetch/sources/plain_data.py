"""YAML and JSON from a source's host, read as plain data or refused in one line (``SourceError``).

YAML's anchors and aliases let a file of a few hundred bytes stand for hundreds of MB (a PMLR
``citeproc.yaml`` of 581 bytes expanded to 820 MB in 40 s); its tags make bytes, sets, dates and
more.  A paper list needs none of that, so ``load_yaml`` reads the events first and refuses any
anchor or alias, any tag but the plain ones, and nesting deeper than ``MAX_DEPTH``; then it builds
only strings, numbers, booleans, nulls, lists and mappings (a date stays the text it was).
libyaml does both passes when it is installed.  ``load_json`` turns JSON nested past the parser's
recursion into the same one line instead of a traceback.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from summarizer.core.errors import SourceError

MAX_DEPTH = 32  # a paper list is a list of mappings of lists of mappings: 4 or 5 deep
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "str", "seq", "map"))
_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _PlainLoader(_BASE):  # type: ignore[valid-type,misc]
    """The safe loader with only the plain types: other tags have no constructor, no date is resolved."""


_PlainLoader.yaml_constructors = {
    tag: build for tag, build in _BASE.yaml_constructors.items() if tag is None or tag in _PLAIN_TAGS
}
_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag in _PLAIN_TAGS]
    for first, resolvers in _BASE.yaml_implicit_resolvers.items()
}


def load_yaml(text: str, where: str) -> Any:
    """``text`` as plain data; ``SourceError`` naming ``where`` for what is not plain, or not YAML."""
    try:
        _check_events(text, where)
        return yaml.load(text, Loader=_PlainLoader)  # builds the plain types only
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise SourceError(f"{where} is not valid YAML ({str(problem)[:120]})") from exc


def _check_events(text: str, where: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=_BASE):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise SourceError(f"{where} uses YAML anchors or aliases (&name, *name): refused, a paper list needs none")
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and tag not in _PLAIN_TAGS:
            raise SourceError(f"{where} has a YAML value tagged {tag[:80]}: refused, a paper list holds plain data")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise SourceError(f"{where} is nested deeper than {MAX_DEPTH} levels: not a paper list")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def load_json(data: bytes | str, where: str) -> Any:
    """``data`` parsed as JSON; ``SourceError`` naming ``where`` when it is not JSON or nested past the parser."""
    try:
        return json.loads(data)
    except RecursionError as exc:
        raise SourceError(f"{where} is JSON nested too deeply to read: not a paper list") from exc
