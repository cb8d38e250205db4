"""``summarizer eval``: the venue's summaries scored against a reference, or two configurations compared.

The evaluate stage is imported inside the command: ``--help`` and the other commands do not pay for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

import summarizer.apps.cli.console as console
from summarizer.core.errors import UsageError

from .context import Context, finish, pass_ctx

if TYPE_CHECKING:  # the stage itself is imported by the command that runs it
    from summarizer.apps.evaluate.reference import Trust

_FILE = click.Path(path_type=Path, dir_okay=False)


@click.command("eval")
@click.argument("venue_id", metavar="VENUE")
@click.option("--against", "reference", type=_FILE, metavar="REFERENCE.jsonl", help="The reference (import format).")
@click.option(
    "--trust",
    type=click.Choice(["all", "trusted", "agree"]),
    default="all",
    show_default=True,
    help='Whose fields count: every line, lines with "trusted": true, or lines whose field_check agrees.',
)
@click.option("--tag-aliases", type=_FILE, metavar="FILE.yaml", help="More aliases (keyword: tag) for tag recall.")
@click.option("--compare", nargs=2, type=_FILE, metavar="A B", help="Two configurations (YAML: llm, prompts).")
@click.option("--sample", type=click.IntRange(min=1), default=20, show_default=True, help="With --compare: papers.")
@click.option("--seed", type=int, default=0, show_default=True, help="With --compare: which papers are sampled.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), help="Folder for the report.")
@pass_ctx
def evaluate(
    c: Context,
    venue_id: str,
    reference: Path | None,
    trust: Trust,
    tag_aliases: Path | None,
    compare: tuple[Path, Path] | None,
    sample: int,
    seed: int,
    out: Path | None,
) -> None:
    """Measure the venue's summaries against a reference, or compare two configurations.

    \b
    eval VENUE --against REF.jsonl [--trust all|trusted|agree] [--tag-aliases FILE]
    eval VENUE --compare A.yaml B.yaml [--sample N] [--seed S] [--against REF.jsonl]
    """
    c.settings.venue(venue_id)
    if compare:
        from summarizer.apps.evaluate.compare import compare_configs  # start-up: see the module doc

        report = compare_configs(
            c.settings,
            c.store,
            venue_id,
            compare,
            sample=sample,
            seed=seed,
            reference=reference,
            trust=trust,
            aliases=tag_aliases,
            out=out,
            progress=console.PROGRESS,
        )
    elif reference is None:
        raise UsageError("eval needs --against REFERENCE.jsonl, or --compare A B")
    else:
        from summarizer.apps.evaluate.against import evaluate_venue  # start-up: see the module doc

        report = evaluate_venue(
            c.settings,
            c.store,
            venue_id,
            reference,
            trust=trust,
            aliases=tag_aliases,
            out=out,
        )
    console.print_report(report)
    finish(report.ok)
