"""One wording for pydantic's ``ValidationError``: each error as ``key.path: message``.

Config files, records, import lines and model answers all report their problems this way, so a
user meets one style whichever file is wrong.  Unknown keys come first: ``fieldz: unknown key``
explains the ``fields: missing (required)`` that follows it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from . import limits
from .errors import clip

_INPUT_SHOWN = limits.SHOWN_VALUE  # a rejected value echoed back (it may be long or hostile)


def key_path(loc: tuple[Any, ...]) -> str:
    """``("venues", 0, "id")`` → ``venues[0].id``; pydantic's validator steps are left out."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "list[", "dict[")):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out


def describe(error: Any) -> str:
    """The message of one error, with the rejected value when it helps (a wrong type, a bad choice)."""
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "missing (required)"
    message = str(error["msg"]).removeprefix("Value error, ")
    value = error.get("input")
    if kind not in ("value_error", "assertion_error") and not isinstance(value, (dict, list)):
        message += f" (got {clip(repr(value), _INPUT_SHOWN)})"
    return message


def ordered_errors(exc: ValidationError) -> list[Any]:
    return sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")


def validation_problems(
    exc: ValidationError, *, top: str, special: Callable[[Any, str], str | None] | None = None
) -> list[str]:
    """Every error as ``key.path: message`` (``top`` names the whole object when the path is empty).

    ``special(error, key)`` may word an error its own way (a whole line), or return None.
    """
    out = []
    for error in ordered_errors(exc):
        key = key_path(error["loc"]) or top
        own = special(error, key) if special is not None else None
        out.append(own if own is not None else f"{key}: {describe(error)}")
    return out


def validation_message(exc: ValidationError, *, top: str) -> str:
    """All problems on one line; several are counted: ``2 problems: a: …; b: …``."""
    problems = validation_problems(exc, top=top)
    return problems[0] if len(problems) == 1 else f"{len(problems)} problems: " + "; ".join(problems)
