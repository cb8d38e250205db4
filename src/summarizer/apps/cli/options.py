"""The options every command that asks the model takes (``run``, ``summarize``, ``notes``), written once so
their names and help agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

BATCH_HELP = "Through the provider's Batch API: half price, results within 24 h."
DRY_RUN_HELP = "Print the papers, tokens and cost (online and batch); ask nothing."


def asking_options(*, force: str | None, dry_run: str = DRY_RUN_HELP) -> Callable[[F], F]:
    """``--limit``, ``--force`` (when ``force`` gives its help), ``--batch``, ``--no-wait`` and ``--dry-run``."""
    options = [
        click.option("--limit", type=click.IntRange(min=1), help="Only the first N papers."),
        *([click.option("--force", is_flag=True, help=force)] if force else []),
        click.option(
            "--batch", is_flag=True, help="Through the provider's Batch API: half price, results within 24 h."
        ),
        click.option(
            "--no-wait", is_flag=True, help="With --batch: submit and exit; run the same command later to collect."
        ),
        click.option("--dry-run", is_flag=True, help=dry_run),
    ]

    def decorate(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate
