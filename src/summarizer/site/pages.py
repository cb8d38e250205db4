"""The pages that list papers: the field digest, the venue page, the home page.

Ordering and escaping are plain Python here and in ``markdown_text``; the layout lives in the jinja2
``templates`` beside this file.  ``select`` decides which version of a paper a build shows (the
approved one; with ``--drafts`` the newest, marked when unpublished).  ``SiteView`` is what every page
of one build reads: the papers by venue and field, the tags' tally and file names, the related papers.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import PackageLoader, StrictUndefined

from summarizer.core.config import FieldSpec, Settings, TagSettings, Venue
from summarizer.core.ids import strip_version
from summarizer.core.records import Record, Version
from summarizer.core.rules import normalize_tags

from .markdown_text import (
    escape_block_start,
    escape_heading,
    escape_html,
    escape_inline,
    escape_link_text,
    escape_summary,
    meta_text,
    sort_key,
    yaml_scalar,
)
from .page_cache import PageEnvironment
from .tags import TagTally, tag_key, tally, top_tags, venue_anchor

TEMPLATES = Path(__file__).resolve().parent / "templates"
# venue id -> field id -> the entries of that page, in order.
Grouped = dict[str, dict[str, list["PageEntry"]]]

DRAFT_MARK = " *（📝 草稿）*"
NAV_HOME = "首页"  # the sidebar's entries for the home page and for a venue's own page
NAV_OVERVIEW = "概览"


REVISION_MARK = " *（📝 修订待审）*"


@dataclass(frozen=True)
class PageEntry:
    """One paper as it appears on a page."""

    record: Record
    version: Version
    tags: tuple[str, ...]
    mark: str = ""

    @property
    def summary_block(self) -> str:
        """The summary as a Markdown paragraph of its own, with the entry's mark."""
        return escape_block_start(escape_summary(self.version.summary)) + self.mark

    @property
    def sort(self) -> tuple[str, str, str]:
        return (sort_key(self.record.title), self.record.title, self.record.id)


def sort_entries(entries: list[PageEntry]) -> list[PageEntry]:
    return sorted(entries, key=lambda e: e.sort)


def label(emoji: str, name: str) -> str:
    return " ".join(part for part in (emoji.strip(), name.strip()) if part)


def select(record: Record, *, drafts: bool, tags: TagSettings) -> PageEntry | None:
    """The version a build shows for this record, or None when it stays off the page."""
    if drafts:
        if record.summaries.status == "rejected" or record.summaries.current is None:
            return None
        version = record.summaries.current
        if record.summaries.status == "draft":
            mark = DRAFT_MARK
        elif record.summaries.has_pending_draft or record.summaries.approved is None:
            mark = REVISION_MARK
        else:
            mark = ""
    else:
        approved = record.summaries.approved
        if approved is None:
            return None
        version, mark = approved, ""
    return PageEntry(record, version, tuple(normalize_tags(version.tags, tags)), mark)


def page_env() -> PageEnvironment:
    return PageEnvironment(
        loader=PackageLoader("summarizer.site", "templates"),
        autoescape=False,  # Markdown and YAML, escaped in Python (markdown_text)
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
    )


# Tier first: the order conferences announce them in; a tier not listed comes after these, then none.
TIER_RANK = {"oral": 0, "spotlight": 1, "highlight": 1, "poster": 2, "long": 3, "short": 4, "findings": 5}


def order_entries(entries: list[PageEntry], order: str) -> list[PageEntry]:
    """A page's papers: by title, tier first (then title), or in the order they came in (then id)."""
    if order == "tier":
        return sorted(entries, key=lambda e: (_tier_rank(e.record.tier), e.sort))
    if order == "import":
        return sorted(entries, key=lambda e: (e.record.summaries.versions[0].created_at, e.record.id))
    return sort_entries(entries)


def _tier_rank(tier: str | None) -> int:
    if not tier:
        return len(TIER_RANK) + 1
    return TIER_RANK.get(tier.strip().casefold(), len(TIER_RANK))


def paper_file(record_id: str) -> str:
    """The paper page's file name beside its field page: ``<paper-id>.md`` (an id ``index`` would be the field's)."""
    return f"paper-{record_id}.md" if record_id.casefold() == "index" else f"{record_id}.md"


def paper_key(venue_id: str, record_id: str) -> str:
    return f"{venue_id}/{record_id}"


@dataclass
class SiteView:
    """What every page of one build reads."""

    settings: Settings
    grouped: Grouped
    drafts: bool
    env: PageEnvironment
    tally: TagTally
    slugs: dict[str, str]
    related: dict[str, list[str]] = field(default_factory=dict)
    by_key: dict[str, PageEntry] = field(default_factory=dict)
    related_link: dict[str, str] = field(default_factory=dict)  # a paper as related lists show it, by key

    def __post_init__(self) -> None:
        self.venues = {v.id: v for v in self.settings.venues}
        self.fields = {f.id: f for f in self.settings.fields}
        self._tagged: dict[str, list[tuple[str, str, PageEntry]]] = {}
        self._nav_keys: dict[str, str] = {}
        self._cross: dict[str, list[tuple[str, str]]] = {}
        for venue_id, by_field in self.grouped.items():
            for field_id, entries in by_field.items():
                for entry in entries:
                    self.by_key[paper_key(venue_id, entry.record.id)] = entry
                    for key in {tag_key(tag) for tag in entry.tags}:
                        self._tagged.setdefault(key, []).append((venue_id, field_id, entry))

    @functools.cached_property
    def arxiv_pages(self) -> dict[str, tuple[str, str]]:
        """arXiv id (no version) -> (paper key, its page as a paper page links it) for this build's papers.

        The same paper filed at two venues is found at the first, in config order.
        """
        pages: dict[str, tuple[str, str]] = {}
        for venue_id, by_field in self.grouped.items():
            for field_id, entries in by_field.items():
                for e in entries:
                    if e.record.arxiv_id:
                        href = f"../../{venue_id}/{field_id}/{paper_file(e.record.id)}"
                        pages.setdefault(strip_version(e.record.arxiv_id), (paper_key(venue_id, e.record.id), href))
        return pages

    @functools.cached_property
    def site_pages(self) -> set[str]:
        """Every Markdown page this build writes, relative to docs/ (what a note's links are checked against)."""
        pages = {"index.md", "search.md", *(f"tags/{slug}.md" for slug in self.slugs.values())}
        for venue_id, by_field in self.grouped.items():
            pages.add(f"{venue_id}/index.md")
            for field_id, entries in by_field.items():
                pages.add(f"{venue_id}/{field_id}/index.md")
                pages.update(f"{venue_id}/{field_id}/{paper_file(e.record.id)}" for e in entries)
        return pages

    def tagged(self, key: str) -> list[tuple[str, str, PageEntry]]:
        """``(venue id, field id, entry)`` of every paper with the tag, in page order."""
        return self._tagged.get(key, [])

    def tag_href(self, tag: str, venue_id: str | None, up: int) -> str | None:
        """The tag's page from a page ``up`` folders below the docs root; at the venue's part when given.

        None for a tag held by fewer than ``site.tag_min_papers`` papers: it has no page.
        """
        slug = self.slugs.get(tag_key(tag))
        if slug is None:
            return None
        href = "../" * up + f"tags/{slug}.md"
        return f"{href}#{venue_anchor(venue_id)}" if venue_id else href

    def tag_link(self, text: str, tag: str, venue_id: str | None, up: int) -> str:
        """``text`` (Markdown, escaped) linked to the tag's page, or as plain text when the tag has none."""
        href = self.tag_href(tag, venue_id, up)
        return f"[{text}]({href})" if href is not None else text

    def hot_links(self, entries: list[PageEntry], venue_id: str | None, up: int) -> list[str]:
        hot = self.hot(entries)
        return [self.tag_link(f"{escape_link_text(tag)} ×{n}", tag, venue_id, up) for tag, n in hot]

    def hot(self, entries: list[PageEntry]) -> list[tuple[str, int]]:
        counted = tally(e.tags for e in entries)
        for key, spellings in counted.spellings.items():  # the site's spelling of each tag, one on every page
            spellings.clear()
            spellings.update(self.tally.spellings[key])
        top = self.settings.site.hot_topics
        return top_tags(counted, top.top_k, top.min_count)

    def venue_nav(self, venue_id: str) -> dict[str, Any]:
        """The venue's part of the sidebar as ``mkdocs.yml`` writes it: its title, each field's id and title."""
        by_field = self.grouped[venue_id]
        venue = self.venues[venue_id]
        fields = [
            {"id": spec.id, "nav_title": nav_title(f"{label(spec.emoji, spec.name)} ({len(by_field[spec.id])})")}
            for spec in self.settings.fields
            if spec.id in by_field
        ]
        total = sum(len(entries) for entries in by_field.values())
        return {"id": venue_id, "nav_title": nav_title(f"{label(venue.emoji, venue.name)} ({total})"), "fields": fields}

    def nav_key(self, venue_id: str) -> str:
        """A digest of what the venue's pages show in their sidebar (the home page's entry and the venue's
        part, names and counts): it changes, they change, and ``mkdocs build --dirty`` renders them again."""
        key = self._nav_keys.get(venue_id)
        if key is None:
            shown = [nav_title(NAV_HOME), nav_title(NAV_OVERVIEW), self.venue_nav(venue_id)]
            key = hashlib.sha256(json.dumps(shown, ensure_ascii=False).encode()).hexdigest()[:12]
            self._nav_keys[venue_id] = key
        return key

    def cross_links(self, field_id: str) -> list[tuple[str, str]]:
        """``(venue id, link)`` to the field's page in each venue that has the field, in config order.

        Raw HTML, not Markdown links: as Markdown links, this line (a link per venue on every field page)
        costs a third of `mkdocs build` on a large site.  Its targets are pages this build writes.  It is
        the field page's ``cross`` part, which the site's MkDocs hook can replace in a built page.
        """
        links = self._cross.get(field_id)
        if links is None:
            links = self._cross[field_id] = [
                (other.id, f'<a href="../../{other.id}/{field_id}/">{escape_html(label(other.emoji, other.name))} '
                 f"({len(self.grouped[other.id][field_id])})</a>")
                for other in self.settings.venues
                if field_id in self.grouped.get(other.id, {})
            ]  # fmt: skip
        return links


def _cjk_join(latin_or_cjk: str, cjk: str) -> str:
    """``预训练方向`` but ``LLM Agent 方向``: a space where Latin text meets Chinese."""
    return (
        f"{latin_or_cjk} {cjk}" if latin_or_cjk[-1:].isascii() and latin_or_cjk[-1:].isalnum() else latin_or_cjk + cjk
    )


def _hot_meta(hot: list[tuple[str, int]]) -> str:
    return f"，高频主题：{'、'.join(tag for tag, _ in hot)}" if hot else ""


def _listing_page(
    view: SiteView,
    venue: Venue,
    entries: list[PageEntry],
    path: str,
    *,
    template: str,
    texts: _ListingTexts,
    **rest: Any,
) -> str:
    """A page that lists papers (``path``: a field's digest ``VENUE/FIELD``, the venue's page ``VENUE``); ``rest``
    goes to the template as it is."""
    n, hot = len(entries), view.hot(entries)
    return view.env.get_template(template).render(
        meta_title=yaml_scalar(meta_text(f"{texts.topic} · {n} 篇论文解读")),
        meta_description=yaml_scalar(meta_text(f"{texts.lead} {n} 篇论文的中文解读{texts.covers}{_hot_meta(hot)}。")),
        nav_key=view.nav_key(venue.id),
        feed=f"{path}/feed.xml",
        heading=escape_heading(texts.heading),
        count=n,
        hot=view.hot_links(entries, venue.id, path.count("/") + 1),
        **rest,
    )


@dataclass(frozen=True)
class _ListingTexts:
    """A listing page's words: its heading, the title's topic, the description's lead (before the count) and
    what it covers (after it)."""

    heading: str
    topic: str
    lead: str
    covers: str = ""


def digest_entry(entry: PageEntry) -> tuple[str, str]:
    """A paper on its field page, as the reference lays it out: the term (its linked title) and the definition."""
    title = f"**[{escape_link_text(entry.record.title)}]({paper_file(entry.record.id)})**"
    return title, entry.summary_block


def field_page(view: SiteView, venue: Venue, spec: FieldSpec) -> str:
    entries = view.grouped[venue.id][spec.id]
    cross = [link for other, link in view.cross_links(spec.id) if other != venue.id]
    name = label(spec.emoji, spec.name)
    texts = _ListingTexts(name, f"{venue.name} {spec.name}", f"{venue.name} {_cjk_join(spec.name, '方向')}")
    return _listing_page(
        view,
        venue,
        entries,
        f"{venue.id}/{spec.id}",
        template="field.md.j2",
        texts=texts,
        venue_label=escape_inline(label(venue.emoji, venue.name)),
        cross=cross,
        papers=[digest_entry(e) for e in entries],
    )


def _table_cell(markdown: str) -> str:
    return markdown.replace("|", "\\|")


def venue_page(view: SiteView, venue: Venue) -> str:
    by_field = view.grouped[venue.id]
    everything = [e for entries in by_field.values() for e in entries]
    fields = [
        {
            "id": spec.id,
            "label": escape_link_text(label(spec.emoji, spec.name)),
            "heading": escape_heading(f"{label(spec.emoji, spec.name)} ({len(by_field[spec.id])})"),
            "cell": _table_cell(escape_link_text(label(spec.emoji, spec.name))),
            "count": len(by_field[spec.id]),
            "papers": [
                f"[{escape_link_text(e.record.title)}]({spec.id}/{paper_file(e.record.id)})" for e in by_field[spec.id]
            ],
        }
        for spec in view.settings.fields
        if spec.id in by_field
    ]
    texts = _ListingTexts(label(venue.emoji, venue.name), venue.name, venue.name, f"，覆盖 {len(fields)} 个方向")
    return _listing_page(view, venue, everything, venue.id, template="venue.md.j2", texts=texts, fields=fields)


def nav_title(text: str) -> str:
    """A name for ``mkdocs.yml``: the theme writes nav titles and the site name into HTML unescaped."""
    return yaml_scalar(meta_text(text))


def site_title(settings: Settings, drafts: bool) -> str:
    return f"{settings.site.title}（预览）" if drafts else settings.site.title


def home_page(view: SiteView) -> str:
    venues: list[dict[str, Any]] = []
    for v in view.settings.venues:
        by_field = view.grouped.get(v.id)
        if not by_field:
            continue
        everything = [e for entries in by_field.values() for e in entries]
        venues.append(
            {
                "id": v.id,
                "label": escape_link_text(label(v.emoji, v.name)),
                "count": len(everything),
                "fields": len(by_field),
                "hot": view.hot_links(everything, v.id, 0),
            }
        )
    total = sum(v["count"] for v in venues)
    title = site_title(view.settings, view.drafts)
    return view.env.get_template("home.md.j2").render(
        meta_title=yaml_scalar(meta_text(title)),
        meta_description=yaml_scalar(meta_text(f"{len(venues)} 个会议 {total} 篇论文的中文解读。")),
        heading=escape_heading(title),
        venues=venues,
        total=total,
        tags=len(view.tally.papers),
        drafts=view.drafts,
    )
