"""The command reference, made from click's own definitions so it cannot disagree with the commands.

``reference_markdown(group)`` is ``docs/commands.md`` (``make docs`` writes it; a test fails when it is
stale): each command's usage line, its docstring and its options with their help.  ``surface(group)`` is
the overview ``summarizer --help`` ends with: one line a command, its arguments and options in short.
Neither imports the commands (they are given the group), so ``commands`` builds its epilog from ``surface``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import click

DOC_PATH = "docs/commands.md"
PROGRAM = "summarizer"
# A line of the overview is one command; past this width its options go on under it, indented further,
# so `--help` fits an 80-column terminal (click indents an epilog by 2).
SURFACE_WIDTH = 76
SURFACE_TITLE = "Commands at a glance (one a line; COMMAND --help for each):"
EXIT_CODES = (
    "Exit codes: 0 all done; 1 some papers failed (the rest is saved);\n"
    "2 usage or configuration error. SUMMARIZER_DEBUG=1 shows tracebacks."
)
HEADER = f"""\
# Command reference

Every command and option of `{PROGRAM}`, as `{PROGRAM} COMMAND --help` prints it. This file is generated from
the command line's own definitions (`src/summarizer/apps/cli/reference.py`) by `make docs`;
`tests/cli/test_docs.py` fails when it is stale. Shell completion, exit codes and what the commands print:
[cli.md](cli.md).
"""


def walk(group: click.Group, ctx: click.Context) -> Iterator[tuple[click.Command, click.Context]]:
    """Every command under ``group`` in the order it was added, each subgroup after the plain commands."""
    visible = [(name, command) for name, command in group.commands.items() if not command.hidden]
    for name, command in sorted(visible, key=lambda item: isinstance(item[1], click.Group)):
        sub = click.Context(command, info_name=name, parent=ctx)
        yield command, sub
        if isinstance(command, click.Group):
            yield from walk(command, sub)


def _root(group: click.Group) -> click.Context:
    return click.Context(group, info_name=PROGRAM)


def _path(ctx: click.Context) -> str:
    """The command's words after the program's name (`review notes list`)."""
    return ctx.command_path.partition(" ")[2]


def _options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and not p.hidden]


def _metavar(option: click.Option) -> str:
    """What an option's value is called in short: its own metavar, else a word for its type."""
    if option.metavar:
        return option.metavar
    if isinstance(option.type, click.Choice):
        return "|".join(str(choice) for choice in option.type.choices)
    if isinstance(option.type, click.types.IntParamType | click.types.FloatParamType):
        return "N"
    if isinstance(option.type, click.Path | click.File):
        return "PATH"
    return "TEXT"


def _short_option(option: click.Option) -> str:
    """An option in short: its longest name, and what its value is called (`--limit N`); [ ] when optional."""
    name = max(option.opts, key=len)
    text = name if option.is_flag or option.count else f"{name} {_metavar(option)}"
    return text if option.required else f"[{text}]"


def _arguments(command: click.Command, ctx: click.Context) -> list[str]:
    return [piece for p in command.params if isinstance(p, click.Argument) for piece in p.get_usage_pieces(ctx)]


def _surface_lines(words: list[str]) -> list[str]:
    """``words`` on one line, or, past the width, continued on lines indented under it."""
    lines = [words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) > SURFACE_WIDTH:
            lines.append("    " + word)
        else:
            lines[-1] += " " + word
    return ["  " + line for line in lines]


def surface(group: click.Group) -> str:
    """The overview `--help` ends with: one line a command (a group's commands each on its own line)."""
    lines = []
    for command, ctx in walk(group, _root(group)):
        if isinstance(command, click.Group):
            continue
        words = [_path(ctx), *_arguments(command, ctx)]
        named = " ".join(words)
        # An option the arguments' metavar already shows (`VENUE/ID... | VENUE --all`) is not said twice.
        words += [_short_option(o) for o in _options(command) if not set(o.opts) & set(named.split())]
        lines += _surface_lines(words)
    # `\b` keeps click from rewrapping each block: the lines stay as written here.
    return "\b\n" + SURFACE_TITLE + "\n" + "\n".join(lines) + "\n\n\b\n" + EXIT_CODES


def _docstring(command: click.Command) -> str:
    """The command's help as Markdown: paragraphs joined, a ``\\b`` block kept line for line."""
    text = (command.help or "").split("\f", 1)[0]
    out = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b\n"):
            out.append("```text\n" + paragraph[2:] + "\n```")
        elif paragraph.strip():
            out.append(" ".join(line.strip() for line in paragraph.splitlines()))
    return "\n\n".join(out)


def _option_lines(command: click.Command, ctx: click.Context) -> list[str]:
    lines = []
    for param in _options(command):
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        lines.append(f"- `{names}`" + (f": {' '.join(help_text.split())}" if help_text else ""))
    return lines


def _section(command: click.Command, ctx: click.Context, level: int) -> str:
    pieces = " ".join(command.collect_usage_pieces(ctx))
    parts = [
        f"{'#' * level} `{ctx.command_path}`",
        f"```text\nUsage: {ctx.command_path} {pieces}\n```",
        _docstring(command),
    ]
    if isinstance(command, click.Group):
        names = ", ".join(f"`{_path(sub).rpartition(' ')[2]}`" for _, sub in walk(command, ctx) if sub.parent is ctx)
        parts.append(f"Commands: {names}.")
    options = _option_lines(command, ctx)
    if options:
        parts.append("Options:\n\n" + "\n".join(options))
    return "\n\n".join(p for p in parts if p)


def reference_markdown(group: click.Group) -> str:
    """``docs/commands.md`` for ``group`` (the `summarizer` group): the overview, then a section per command,
    each group's plain commands before its subgroups."""
    root = _root(group)
    overview = surface(group).replace("\b\n", "")
    sections = [HEADER, "```text\n" + overview + "\n```", _section(group, root, 2)]
    for command, ctx in walk(group, root):
        sections.append(_section(command, ctx, 2 + ctx.command_path.count(" ")))
    return "\n\n".join(s.strip("\n") for s in sections) + "\n"
