"""``summarizer eval VENUE --against REFERENCE.jsonl``: the venue's summaries scored against a reference.

Reads the records (approved versions, else the newest draft) and the paper texts; writes
``report.md``, ``report.html`` and ``metrics.json`` (atomically) into ``outputs/eval/VENUE/`` or the
folder named; returns a ``Report`` whose details are the headline figures.  It calls no model and
changes no record.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from summarizer.core.config import Settings, TagSettings
from summarizer.core.errors import FileSystemError, UsageError
from summarizer.core.flags import read_paper_for_checks
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.records import Record
from summarizer.core.report import Report
from summarizer.core.store import Store

from .metrics import consistency
from .reference import TRUST_RULES, Matched, Trust, match, read_reference
from .report_pages import evaluation_html, evaluation_markdown
from .results import Evaluation
from .scoring import Scored, reference_items, scorecard


def tag_settings(settings: Settings, aliases: Path | None) -> TagSettings:
    """The config's vocabulary and aliases, with more aliases from a YAML mapping (keyword: tag) when named."""
    extra: dict[str, str] = {}
    if aliases is not None:
        try:
            data = yaml.safe_load(aliases.read_text(encoding="utf-8"))
        except OSError as exc:
            raise FileSystemError(aliases, exc) from exc
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise UsageError(f"{aliases}: not a YAML file ({type(exc).__name__})") from exc
        if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
            raise UsageError(f"{aliases}: write one `keyword: tag` a line (a mapping of words to vocabulary tags)")
        extra = data
    return TagSettings(vocabulary=list(settings.tags.vocabulary), aliases={**settings.tags.aliases, **extra})


def text_for_checks(settings: Settings, record: Record) -> str | None:
    """What a summary is checked against: the text the model read, else the title and the abstract the record
    holds (an imported paper never fetched still has one); None when there is neither."""
    found = read_paper_for_checks(settings, record)  # the abstract when the text was never read
    return found.text if found is not None else None


def score_pairs(settings: Settings, matched: Matched) -> list[Scored]:
    """Each matched paper that has a version to score, with the text the checks compare it with."""
    items = []
    for pair in matched.scored:
        record, version = pair.record, pair.version
        assert version is not None  # Matched.scored holds only those
        items.append(
            Scored(
                paper_id=record.id,
                title=record.title,
                summary=version.summary,
                tags=list(version.tags),
                field=version.field,
                text=text_for_checks(settings, record),
                reference=pair.line,
                usage=record.usage,
            )
        )
    return items


def evaluate(
    settings: Settings, store: Store, venue_id: str, reference: Path, *, trust: Trust, tags: TagSettings
) -> Evaluation:
    settings.venue(venue_id)
    lines = read_reference(reference)
    matched = match(lines, store.records(venue_id), venue_id)
    items = score_pairs(settings, matched)
    order = settings.field_ids()
    notes = consistency((p.line.summary, p.line.note_summary) for p in matched.pairs if p.line.note_summary)
    return Evaluation(
        venue=venue_id,
        reference=str(reference),
        trust=trust,
        lines=len(lines),
        matched=matched,
        items=items,
        model=scorecard("summaries", items, trust=trust, tags=tags, field_order=order),
        ref=scorecard("reference", reference_items(items), with_cost=False),
        notes=notes,
    )


def evaluate_venue(
    settings: Settings,
    store: Store,
    venue_id: str,
    reference: Path,
    *,
    trust: Trust = "all",
    aliases: Path | None = None,
    out: Path | None = None,
) -> Report:
    """Score the venue against ``reference`` and write the report (see the module doc)."""
    evaluation = evaluate(settings, store, venue_id, reference, trust=trust, tags=tag_settings(settings, aliases))
    folder = out or settings.outputs_dir / "eval" / venue_id
    atomic_write_text(folder / "metrics.json", json.dumps(evaluation.to_json(), ensure_ascii=False, indent=1) + "\n")
    atomic_write_text(folder / "report.md", evaluation_markdown(evaluation))
    atomic_write_text(folder / "report.html", evaluation_html(evaluation))
    return _report(evaluation, folder)


def _report(evaluation: Evaluation, folder: Path) -> Report:
    report = Report("eval", evaluation.venue, per_paper=False)
    matched = evaluation.matched
    report.count("reference lines", evaluation.lines)
    report.count("matched", len(matched.pairs))
    report.count("scored", len(evaluation.items))
    if matched.unmatched:
        report.warn(f"{len(matched.unmatched)} reference lines match no paper of {evaluation.venue}")
    if matched.duplicates:
        report.warn(f"{len(matched.duplicates)} reference lines repeat a paper an earlier line has (left out)")
    if not evaluation.items:
        report.warn(f"no paper of {evaluation.venue} has both a reference line and a summary: nothing to score")
    report.details += headline(evaluation)
    report.details.append(f"report: {folder / 'report.html'} (and report.md, metrics.json)")
    return report


def headline(evaluation: Evaluation) -> list[str]:
    """The figures of the report in a few lines, for the terminal."""
    model, ref = evaluation.model, evaluation.ref
    if not model.papers:
        return []
    lines = []
    if model.fields is not None:
        f = model.fields
        lines.append(
            f"field: accuracy {f.accuracy:.1%}, macro-F1 {f.macro_f1:.3f} on {f.n} papers "
            f"({TRUST_RULES[evaluation.trust]}: --trust {evaluation.trust})"
        )
    if model.tags is not None:
        t = model.tags
        lines.append(
            f"tags: recall {t.recall:.1%} of {t.mapped} keywords that map onto the vocabulary, {t.papers} papers"
        )
    lines.append(
        f"numbers not in the paper: {len(model.numbers.flagged)} of {model.numbers.checked} summaries "
        f"({model.numbers.share:.1%}); the reference's own: {len(ref.numbers.flagged)} of {ref.numbers.checked} "
        f"({ref.numbers.share:.1%}, the check's false-positive rate here)"
    )
    lines.append(
        f"length: median {model.lengths.spread(model.lengths.cjk)['median']:.0f} Chinese characters "
        f"(reference {ref.lengths.spread(ref.lengths.cjk)['median']:.0f}); "
        f"{model.lengths.outside_house} of {model.lengths.n} outside the house range"
    )
    if model.cost is not None and model.cost.usage.llm_calls:
        per = model.cost.per_paper()
        lines.append(
            f"cost: ${per['cost_usd']:.5f} and {per['prompt_tokens'] + per['completion_tokens']:,.0f} tokens a paper"
        )
    elif model.cost is not None and model.cost.papers:
        lines.append("cost: no model call recorded for these papers (imported or written by hand)")
    return lines
