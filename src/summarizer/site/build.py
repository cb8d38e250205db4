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

The pages themselves are rendered in ``pages``.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment

from summarizer.core.config import Settings, Venue
from summarizer.core.fsutil import WriteBatch, write_if_changed
from summarizer.core.report import Report
from summarizer.core.store import Store

from .pages import (
    TEMPLATES,
    Grouped,
    PageEntry,
    field_page,
    home_page,
    mkdocs_yml,
    page_env,
    select,
    sort_entries,
    venue_page,
)

NAV_OVERRIDE = "overrides/partials/nav-item.html"
# The site's MathJax settings; the review desk typesets with the same ones.
MATHJAX_CONFIG = TEMPLATES / "mathjax.js"

MANIFEST = ".summarizer-pages"


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
        report.details += [f"  wrote {page}" for page in report.written]
    report.details += [f"  removed {page}" for page in report.removed]
    return report


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


def _gather(settings: Settings, store: Store, venues: list[Venue], *, drafts: bool, report: Report) -> Grouped:
    """venue id -> field id -> entries, for the venues of this build, in config order."""
    known_fields = set(settings.field_ids())
    grouped: Grouped = {}
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


def _read_manifest(root: Path) -> set[str]:
    """The pages an earlier build wrote: only plain relative paths inside the site folder count.

    The list is a file anyone could edit: ``../config.yaml`` or ``/etc/x`` in it names nothing
    this build may remove.
    """
    try:
        text = (root / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        return set()
    inside = root.resolve()
    return {
        line for line in text.split("\n") if line and not line.startswith("#") and _inside(inside, root / line, line)
    }


def _inside(resolved_root: Path, path: Path, rel: str) -> bool:
    plain = not Path(rel).is_absolute() and ".." not in Path(rel).parts and "\\" not in rel
    return plain and path.resolve().is_relative_to(resolved_root)


def _remove_stale(root: Path, stale: set[str], report: Report) -> None:
    for rel in sorted(stale):
        path = root / rel
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        report.removed.append(rel)
        folder = path.parent
        while folder != root and folder.is_relative_to(root) and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _write_pages(
    writer: _Writer,
    env: Environment,
    settings: Settings,
    grouped: Grouped,
    *,
    drafts: bool,
) -> None:
    writer.write("mkdocs.yml", mkdocs_yml(env, settings, grouped, drafts=drafts))
    writer.write("docs/javascripts/mathjax.js", _read_shipped("mathjax.js"))
    writer.write(NAV_OVERRIDE, _read_shipped(NAV_OVERRIDE))
    writer.write("docs/index.md", home_page(env, settings, grouped, drafts=drafts))
    fields = {f.id: f for f in settings.fields}
    for venue in settings.venues:
        if not grouped.get(venue.id):
            continue
        writer.write(f"docs/{venue.id}/index.md", venue_page(env, settings, venue, grouped[venue.id]))
        for field_id in grouped[venue.id]:
            writer.write(
                f"docs/{venue.id}/{field_id}/index.md", field_page(env, settings, venue, fields[field_id], grouped)
            )


def build_site(settings: Settings, store: Store, venues: list[str] | None, *, drafts: bool) -> Report:
    """Write the site (approved versions) or the preview (``drafts``); only the given venues' pages when set."""
    root = settings.outputs_dir / ("preview" if drafts else "site")
    report = build_report(root)
    selected = {settings.venue(v).id for v in venues} if venues else {v.id for v in settings.venues}
    grouped = _gather(settings, store, [v for v in settings.venues if v.id in selected], drafts=drafts, report=report)
    env = page_env()
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
    return field_page(page_env(), settings, settings.venue(venue_id), spec, grouped)
