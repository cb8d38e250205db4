"""Site stage: MkDocs digest pages from the records.

``build`` writes ``outputs/site/`` from approved versions only (``record.approved``,
even when a newer pending draft exists); ``build --drafts`` writes
``outputs/preview/`` (same layout) from every non-rejected paper with a summary
(``record.current``).  In the preview a paper whose shown version is not the
published one ends with a small italic marker — ``*（📝 草稿）*`` for a draft,
``*（📝 修订待审）*`` for a pending revision of an approved paper — so the page
keeps the format; the preview's site name says ``预览``.

Layout (docs/site.md, "The published site")::

    mkdocs.yml                         from `site:` in config.yaml; hooks/ and overrides/ beside it
    docs/index.md                      every venue as a card: counts, hot topics
    docs/<VENUE>/index.md              the fields and their counts, then every paper by field
    docs/<VENUE>/<FIELD>/index.md      the field digest page
    docs/<VENUE>/<FIELD>/<ID>.md       a paper's own page (related papers: ``related``)
    docs/<VENUE>/[<FIELD>/]feed.xml    Atom feeds (``feeds``)
    docs/tags/<slug>.md                a tag's papers, venue by venue (``tags``)
    docs/search.md                     the search page (Pagefind: hooks/search_index.py)
    docs/javascripts/                  MathJax settings for arithmatex, MathJax itself, the search page's script

``build VENUE...`` builds the site of just those venues: their pages, and a
home page, nav and cross-venue lines that know only them, so every link
resolves (a site mixing freshly built venues with stale pages of others
would not: its nav and cross-venue links could point at pages that were
never written).  ``build`` with no venue builds every configured venue.
A page is rendered only when its template's context changed since the last
build (``page_cache``) and written only when its bytes change; pages the
builder wrote before (listed in ``.summarizer-pages``) that no longer have
papers are removed.  Nothing else in the folder is touched.

The pages themselves are rendered in ``pages`` and ``paper_page``; ``site_files`` writes the rest.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from summarizer.core.config import Settings, Venue
from summarizer.core.errors import ConfigError, FileSystemError, RecordError
from summarizer.core.fsutil import WriteBatch, write_if_changed
from summarizer.core.ids import strip_version
from summarizer.core.progress import QUIET, Bar, Progress
from summarizer.core.report import Report
from summarizer.core.store import Store

from .feeds import feed
from .markdown_text import meta_text, yaml_scalar
from .page_cache import PageCache
from .pages import (
    Grouped,
    PageEntry,
    SiteView,
    field_page,
    home_page,
    order_entries,
    page_env,
    paper_file,
    paper_key,
    select,
    site_title,
    venue_page,
)
from .paper_page import indexed_digest, paper_page, search_digest, tag_page
from .related import Doc, related
from .site_files import SHIPPED, TEMPLATES, THEME_FILES, mathjax_es5, mathjax_files, mkdocs_yml, shipped, theme_digest
from .tags import slugs, tally

# The site's MathJax settings; the review desk typesets with the same ones.
MATHJAX_CONFIG = TEMPLATES / "mathjax.js"
SEARCH_INDEX = "docs/.search-index.json"

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


class _Writer:
    """The site's files, landing together: a failed build leaves the previous site whole, not half new."""

    def __init__(self, root: Path, report: Report):
        self.root = root
        self.report = report
        self.pages: set[str] = set()
        self.batch = WriteBatch()  # one disk sync for thousands of pages, not one each
        self.cache = PageCache(root)
        self.bar = Bar()  # a paper page more made (they are most of a build)

    def write(self, rel: str, text: str | bytes) -> None:
        data = text.encode("utf-8") if isinstance(text, str) else text
        self.pages.add(rel)
        if self.batch.write_if_changed(self.root / rel, data):
            self.report.written.append(rel)
        else:
            self.report.unchanged.append(rel)

    def page(self, rel: str, make: Callable[[], str], derive: Callable[[str], str] = lambda _: "") -> str:
        """A page made by ``make`` (one template's text), rendered only when its context changed.

        Returns ``derive`` of its text, computed when it is rendered and kept with its fingerprint.
        """
        text, derived = self.cache.make(rel, make, derive)
        if text is None:
            self.pages.add(rel)
            self.report.unchanged.append(rel)
        else:
            self.write(rel, text)
        return derived


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
        order = settings.site.order
        grouped[venue.id] = {f: order_entries(by_field[f], order) for f in settings.field_ids() if f in by_field}
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
    except UnicodeDecodeError:
        # The list decides what a build removes: a damaged one is not guessed at.
        raise RecordError(
            f"{root / MANIFEST}: damaged (not UTF-8 text): move it aside and build again "
            "(pages an earlier build wrote and this one does not are then left in place)"
        ) from None
    except OSError as exc:
        raise FileSystemError(root / MANIFEST, exc) from exc
    inside = os.path.realpath(root)
    folders: dict[str, bool] = {}  # each folder resolved once: a site has thousands of pages in a few folders
    return {
        line for line in text.split("\n") if line and not line.startswith("#") and _inside(inside, root, line, folders)
    }


def _inside(resolved_root: str, root: Path, rel: str, folders: dict[str, bool]) -> bool:
    """A plain relative path whose folder, links followed, is inside the site (removing a link removes the link)."""
    folder, _, name = rel.rpartition("/")
    if rel.startswith("/") or "\\" in rel or ".." in rel.split("/") or name in ("", "."):
        return False
    known = folders.get(folder)
    if known is None:
        real = os.path.realpath(os.path.join(root, folder))
        known = folders[folder] = real == resolved_root or real.startswith(resolved_root + os.sep)
    return known


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


def _related_docs(grouped: Grouped) -> list[Doc]:
    docs = []
    for venue_id, by_field in grouped.items():
        for field_id, entries in by_field.items():
            for e in entries:
                record = e.record
                same = f"arxiv:{strip_version(record.arxiv_id)}" if record.arxiv_id else paper_key(venue_id, record.id)
                text = record.abstract or e.version.summary
                docs.append(Doc(paper_key(venue_id, record.id), same, record.title, text, e.tags, field_id))
    return docs


def site_view(
    settings: Settings, grouped: Grouped, *, drafts: bool, cache_dir: Path | None, with_related: bool = True
) -> SiteView:
    """Everything the pages of one build read: tags, their file names, related papers (paper pages only)."""
    counted = tally(e.tags for by_field in grouped.values() for entries in by_field.values() for e in entries)
    # A tag of one paper leads nowhere but back: only tags enough papers hold get a page (and a file name).
    least = settings.site.tag_min_papers
    with_page = slugs(key for key, n in counted.papers.items() if n >= least)
    view = SiteView(settings, grouped, drafts, page_env(), counted, with_page)
    if with_related:
        view.related = related(_related_docs(grouped), settings.site.related, cache_dir)
    return view


def _write_site_files(writer: _Writer, view: SiteView) -> str:
    """mkdocs.yml, the theme, the hook, scripts, styles and MathJax; returns what the search index depends on."""
    config = mkdocs_yml(view)
    writer.write("mkdocs.yml", config)
    for rel in THEME_FILES:
        writer.write(rel, shipped(rel))
    for rel in SHIPPED:
        writer.write(f"docs/{rel}", shipped(rel))
    if view.settings.site.mathjax == "local":
        es5 = mathjax_es5()
        if es5 is None:
            raise ConfigError(
                "site.mathjax: local needs MathJax from the django-static-mathjax package: "
                "pip install django-static-mathjax (or set site.mathjax: cdn)"
            )
        for rel, path in mathjax_files(es5):
            writer.write(f"docs/{rel}", path.read_bytes())
    return config.split("\nnav:\n", 1)[0] + theme_digest()


def _write_venue(writer: _Writer, view: SiteView, venue: Venue) -> list[str]:
    """The venue's pages and feeds; returns a digest of each paper page's indexed text (the search index's input)."""
    writer.page(f"docs/{venue.id}/index.md", lambda: venue_page(view, venue))
    writer.write(f"docs/{venue.id}/feed.xml", feed(view, venue, None))
    papers = []
    writer.bar.show(venue.id)
    # Each page's lambda runs within writer.page, in its own turn of the loop (B023 fears late binding).
    for field_id, entries in view.grouped[venue.id].items():
        folder = f"docs/{venue.id}/{field_id}"
        writer.page(f"{folder}/index.md", lambda: field_page(view, venue, view.fields[field_id]))  # noqa: B023
        writer.write(f"{folder}/feed.xml", feed(view, venue, field_id))
        for entry in entries:
            rel = f"{folder}/{paper_file(entry.record.id)}"
            papers.append(writer.page(rel, lambda: paper_page(view, venue, entry), indexed_digest))  # noqa: B023
            writer.bar.advance()
    return papers


def _write_pages(writer: _Writer, view: SiteView) -> None:
    site_config = _write_site_files(writer, view)
    writer.page("docs/index.md", lambda: home_page(view))
    digests = {}
    for venue in view.settings.venues:
        if view.grouped.get(venue.id):
            digests[venue.id] = search_digest(_write_venue(writer, view, venue), site_config)
    for key, slug in view.slugs.items():
        writer.page(f"docs/tags/{slug}.md", lambda: tag_page(view, key))  # noqa: B023
    writer.page("docs/search.md", lambda: view.env.get_template("search.md.j2").render(
        meta_description=yaml_scalar(meta_text(f"搜索{site_title(view.settings, view.drafts)}的论文解读。")),
        index="search-index" if digests else "",
    ))  # fmt: skip
    labels = {venue.id: venue.name for venue in view.settings.venues if venue.id in digests}
    labels |= {f"{v}/{f}": view.fields[f].name for v in digests for f in view.grouped[v]}
    index = {"venues": digests, "folders": [*digests, "tags"], "labels": labels}
    writer.write(SEARCH_INDEX, json.dumps(index, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def build_site(
    settings: Settings, store: Store, venues: list[str] | None, *, drafts: bool, progress: Progress = QUIET
) -> Report:
    """Write the site (approved versions) or the preview (``drafts``); only the given venues' pages when set."""
    root = settings.outputs_dir / ("preview" if drafts else "site")
    report = build_report(root)
    selected = {settings.venue(v).id for v in venues} if venues else {v.id for v in settings.venues}
    grouped = _gather(settings, store, [v for v in settings.venues if v.id in selected], drafts=drafts, report=report)
    view = site_view(settings, grouped, drafts=drafts, cache_dir=root)
    writer = _Writer(root, report)
    view.env.page_cache = writer.cache
    try:
        with progress.bar("build --drafts" if drafts else "build", len(view.by_key)) as bar:  # a page per paper
            writer.bar = bar
            _write_pages(writer, view)
    except BaseException:
        writer.batch.discard()
        raise
    finally:
        view.env.page_cache = None
    writer.batch.commit()
    writer.cache.save()

    previous = _read_manifest(root)
    _remove_stale(root, previous - writer.pages, report)
    dropped = sorted({rel.split("/")[1] for rel in report.removed if rel.count("/") >= 2} - selected - {"tags"})
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
    view = site_view(settings, grouped, drafts=True, cache_dir=None, with_related=False)  # a field page lists none
    return field_page(view, settings.venue(venue_id), spec)
