"""Atom feeds: one per venue (``docs/VENUE/feed.xml``) and one per field of it (``docs/VENUE/FIELD/feed.xml``).

Each lists the newest ``FEED_ITEMS`` papers of its page, newest first (by when the shown version was
written), with the summary as text, the tags as categories and a link to the paper's page.  Links are
absolute under ``site.site_url`` when it is set; without it they are relative to the feed, which Atom
resolves against the feed's own address.  Ids do not depend on the address (``urn:summarizer:…``), so
moving the site does not make every item new to a reader.  The same papers give the same bytes.

Every feed is well-formed whatever its texts hold (characters XML 1.0 forbids are dropped, the rest
escaped) and valid Atom: an id, a title and an updated date on the feed and each entry, and the
site as the feed's author (RFC 4287 §4.1.1 asks for an author on the feed or on every entry).
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape as _escape
from xml.sax.saxutils import quoteattr as _quoteattr

from summarizer.core.config import Venue

from .markdown_text import clean
from .pages import PageEntry, SiteView, label, paper_file

FEED_ITEMS = 50
EPOCH = "1970-01-01T00:00:00Z"


# Outside XML 1.0's Char production: C0 controls but tab, LF and CR; surrogates; U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(value: str) -> str:
    return _escape(_NOT_XML.sub("", value))


def quoteattr(value: str) -> str:
    return _quoteattr(_NOT_XML.sub("", value))


def _text(value: str) -> str:
    return escape(clean(value))


def _site_url(view: SiteView) -> str:
    url = view.settings.site.site_url or ""
    return url if not url or url.endswith("/") else url + "/"


def _entry(view: SiteView, venue: Venue, entry: PageEntry, base: str, folder: str) -> str:
    record, version = entry.record, entry.version
    href = f"{base}{folder}{paper_file(record.id).removesuffix('.md')}/"
    categories = "".join(f"\n    <category term={quoteattr(clean(tag))}/>" for tag in entry.tags)
    return (
        "  <entry>\n"
        f"    <title>{_text(record.title)}</title>\n"
        f"    <id>urn:summarizer:paper:{escape(venue.id)}/{escape(record.id)}</id>\n"
        f"    <link href={quoteattr(href)}/>\n"
        f"    <updated>{escape(version.created_at)}</updated>\n"
        f'    <summary type="text">{_text(version.summary)}</summary>{categories}\n'
        "  </entry>\n"
    )


def feed(view: SiteView, venue: Venue, field_id: str | None) -> str:
    """The venue's feed (``field_id`` None) or one field's."""
    by_field = view.grouped[venue.id]
    items = [(f, e) for f, entries in by_field.items() if field_id in (None, f) for e in entries]
    items.sort(key=lambda item: (item[1].version.created_at, item[1].record.id), reverse=True)
    items = items[:FEED_ITEMS]
    path = f"{venue.id}/" + (f"{field_id}/" if field_id else "")
    site = _site_url(view)
    base = site + path if site else ""
    name = label(venue.emoji, venue.name)
    if field_id:
        spec = view.fields[field_id]
        name += " · " + label(spec.emoji, spec.name)
    updated = max((e.version.created_at for _, e in items), default=EPOCH)
    entries = "".join(_entry(view, venue, e, base, "" if field_id else f"{f}/") for f, e in items)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="zh">\n'
        f"  <title>{_text(name)} · {_text(view.settings.site.title)}</title>\n"
        f"  <author><name>{_text(view.settings.site.title) or 'summarizer'}</name></author>\n"
        f"  <id>urn:summarizer:feed:{escape(path)}</id>\n"
        f'  <link rel="self" href={quoteattr(base + "feed.xml")}/>\n'
        f'  <link rel="alternate" type="text/html" href={quoteattr(base or "./")}/>\n'
        f"  <updated>{escape(updated)}</updated>\n"
        f"{entries}"
        "</feed>\n"
    )
