"""The Atom feeds a reader subscribes to: well-formed whatever the records hold, and valid Atom (RFC 4287)."""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree
from test_build import sample_store

from conftest import Project
from summarizer.core.records import Record
from summarizer.site.build import build_site

ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)\Z")
HOSTILE = "Title \uffff with \ufffe and \x01 \x0b inside"


def atom_problems(feed: etree._Element) -> list[str]:
    """What RFC 4287 §4.1.1–4.1.2 require of a feed and its entries that ``feed`` lacks."""
    problems = []

    def exactly_one(node: etree._Element, name: str, where: str) -> None:
        found = node.findall(f"{ATOM}{name}")
        if len(found) != 1 or not (found[0].text or "").strip():
            problems.append(f"{where}: {len(found)} atom:{name} (or empty)")
        elif name == "updated" and not RFC3339.match(found[0].text or ""):
            problems.append(f"{where}: atom:updated {found[0].text!r} is not an RFC 3339 date")

    if feed.tag != f"{ATOM}feed":
        return [f"the root is {feed.tag}"]
    for name in ("id", "title", "updated"):
        exactly_one(feed, name, "feed")
    entries = feed.findall(f"{ATOM}entry")
    feed_author = feed.find(f"{ATOM}author/{ATOM}name") is not None
    for i, entry in enumerate(entries):
        for name in ("id", "title", "updated"):
            exactly_one(entry, name, f"entry {i}")
        if not feed_author and entry.find(f"{ATOM}author/{ATOM}name") is None:
            problems.append(f"entry {i}: no atom:author, and the feed has none")
        alternates = [link for link in entry.findall(f"{ATOM}link") if link.get("rel", "alternate") == "alternate"]
        if entry.find(f"{ATOM}content") is None and not alternates:
            problems.append(f"entry {i}: neither atom:content nor an alternate link")
    return problems


def built_docs(project: Project) -> Path:
    settings, store = sample_store(project)
    hostile = Record(venue="ICML2026", id="2601.00099", title=HOSTILE, arxiv_id="2601.00099")
    hostile.summaries.add_version(
        "本文提出 \uffff 一种方法\x01，提高了 12% 的吞吐。", ["LLM\ufffe"], "llm_pretraining", "import"
    )
    hostile.summaries.approve()
    store.save(hostile)
    return Path(build_site(settings, store, None, drafts=False).subject) / "docs"


def test_every_feed_is_well_formed_and_valid_atom_whatever_a_title_holds(project: Project) -> None:
    docs = built_docs(project)
    feeds = sorted(docs.rglob("feed.xml"))
    assert len(feeds) >= 4
    strict = etree.XMLParser(recover=False, resolve_entities=False)
    for path in feeds:
        feed = etree.fromstring(path.read_bytes(), strict)  # raises on an ill-formed feed
        assert atom_problems(feed) == [], path
    venue = etree.fromstring((docs / "ICML2026/feed.xml").read_bytes(), strict)
    titles = [e.findtext(f"{ATOM}title") for e in venue.findall(f"{ATOM}entry")]
    assert "Title  with  and inside" in titles  # what XML forbids is gone, the rest is kept


def test_the_atom_check_finds_what_a_feed_lacks() -> None:
    bare = etree.fromstring(
        b'<feed xmlns="http://www.w3.org/2005/Atom"><id>x</id><title>t</title><updated>2026</updated>'
        b"<entry><id>e</id><title>t</title><updated>2026-01-01T00:00:00Z</updated></entry></feed>"
    )
    problems = atom_problems(bare)
    assert any("RFC 3339" in p for p in problems)
    assert any("no atom:author" in p for p in problems)
    assert any("alternate link" in p for p in problems)
