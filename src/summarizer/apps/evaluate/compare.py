"""``summarizer eval VENUE --compare A B``: two configurations on the same seeded sample, side by side.

The sample is ``--sample N`` papers of the venue that have text to read, drawn with ``--seed`` from
their sorted ids, so every run with the same seed sees the same papers.  Each configuration answers
them through the answer cache (``summarize.trial``): a second run makes no model call.  The answers
are eval versions, kept in ``runs/LABEL.json`` beside the report, tagged with the run's label; no
record changes, nothing is approved or published.  The report (``report.md``, ``report.html``,
``differences.html``, ``metrics.json``) goes to ``outputs/eval/VENUE/compare/`` or the folder named.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from summarizer.core.config import Settings, TagSettings
from summarizer.core.errors import NoInput, UsageError
from summarizer.core.flags import paper_warnings
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.paper_text import paper_sections
from summarizer.core.progress import QUIET, Progress
from summarizer.core.records import Record, Version
from summarizer.core.report import Report
from summarizer.core.store import Store
from summarizer.core.usage import Usage
from summarizer.summarize.trial import TrialAnswer, answer_without_saving

from .against import tag_settings, text_for_checks
from .compare_pages import comparison_html, comparison_markdown, differences_html
from .configs import load_configuration
from .metrics import Cost
from .reference import ReferenceLine, Trust, match, read_reference
from .results import Arm, Comparison
from .scoring import Scored, scorecard


def sample_papers(settings: Settings, records: list[Record], size: int, seed: int) -> list[Record]:
    """``size`` papers with text to read, drawn with ``seed`` from the sorted ids; returned in id order."""
    readable = []
    for record in sorted(records, key=lambda r: r.id):
        try:
            paper_sections(settings, record)
        except NoInput:
            continue
        readable.append(record)
    chosen = random.Random(seed).sample(readable, min(size, len(readable)))
    return sorted(chosen, key=lambda r: r.id)


def _labels(configs: list[tuple[str, Settings]]) -> list[tuple[str, Settings]]:
    """Labels as given, or A and B when the two would share a name (or a file under runs/)."""
    if _file_name(configs[0][0]) == _file_name(configs[1][0]):
        return [("A", configs[0][1]), ("B", configs[1][1])]
    return configs


def _scored(
    papers: list[Record], answers: dict[str, TrialAnswer], refs: dict[str, ReferenceLine], texts: dict[str, str | None]
) -> list[Scored]:
    items = []
    for record in papers:
        answer = answers[record.id]
        if answer.draft is None:
            continue
        draft = answer.draft
        items.append(
            Scored(
                record.id,
                record.title,
                draft.summary,
                draft.tags,
                draft.field,
                texts[record.id],
                refs.get(record.id),
                answer.usage,
                answer.latency_s,
            )
        )
    return items


def run_arm(
    settings: Settings,
    label: str,
    configured: Settings,
    papers: list[Record],
    refs: dict[str, ReferenceLine],
    texts: dict[str, str | None],
    *,
    trust: Trust,
    tags: TagSettings | None,
    progress: Progress,
) -> Arm:
    """One configuration's answers for the sample, scored."""
    answers = {a.paper_id: a for a in answer_without_saving(configured, papers, label=label, progress=progress)}
    items = _scored(papers, answers, refs, texts)
    card = scorecard(label, items, trust=trust, tags=tags, field_order=settings.field_ids())
    # What the configuration cost is every call it made, a failed paper's too, over every paper asked.
    usage = Usage()
    for answer in answers.values():
        usage.add(answer.usage)
    card.cost = Cost(len(papers), usage)
    return Arm(label, configured, answers, card)


def eval_versions(
    settings: Settings, arm: Arm, papers: list[Record], texts: dict[str, str | None], venue_id: str
) -> dict[str, Any]:
    """The arm's answers as versions tagged with the run (``eval_run``): what was compared, never published."""
    entries = []
    for record in papers:
        answer = arm.answers[record.id]
        entry: dict[str, Any] = {"paper": record.id, "eval_run": arm.label, "cached": answer.cached}
        entry |= {"usage": answer.usage.model_dump(), "latency_s": answer.latency_s}
        if answer.draft is None:
            entry["failure"] = answer.failure
        else:
            d = answer.draft
            warnings = paper_warnings(settings, d.summary, d.tags, d.field, texts[record.id])
            version = Version(
                number=1,
                summary=d.summary,
                tags=d.tags,
                field=d.field,
                origin="llm",
                model=d.model,
                prompt_hash=d.prompt_hash,
                warnings=warnings,
                checked=True,
            )
            entry["version"] = version.model_dump(exclude={"created_at"})
        entries.append(entry)
    llm = arm.settings.llm
    return {"eval_run": arm.label, "venue": venue_id, "model": llm.model, "base_url": llm.base_url, "answers": entries}


def compare_configs(
    settings: Settings,
    store: Store,
    venue_id: str,
    files: tuple[Path, Path],
    *,
    sample: int = 20,
    seed: int = 0,
    reference: Path | None = None,
    trust: Trust = "all",
    aliases: Path | None = None,
    out: Path | None = None,
    progress: Progress = QUIET,
) -> Report:
    """Answer the same sample under two configurations and write the side-by-side report (see the module doc)."""
    settings.venue(venue_id)
    configs = _labels([load_configuration(settings, Path(f)) for f in files])
    papers = sample_papers(settings, store.records(venue_id), sample, seed)
    if not papers:
        raise UsageError(f"{venue_id} has no paper with text to read: run `summarizer fetch {venue_id}` first")
    refs: dict[str, ReferenceLine] = {}
    if reference is not None:
        refs = {p.record.id: p.line for p in match(read_reference(reference), papers, venue_id).pairs}
    tags = tag_settings(settings, aliases) if refs else None
    texts = {record.id: text_for_checks(settings, record) for record in papers}  # read once, for both
    arms = [
        run_arm(settings, label, configured, papers, refs, texts, trust=trust, tags=tags, progress=progress)
        for label, configured in configs
    ]
    comparison = Comparison(venue_id, seed, papers, refs, trust, arms)
    folder = out or settings.outputs_dir / "eval" / venue_id / "compare"
    for arm in arms:
        runs = json.dumps(eval_versions(settings, arm, papers, texts, venue_id), ensure_ascii=False, indent=1)
        atomic_write_text(folder / "runs" / f"{_file_name(arm.label)}.json", runs + "\n")
    atomic_write_text(folder / "metrics.json", json.dumps(comparison.to_json(), ensure_ascii=False, indent=1) + "\n")
    atomic_write_text(folder / "report.md", comparison_markdown(comparison))
    atomic_write_text(folder / "report.html", comparison_html(comparison))
    atomic_write_text(folder / "differences.html", differences_html(comparison))
    return _report(comparison, folder)


def _file_name(label: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in label).strip("._")
    return safe or "run"


def _report(comparison: Comparison, folder: Path) -> Report:
    report = Report("eval", comparison.venue, per_paper=False)
    report.count("papers sampled", len(comparison.papers))
    spent = Usage()
    for arm in comparison.arms:
        answers = list(arm.answers.values())
        asked = sum(1 for a in answers if not a.cached and a.draft is not None)
        cached = sum(1 for a in answers if a.cached)
        failed = [a for a in answers if a.failure]
        cost = arm.card.cost.per_paper()["cost_usd"] if arm.card.cost is not None else 0.0
        report.details.append(
            f"{arm.label} ({arm.settings.llm.model}): {asked} asked, {cached} from the answer cache, "
            f"{len(failed)} failed; ${cost:.6f} a paper, numbers not in the paper {arm.card.numbers.share:.1%}, "
            f"{arm.card.lengths.outside_house} of {arm.card.lengths.n} outside the house range"
        )
        if arm.card.fields is not None:
            report.details.append(f"{arm.label}: field accuracy {arm.card.fields.accuracy:.1%}")
        report.failures += [(f"{arm.label}/{a.paper_id}", a.failure or "") for a in failed]
        spent.add(arm.fresh_usage)
    report.usage = spent
    report.details.append(f"report: {folder / 'report.html'} (and differences.html, report.md, metrics.json, runs/)")
    return report
