"""A paper's own page (``docs/VENUE/FIELD/<paper-id>.md``) and each tag's page (``docs/tags/<slug>.md``).

The paper page shows the title, the venue with its tier and the field (a link back to the field's
digest), the authors, the links (abstract page, PDF, the source's page, code when the record names
it), the tags (each to its tag page), the summary, the note when there is one, and up to
``site.related`` related papers from any venue.  The part above the related papers is what the site's
search indexes (``data-pagefind-body``).

A paper with a note shown (``paper_note``: the approved one; in the preview the newest) reads as the
reference's note page: the note's own title and bold metadata lines, then the page's lines above
(venue, field, authors, links, tags), then the note's 一句话总结 and sections in place of the summary.
The page links back to its field's page and its venue's page, with or without a note.  Its related
papers are one line of raw HTML (the ``related`` part), which the site's MkDocs hook can replace in a
built page (``hooks/rebuild.py``).
"""

from __future__ import annotations

import hashlib
import re

from summarizer.core.config import Venue
from summarizer.core.ids import strip_version

from .markdown_text import (
    escape_heading,
    escape_html,
    escape_inline,
    escape_link_text,
    html_inline,
    link_target,
    meta_text,
    yaml_scalar,
)
from .pages import PageEntry, SiteView, label, paper_file
from .paper_note import NOTE_CLASS, PageNote, page_note
from .tags import venue_anchor

# A repository named in the paper's comment or abstract ("Code: https://github.com/org/repo").
_CODE_URL = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com)/[\w.-]+/[\w.-]+", re.IGNORECASE)
DESCRIPTION_CHARS = 150


def code_url(entry: PageEntry) -> str | None:
    for text in (entry.record.comment, entry.record.abstract):
        m = _CODE_URL.search(text or "")
        if m:
            return m.group(0).rstrip(".")
    return None


def paper_links(entry: PageEntry) -> list[tuple[str, str]]:
    """``(label, URL)``: the abstract page, the PDF, the source's page when it is another, the code."""
    record = entry.record
    abs_url = f"https://arxiv.org/abs/{strip_version(record.arxiv_id)}" if record.arxiv_id else None
    arxiv_pdf = f"https://arxiv.org/pdf/{strip_version(record.arxiv_id)}" if record.arxiv_id else None
    pdf = link_target(record.fetch.pdf_url) or arxiv_pdf  # the source's PDF, else arXiv's
    candidates = [("arXiv", abs_url), ("PDF", pdf), ("来源", record.url if record.url != abs_url else None)]
    candidates.append(("代码", code_url(entry)))
    links: list[tuple[str, str]] = []
    for name, url in candidates:
        target = link_target(url)
        if target and target not in (t for _, t in links):
            links.append((name, target))
    return links


def _tier(entry: PageEntry) -> str:
    tier = (entry.record.tier or "").strip()
    return escape_inline(tier[:1].upper() + tier[1:]) if tier else ""


def related_links(view: SiteView, venue_id: str, record_id: str) -> list[str]:
    """The paper's related papers as raw HTML (a link and where it is from), for the page's ``related`` part.

    Raw HTML, one line: the site's MkDocs hook can put a new list into a built page without rendering it
    again (``hooks/rebuild.py``), which a change in another venue often asks of thousands of pages.
    """
    links = []
    for key in view.related.get(f"{venue_id}/{record_id}", []):
        link = view.related_link.get(key)
        if link is None and key in view.by_key:
            link = view.related_link[key] = _related_link(view, key, view.by_key[key])
        if link is not None:
            links.append(link)
    return links


def _related_link(view: SiteView, key: str, other: PageEntry) -> str:
    """A paper as another paper's page lists it: the same from every paper page (``VENUE/FIELD/ID/``)."""
    other_venue = view.venues[key.split("/", 1)[0]]
    other_field = view.fields[other.version.field]
    href = f"../../../{other_venue.id}/{other_field.id}/{paper_file(other.record.id).removesuffix('.md')}/"
    where = f"{label(other_venue.emoji, other_venue.name)} · {label(other_field.emoji, other_field.name)}"
    return f'<a href="{href}">{html_inline(other.record.title)}</a> · {escape_html(where)}'


def _about(view: SiteView, venue: Venue, entry: PageEntry, note: PageNote | None) -> str:
    """The page's own lines: the venue and field (linked), authors, links and tags.

    Under a note they follow its bold metadata lines in their style (its header already names the venue and
    the field: the links back to them end the page); without one, a paragraph each under the title.
    """
    record = entry.record
    authors = escape_inline(", ".join(record.authors))
    links = " · ".join(f"[{name}]({url})" for name, url in paper_links(entry))
    tags = " · ".join(view.tag_link(escape_link_text(tag), tag, venue.id, 2) for tag in entry.tags)
    about = [("作者", authors), ("链接", links), ("标签", tags)]
    if note is not None:
        lines = "  \n".join(f"**{name}**: {value}" for name, value in about if value)
        return f"{lines}\n\n{note.mark}" if note.mark else lines
    spec = view.fields[entry.version.field]
    tier = _tier(entry)
    place = f"**[{escape_link_text(label(venue.emoji, venue.name))}](../index.md)**{f' · {tier}' if tier else ''}"
    paragraphs = [f"{place} · [{escape_link_text(label(spec.emoji, spec.name))}](index.md)"]
    return "\n\n".join(paragraphs + [f"**{name}：** {value}" for name, value in about if value])


def paper_page(view: SiteView, venue: Venue, entry: PageEntry) -> str:
    """The page of one paper, with its note when the build shows one."""
    record, version = entry.record, entry.version
    spec = view.fields[version.field]
    note = page_note(view, venue.id, entry)
    return view.env.get_template("paper.md.j2").render(
        meta_title=yaml_scalar(meta_text(f"{record.title} · {venue.name}")),
        meta_description=yaml_scalar(meta_text(_clip(version.summary))),
        nav_key=view.nav_key(venue.id),
        heading=escape_heading(record.title),
        about=_about(view, venue, entry, note),
        summary="" if note else entry.summary_block,
        note=note,
        note_class=NOTE_CLASS,
        venue_label=escape_link_text(label(venue.emoji, venue.name)),
        field_label=escape_link_text(label(spec.emoji, spec.name)),
        related=related_links(view, venue.id, record.id),
    )


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1] + "…"


def tag_page(view: SiteView, key: str) -> str:
    """Every paper with the tag, venue by venue in config order, each venue's part at ``#v-<VENUE>``."""
    shown = view.tally.shown(key)
    parts = []
    by_venue: dict[str, list[str]] = {}
    for venue_id, field_id, e in view.tagged(key):
        # Raw HTML, not a Markdown list: a tag of thousands of papers is one page, and as Markdown links it
        # alone takes seconds of `mkdocs build`.  Its targets are pages this build writes (their built URLs).
        href = f"../../{venue_id}/{field_id}/{paper_file(e.record.id).removesuffix('.md')}/"
        field = escape_html(label(view.fields[field_id].emoji, view.fields[field_id].name))
        by_venue.setdefault(venue_id, []).append(
            f'<li><a href="{href}">{escape_html(e.record.title)}</a> · {field}</li>'
        )
    for venue in view.settings.venues:
        papers = by_venue.get(venue.id)
        if papers:
            name = meta_text(label(venue.emoji, venue.name))
            parts.append({"anchor": venue_anchor(venue.id), "heading": f"{name} ({len(papers)})", "papers": papers})
    n = sum(len(p["papers"]) for p in parts)
    return view.env.get_template("tag.md.j2").render(
        meta_title=yaml_scalar(meta_text(f"{shown} · {n} 篇论文")),
        meta_description=yaml_scalar(meta_text(f"标签「{shown}」下 {len(parts)} 个会议的 {n} 篇论文解读。")),
        heading=escape_heading(f"🏷️ {shown}"),
        count=n,
        parts=parts,
    )


NOT_INDEXED = "\n<!-- not indexed -->"


def indexed_digest(page: str) -> str:
    """A digest of what the search indexes of a paper page: its text above the related papers."""
    # The page's own marker is its last: a note may hold the same comment (kept as written), higher up.
    return hashlib.sha256(page.rsplit(NOT_INDEXED, 1)[0].encode("utf-8")).hexdigest()[:32]


def search_digest(page_digests: list[str], site_config: str) -> str:
    """What the search indexes of a venue, as a digest: its paper pages' ``indexed_digest``, the site's settings."""
    digest = hashlib.sha256(site_config.encode("utf-8"))
    for page_digest in page_digests:
        digest.update(page_digest.encode("ascii"))
    return digest.hexdigest()[:16]
