"""Each page of the site, rendered: the field digest, the venue overview, the home page, ``mkdocs.yml``.

Tallies (hot topics), ordering and escaping are plain Python here and in ``markdown_text``; the
layout lives in the jinja2 ``templates`` beside this file.  ``select`` decides which version of a
paper a build shows (the approved one; with ``--drafts`` the newest, marked when unpublished).
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from summarizer.core.config import FieldSpec, Settings, TagSettings, Venue
from summarizer.core.records import Record, Version
from summarizer.core.rules import normalize_tags

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

TEMPLATES = Path(__file__).resolve().parent / "templates"
# venue id -> field id -> the entries of that page, in order.
Grouped = dict[str, dict[str, list["PageEntry"]]]

DRAFT_MARK = " *（📝 草稿）*"


REVISION_MARK = " *（📝 修订待审）*"


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


def page_env() -> Environment:
    return Environment(
        loader=PackageLoader("summarizer.site", "templates"),
        autoescape=False,  # Markdown and YAML, escaped in Python (markdown_text)
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
    )


def _hot_text(hot: list[tuple[str, int]]) -> list[str]:
    return [f"{escape_inline(tag)} ×{n}" for tag, n in hot]


def _cjk_join(latin_or_cjk: str, cjk: str) -> str:
    """``预训练方向`` but ``LLM Agent 方向``: a space where Latin text meets Chinese."""
    return (
        f"{latin_or_cjk} {cjk}" if latin_or_cjk[-1:].isascii() and latin_or_cjk[-1:].isalnum() else latin_or_cjk + cjk
    )


def _hot_meta(hot: list[tuple[str, int]]) -> str:
    return f"，高频主题：{'、'.join(tag for tag, _ in hot)}" if hot else ""


def field_page(
    env: Environment,
    settings: Settings,
    venue: Venue,
    spec: FieldSpec,
    grouped: Grouped,
) -> str:
    entries = grouped[venue.id][spec.id]
    hot = hot_topics(entries, settings.site.hot_topics.top_k, settings.site.hot_topics.min_count)
    # Raw HTML, not Markdown links: as Markdown links, this line (a link per venue on every field page)
    # costs a third of `mkdocs build` on a large site.  Its targets are pages this build writes.
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


def venue_page(env: Environment, settings: Settings, venue: Venue, by_field: dict[str, list[PageEntry]]) -> str:
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


def home_page(env: Environment, settings: Settings, grouped: Grouped, *, drafts: bool) -> str:
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


def mkdocs_yml(env: Environment, settings: Settings, grouped: Grouped, *, drafts: bool) -> str:
    venues = []
    for v in settings.venues:
        by_field = grouped.get(v.id)
        if not by_field:
            continue
        total = sum(len(e) for e in by_field.values())
        fields = [
            {"id": spec.id, "nav_title": _nav_title(f"{label(spec.emoji, spec.name)} ({len(by_field[spec.id])})")}
            for spec in settings.fields
            if spec.id in by_field
        ]
        venues.append({"id": v.id, "nav_title": _nav_title(f"{label(v.emoji, v.name)} ({total})"), "fields": fields})
    return env.get_template("mkdocs.yml.j2").render(
        site_name=_nav_title(_site_title(settings, drafts)),
        home_title=_nav_title("首页"),
        overview_title=_nav_title("概览"),
        venues=venues,
    )


def _nav_title(text: str) -> str:
    """A name for ``mkdocs.yml``: the theme writes nav titles and the site name into HTML unescaped."""
    return yaml_scalar(meta_text(text))
