"""Site stage: MkDocs digest pages from the records.

``build`` writes ``outputs/site/`` from approved versions only (``record.approved``,
even when a newer pending draft exists); ``build --drafts`` writes
``outputs/preview/`` (same layout) from every non-rejected paper with a summary
(``record.current``).  In the preview a paper whose shown version is not the
published one ends with a small italic marker — ``*（📝 草稿）*`` for a draft,
``*（📝 修订待审）*`` for a pending revision of an approved paper — so the page
keeps the format; the preview's site name says ``预览``.

Layout (README, "The published site")::

    mkdocs.yml
    docs/index.md                      every venue, paper count, link
    docs/<VENUE>/index.md              every field with counts, the venue's hot topics
    docs/<VENUE>/<FIELD>/index.md      the field digest page
    docs/javascripts/mathjax.js        MathJax settings for arithmatex

``build VENUE...`` builds the site of just those venues: their pages, and a
home page, nav and cross-venue lines that know only them, so every link
resolves (a site mixing freshly built venues with stale pages of others
would not: its nav and cross-venue links could point at pages that were
never written).  ``build`` with no venue builds every configured venue.
Pages are written only
when their bytes change; pages the builder wrote before (listed in
``.summarizer-pages``) that no longer have papers are removed.  Nothing else
in the folder is touched.

Tallies, ordering and escaping are plain Python here and in
``markdown_text``; the layout lives in the jinja2 templates beside this file.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from summarizer.core.config import FieldSpec, Settings, TagSettings, Venue
from summarizer.core.fsutil import WriteBatch, write_if_changed
from summarizer.core.records import Record, Version
from summarizer.core.report import Report
from summarizer.core.rules import normalize_tags
from summarizer.core.store import Store

from .markdown_text import (
    escape_heading,
    escape_inline,
    escape_link_text,
    escape_summary,
    link_target,
    meta_text,
    sort_key,
    yaml_scalar,
)

MANIFEST = ".summarizer-pages"
DRAFT_MARK = " *（📝 草稿）*"
REVISION_MARK = " *（📝 修订待审）*"
LIST_WRITTEN_UP_TO = 20


def build_report(root: Path | str) -> Report:
    return Report("build", str(root), per_paper=False)


def _finish_report(report: Report) -> Report:
    """The counts and the lines the CLI prints after a build."""
    report.count("pages written", len(report.written))
    report.count("unchanged", len(report.unchanged))
    if report.removed:
        report.count("removed", len(report.removed))
    if len(report.written) <= LIST_WRITTEN_UP_TO:
        report.notes += [f"  wrote {page}" for page in report.written]
    report.notes += [f"  removed {page}" for page in report.removed]
    return report


@dataclass(frozen=True)
class PageEntry:
    """One paper as it appears on a page."""

    record: Record
    version: Version
    tags: tuple[str, ...]
    mark: str = ""

    @property
    def sort(self) -> tuple[str, str, str]:
        return (sort_key(self.record.title), self.record.title, self.record.id)


# -- tallies and ordering (plain, tested Python) ---------------------------------


def hot_topics(entries: list[PageEntry], top_k: int, min_count: int) -> list[tuple[str, int]]:
    """Each tag counted once per paper; by count, ties by tag name; the first top_k with count >= min_count."""
    counts: Counter[str] = Counter()
    for entry in entries:
        counts.update(set(entry.tags))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], sort_key(item[0]), item[0]))
    return [(tag, n) for tag, n in ranked if n >= min_count][:top_k]


def sort_entries(entries: list[PageEntry]) -> list[PageEntry]:
    return sorted(entries, key=lambda e: e.sort)


def label(emoji: str, name: str) -> str:
    return " ".join(part for part in (emoji.strip(), name.strip()) if part)


def paper_line(entry: PageEntry) -> str:
    title = entry.record.title
    link = link_target(entry.record.link)
    head = f"**[{escape_link_text(title)}]({link})**" if link else f"**{escape_inline(title)}**"
    return f"{head}: {escape_summary(entry.version.summary)}{entry.mark}"


def select(record: Record, *, drafts: bool, tags: TagSettings) -> PageEntry | None:
    """The version a build shows for this record, or None when it stays off the page."""
    if drafts:
        if record.status == "rejected" or record.current is None:
            return None
        version = record.current
        if record.status == "draft":
            mark = DRAFT_MARK
        elif record.has_pending_draft or record.approved is None:
            mark = REVISION_MARK
        else:
            mark = ""
    else:
        approved = record.approved
        if approved is None:
            return None
        version, mark = approved, ""
    return PageEntry(record, version, tuple(normalize_tags(version.tags, tags)), mark)


# -- the build -----------------------------------------------------------------


def _env() -> Environment:
    return Environment(
        loader=PackageLoader("summarizer.site", "templates"),
        autoescape=False,  # Markdown and YAML, escaped in Python (markdown_text)
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
    )


NAV_OVERRIDE = "overrides/partials/nav-item.html"


TEMPLATES = Path(__file__).resolve().parent / "templates"
# The site's MathJax settings; the review desk typesets with the same ones.
MATHJAX_CONFIG = TEMPLATES / "mathjax.js"


def _read_shipped(name: str) -> bytes:
    return (TEMPLATES / name).read_bytes()


class _Writer:
    """The site's files, landing together: a failed build leaves the previous site whole, not half new."""

    def __init__(self, root: Path, report: Report):
        self.root = root
        self.report = report
        self.pages: set[str] = set()
        self.batch = WriteBatch()  # one disk sync for thousands of pages, not one each

    def write(self, rel: str, text: str | bytes) -> None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        self.pages.add(rel)
        if self.batch.write_if_changed(self.root / rel, data):
            self.report.written.append(rel)
        else:
            self.report.unchanged.append(rel)


def _gather(
    settings: Settings, store: Store, venues: list[Venue], *, drafts: bool, report: Report
) -> dict[str, dict[str, list[PageEntry]]]:
    """venue id -> field id -> entries, for the venues of this build, in config order."""
    known_fields = set(settings.field_ids())
    grouped: dict[str, dict[str, list[PageEntry]]] = {}
    for venue in venues:
        by_field: dict[str, list[PageEntry]] = {}
        for record in store.records(venue.id):
            entry = select(record, drafts=drafts, tags=settings.tags)
            if entry is None:
                continue
            if entry.version.field not in known_fields:
                report.warn(
                    f"left off: {venue.id}/{record.id}: field {entry.version.field!r} is not in config.yaml "
                    f"(summarizer review edit {venue.id}/{record.id} --field ID)"
                )
                continue
            by_field.setdefault(entry.version.field, []).append(entry)
        grouped[venue.id] = {f: sort_entries(by_field[f]) for f in settings.field_ids() if f in by_field}
    return grouped


def _hot_text(hot: list[tuple[str, int]]) -> list[str]:
    return [f"{escape_inline(tag)} ×{n}" for tag, n in hot]


def _cjk_join(latin_or_cjk: str, cjk: str) -> str:
    """``预训练方向`` but ``LLM Agent 方向``: a space where Latin text meets Chinese."""
    return (
        f"{latin_or_cjk} {cjk}" if latin_or_cjk[-1:].isascii() and latin_or_cjk[-1:].isalnum() else latin_or_cjk + cjk
    )


def _hot_meta(hot: list[tuple[str, int]]) -> str:
    return f"，高频主题：{'、'.join(tag for tag, _ in hot)}" if hot else ""


def _field_page(
    env: Environment,
    settings: Settings,
    venue: Venue,
    spec: FieldSpec,
    grouped: dict[str, dict[str, list[PageEntry]]],
) -> str:
    entries = grouped[venue.id][spec.id]
    hot = hot_topics(entries, settings.site.hot_topics.top_k, settings.site.hot_topics.min_count)
    # Raw HTML, not Markdown links: on a large site this line (a link per venue on every field page)
    # was a third of `mkdocs build`.  Its targets are pages this build writes, so they resolve.
    cross = [
        f'<a href="../../{other.id}/{spec.id}/">{html.escape(label(other.emoji, other.name))} '
        f"({len(grouped[other.id][spec.id])})</a>"
        for other in settings.venues
        if other.id != venue.id and spec.id in grouped.get(other.id, {})
    ]
    n = len(entries)
    return env.get_template("field.md.j2").render(
        meta_title=yaml_scalar(meta_text(f"{venue.name} {spec.name} · {n} 篇论文解读")),
        meta_description=yaml_scalar(
            meta_text(f"{venue.name} {_cjk_join(spec.name, '方向')} {n} 篇论文的中文解读{_hot_meta(hot)}。")
        ),
        heading=escape_heading(label(spec.emoji, spec.name)),
        venue_label=escape_inline(label(venue.emoji, venue.name)),
        count=n,
        cross=cross,
        hot=_hot_text(hot),
        papers=[paper_line(e) for e in entries],
    )


def _venue_page(env: Environment, settings: Settings, venue: Venue, by_field: dict[str, list[PageEntry]]) -> str:
    everything = [e for entries in by_field.values() for e in entries]
    hot = hot_topics(everything, settings.site.hot_topics.top_k, settings.site.hot_topics.min_count)
    fields = [
        {"id": spec.id, "label": escape_link_text(label(spec.emoji, spec.name)), "count": len(by_field[spec.id])}
        for spec in settings.fields
        if spec.id in by_field
    ]
    n = len(everything)
    return env.get_template("venue.md.j2").render(
        meta_title=yaml_scalar(meta_text(f"{venue.name} · {n} 篇论文解读")),
        meta_description=yaml_scalar(
            meta_text(f"{venue.name} {n} 篇论文的中文解读，覆盖 {len(fields)} 个方向{_hot_meta(hot)}。")
        ),
        heading=escape_heading(label(venue.emoji, venue.name)),
        count=n,
        fields=fields,
        hot=_hot_text(hot),
    )


def _site_title(settings: Settings, drafts: bool) -> str:
    return f"{settings.site.title}（预览）" if drafts else settings.site.title


def _home_page(
    env: Environment, settings: Settings, grouped: dict[str, dict[str, list[PageEntry]]], *, drafts: bool
) -> str:
    venues = [
        {
            "id": v.id,
            "label": escape_link_text(label(v.emoji, v.name)),
            "count": sum(len(e) for e in grouped[v.id].values()),
            "fields": len(grouped[v.id]),
        }
        for v in settings.venues
        if grouped.get(v.id)
    ]
    total = sum(len(e) for by_field in grouped.values() for e in by_field.values())
    title = _site_title(settings, drafts)
    return env.get_template("home.md.j2").render(
        meta_title=yaml_scalar(meta_text(title)),
        meta_description=yaml_scalar(meta_text(f"{len(venues)} 个会议 {total} 篇论文的中文解读。")),
        heading=escape_heading(title),
        venues=venues,
        drafts=drafts,
    )


def _mkdocs_yml(
    env: Environment, settings: Settings, grouped: dict[str, dict[str, list[PageEntry]]], *, drafts: bool
) -> str:
    venues = []
    for v in settings.venues:
        by_field = grouped.get(v.id)
        if not by_field:
            continue
        total = sum(len(e) for e in by_field.values())
        fields = [
            {"id": spec.id, "nav_title": yaml_scalar(f"{label(spec.emoji, spec.name)} ({len(by_field[spec.id])})")}
            for spec in settings.fields
            if spec.id in by_field
        ]
        venues.append({"id": v.id, "nav_title": yaml_scalar(f"{label(v.emoji, v.name)} ({total})"), "fields": fields})
    return env.get_template("mkdocs.yml.j2").render(
        site_name=yaml_scalar(_site_title(settings, drafts)),
        home_title=yaml_scalar("首页"),
        overview_title=yaml_scalar("概览"),
        venues=venues,
    )


def _read_manifest(root: Path) -> set[str]:
    try:
        text = (root / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    return {line for line in text.splitlines() if line and not line.startswith("#")}


def _remove_stale(root: Path, stale: set[str], report: Report) -> None:
    for rel in sorted(stale):
        path = root / rel
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        report.removed.append(rel)
        folder = path.parent
        while folder != root and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _write_pages(
    writer: _Writer,
    env: Environment,
    settings: Settings,
    grouped: dict[str, dict[str, list[PageEntry]]],
    *,
    drafts: bool,
) -> None:
    writer.write("mkdocs.yml", _mkdocs_yml(env, settings, grouped, drafts=drafts))
    writer.write("docs/javascripts/mathjax.js", _read_shipped("mathjax.js"))
    writer.write(NAV_OVERRIDE, _read_shipped(NAV_OVERRIDE))
    writer.write("docs/index.md", _home_page(env, settings, grouped, drafts=drafts))
    fields = {f.id: f for f in settings.fields}
    for venue in settings.venues:
        if not grouped.get(venue.id):
            continue
        writer.write(f"docs/{venue.id}/index.md", _venue_page(env, settings, venue, grouped[venue.id]))
        for field_id in grouped[venue.id]:
            writer.write(
                f"docs/{venue.id}/{field_id}/index.md", _field_page(env, settings, venue, fields[field_id], grouped)
            )


def build_site(settings: Settings, store: Store, venues: list[str] | None, *, drafts: bool) -> Report:
    """Write the site (approved versions) or the preview (``drafts``); only the given venues' pages when set."""
    root = settings.outputs_dir / ("preview" if drafts else "site")
    report = build_report(root)
    selected = {settings.venue(v).id for v in venues} if venues else {v.id for v in settings.venues}
    grouped = _gather(settings, store, [v for v in settings.venues if v.id in selected], drafts=drafts, report=report)
    env = _env()
    writer = _Writer(root, report)
    try:
        _write_pages(writer, env, settings, grouped, drafts=drafts)
    except BaseException:
        writer.batch.discard()
        raise
    writer.batch.commit()

    previous = _read_manifest(root)
    _remove_stale(root, previous - writer.pages, report)
    dropped = sorted({rel.split("/")[1] for rel in report.removed if rel.count("/") >= 2} - selected)
    if venues and dropped:
        report.warn(
            f"this site now holds only {', '.join(sorted(selected))}; removed {', '.join(dropped)} "
            f"(`summarizer build{' --drafts' if drafts else ''}` builds every venue)"
        )
    owned = sorted(writer.pages)
    manifest = "# Files written by `summarizer build`; others in this folder are left alone.\n" + "\n".join(owned)
    write_if_changed(root / MANIFEST, (manifest + "\n").encode("utf-8"))
    return _finish_report(report)


def draft_field_page(settings: Settings, store: Store, venue_id: str, field_id: str) -> str | None:
    """One field's page as ``build --drafts`` writes it (Markdown); None when the field has no paper there."""
    report = build_report("preview")
    grouped = _gather(settings, store, settings.venues, drafts=True, report=report)
    spec = settings.field(field_id)
    if spec is None or field_id not in grouped.get(venue_id, {}):
        return None
    return _field_page(_env(), settings, settings.venue(venue_id), spec, grouped)
