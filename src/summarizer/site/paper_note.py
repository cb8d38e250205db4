"""A paper's note on its page: which note a build shows, and the note as that page's Markdown.

``build`` shows a paper's **approved** note (``record.notes.approved``), even when a newer draft
waits; ``build --drafts`` shows the newest note that is not rejected, marked in the preview when it
is not the published one — as each build treats summaries (``pages.select``).

The note is ``core.note_markdown.render``'s page (safe whatever the record holds), with the site's
own escaping for the 一句话总结 it copies, cut in two for the paper page: the **header** (``# Title``
and the bold metadata lines) and the **body** (``## 一句话总结`` and the sections).  The page puts
its own lines (venue and field links, authors, links, tags) between the two, and each part in a
``<div class="paper-note">``: what a browser shows of those divs is what the reference shows of the
same note.  A note's YAML front matter is the page's metadata on the reference (MkDocs takes it off
the page); here the page has its own, so the note's is dropped.

A comparison in the note's 与相关工作的对比 section that names an arXiv id (``arXiv:2501.12948``, as
the model's notes write it) of a paper on this site links to that paper's page: the name of a
``**vs Name**`` item, else the id itself.  Nothing is linked by name alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from summarizer.core.fences import outside_fences
from summarizer.core.ids import NEW_STYLE
from summarizer.core.markdown_containment import contained
from summarizer.core.note_markdown import render
from summarizer.core.note_rules import SECTIONS
from summarizer.core.records import NoteVersion, Record

from .markdown_text import escape_block_start, escape_summary
from .note_links import mend_links
from .pages import PageEntry, SiteView

NOTE_CLASS = "paper-note"
NOTE_DRAFT_MARK = "*（📝 笔记草稿）*"
NOTE_REVISION_MARK = "*（📝 笔记修订待审）*"

# What MkDocs reads as a page's front matter (``mkdocs.utils.meta``): it never shows on the page.
_FRONT_MATTER = re.compile(r"\A-{3}[ \t]*\n.*?\n(?:\.{3}|-{3})[ \t]*(?:\n|\Z)", re.DOTALL)
_SECTION = re.compile(r"^##[ \t]+(.+?)[ \t#]*$")
_META_LINE = re.compile(r"^[ ]{0,3}[A-Za-z0-9_-]+:")  # MkDocs' MultiMarkdown-style metadata (mkdocs.utils.meta)
_META_MORE = re.compile(r"^[ ]{4,}")
_TITLE = re.compile(r"^ {0,3}#[ \t]+\S", re.MULTILINE)
_RELATED_HEADINGS = frozenset(
    name for key, heading, aliases in SECTIONS if key == "related" for name in (heading, *aliases)
)
# ``arXiv:2501.12948`` (a version suffix allowed), not already a link's text or inside a longer token.
_ARXIV_MENTION = re.compile(rf"(?<![\w\[/.])arXiv:[ \t]?({NEW_STYLE})(?:v\d+)?(?![\w\]]|\.\d)", re.IGNORECASE)
_ANY_ARXIV = re.compile("arxiv", re.IGNORECASE)
# ``- **vs Name**`` opening a comparison item: the name a link can go on (no brackets or stars in it).
_VS_NAME = re.compile(r"^(\s*[-*+][ \t]+\*\*vs\.?[ \t]+)([^*\[\]\n]+?)(\*\*)")


@dataclass(frozen=True)
class PageNote:
    """A note as its paper's page shows it."""

    header: str  # '# Title' and the bold metadata lines (or what an imported note has there)
    body: str  # '## 一句话总结' and the note's sections
    mark: str = ""  # in the preview: the note is a draft or a revision waiting for review
    has_title: bool = True  # the header holds a '# Title' (else the page writes one)


def shown_note(record: Record, *, drafts: bool) -> tuple[NoteVersion, str] | None:
    """(the note a build shows, its preview mark); None when the page has no note."""
    notes = record.notes
    if not drafts:
        approved = notes.approved
        return (approved, "") if approved is not None else None
    current = notes.current
    if current is None or notes.status == "rejected":
        return None
    if notes.status == "draft":
        return current, NOTE_DRAFT_MARK
    return current, NOTE_REVISION_MARK if notes.has_pending_draft else ""


def page_note(view: SiteView, venue_id: str, entry: PageEntry) -> PageNote | None:
    """The note of ``entry``'s page, split and linked; None when the build shows none."""
    shown = shown_note(entry.record, drafts=view.drafts)
    if shown is None:
        return None
    version, mark = shown
    # The 一句话总结 a note without its own gets: the summary this page shows, escaped as the digest pages do.
    summary = escape_block_start(escape_summary(entry.version.summary)) + entry.mark
    markdown = render(view.settings, entry.record, version, summary_markdown=lambda _: summary)
    markdown = without_meta_lines(_FRONT_MATTER.sub("", markdown)) if version.header else markdown
    header, body = split_header(markdown)
    header, body = contained(header)[0], contained(body)[0]  # neither can swallow the rest of the page
    if "](" in header or "](" in body:  # a relative link to a page this build does not write would break strict
        folder, pages = f"{venue_id}/{entry.version.field}", view.site_pages
        header, body = mend_links(header, view, folder, pages), mend_links(body, view, folder, pages)
    if _ANY_ARXIV.search(body):
        body = link_related(body, view, f"{venue_id}/{entry.record.id}")
    return PageNote(header.strip("\n"), body.strip("\n"), mark, _TITLE.search(header) is not None)


def without_meta_lines(markdown: str) -> str:
    """``markdown`` without the ``Key: value`` lines it opens with: MkDocs reads those as the page's metadata
    (MultiMarkdown style, ``mkdocs.utils.meta``), so the reference never showed them."""
    if _META_LINE.match(markdown) is None:
        return markdown
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            return "\n".join(lines[i + 1 :]).lstrip("\n")
        if _META_LINE.match(line) is None and (i == 0 or _META_MORE.match(line) is None):
            return "\n".join(lines[i:]).lstrip("\n")
    return ""


def split_header(markdown: str) -> tuple[str, str]:
    """(header, body): the note's Markdown before its first ``## `` heading outside a code fence, and the rest."""
    lines = markdown.split("\n")
    for i, line in outside_fences(lines):
        if line.startswith("##") and _SECTION.match(line):
            return "\n".join(lines[:i]), "\n".join(lines[i:])
    return markdown, ""


def link_related(body: str, view: SiteView, own_key: str) -> str:
    """``body`` with each comparison that names the arXiv id of a paper on this site linked to that paper's page."""
    found = [i for i in (body.find(f"## {name}") for name in _RELATED_HEADINGS) if i != -1]
    if not found:
        return body
    # From the line of the first such heading on, unless a code fence could open before it (then all of it).
    cut = body.rfind("\n", 0, min(found)) + 1
    if "```" in body[:cut] or "~~~" in body[:cut]:
        cut = 0
    lines = body[cut:].split("\n")
    related = False
    for i, line in outside_fences(lines):
        section = _SECTION.match(line) if line.startswith("##") else None
        if section is not None:
            related = section.group(1).strip() in _RELATED_HEADINGS
        elif related and _ANY_ARXIV.search(line):
            lines[i] = _linked_line(line, view, own_key)
    return body[:cut] + "\n".join(lines)


def _linked_line(line: str, view: SiteView, own_key: str) -> str:
    """One comparison item: its name (``**vs Name**``) or else its arXiv ids linked to the papers' pages."""
    targets: list[tuple[re.Match[str], str]] = []
    for match in _ARXIV_MENTION.finditer(line):
        page = view.arxiv_pages.get(match.group(1))
        if page is not None and page[0] != own_key and line[: match.start()].count("`") % 2 == 0:
            targets.append((match, page[1]))
    if not targets:
        return line
    named = _VS_NAME.match(line)
    if named is not None and len({href for _, href in targets}) == 1:
        return f"{named.group(1)}[{named.group(2)}]({targets[0][1]}){named.group(3)}{line[named.end() :]}"
    out: list[str] = []
    pos = 0
    for match, href in targets:
        out += [line[pos : match.start()], f"[{match.group(0)}]({href})"]
        pos = match.end()
    return "".join([*out, line[pos:]])
