"""Step two of fetch: each entry of the venue's list → a record with its metadata.

A list or arXiv-query entry is resolved on arXiv (by id, in batches, or by a verified title match);
a venue source's entry brings its own metadata, and ``match_arxiv`` adds the paper's arXiv version
(looked for once).  What is already complete is counted as cached, without a request.
"""

from __future__ import annotations

import arxiv

from summarizer.core import limits
from summarizer.core.bounds import fit_names, fit_text, fit_title, fit_url
from summarizer.core.errors import ArxivUnavailable, FetchError
from summarizer.core.ids import normalize_title, record_id
from summarizer.core.records import Record, now_iso
from summarizer.core.report import Report
from summarizer.core.sanitize import clean_line

from .arxiv_api import ArxivAPI
from .papers import FetchRun, is_done
from .sources.base import Entry, SourceContext

SHORT_TITLE_WORDS = 5  # below this many words a title match also needs the first author


def apply_arxiv(record: Record, result: arxiv.Result, entry: Entry) -> None:
    """arXiv's metadata → the record (cleaned and fitted: ``core.bounds``)."""
    record.title = fit_title(result.title) or record.title
    record.authors = fit_names([a.name for a in result.authors])
    record.abstract = _abstract(result)
    record.categories = list(result.categories)
    record.comment = clean_line(result.comment or "") or None
    record.arxiv_id = result.get_short_id()
    if entry.url and not record.url:
        record.url = fit_url(entry.url)
    record.fetch.pdf_url = entry.pdf_url or result.pdf_url or f"https://arxiv.org/pdf/{record.arxiv_id}"


def _abstract(result: arxiv.Result) -> str | None:
    return fit_text(clean_line(result.summary), limits.ABSTRACT)


def apply_native(record: Record, entry: Entry) -> None:
    """The source's own metadata → the record; what the source lacks keeps what arXiv gave."""
    record.title = entry.title or record.title
    record.authors = entry.authors or record.authors
    record.abstract = entry.abstract or record.abstract
    record.url = entry.url or record.url  # a native entry's fields are fitted (native_entry)
    record.fetch.pdf_url = entry.pdf_url or record.fetch.pdf_url
    record.tier = entry.tier
    record.venue_label = entry.venue_label
    if entry.arxiv_id:
        record.arxiv_id = entry.arxiv_id


def resolve(run: FetchRun, ctx: SourceContext, entries: list[Entry], *, match_arxiv: bool) -> list[Record]:
    """Every entry → a record with its metadata; the records whose PDF is still to fetch."""
    need_ids: dict[str, list[Entry]] = {}
    need_titles: list[Entry] = []
    need_pdf: list[Record] = []
    for entry in entries:
        if entry.native:
            record = _native(run, ctx, entry, match_arxiv)
            if record is not None:
                need_pdf.append(record)
        else:
            _triage(run, entry, need_ids, need_titles, need_pdf)
    if need_ids:
        need_pdf.extend(_by_ids(run, ctx.api, need_ids))
    for entry in need_titles:
        record = _by_title(run, ctx.api, entry)
        if record is not None:
            need_pdf.append(record)
    return need_pdf


def _native(run: FetchRun, ctx: SourceContext, entry: Entry, match_arxiv: bool) -> Record | None:
    api, http = ctx.api, ctx.http
    known = run.by_entry.get(entry.line)
    paper_id = known.id if known is not None else entry.provisional_id()
    if not run.claim(paper_id, entry):
        return None
    record = run.record(paper_id, entry)
    apply_native(record, entry)
    if is_done(run.settings, record):
        if match_arxiv:  # fetched before match_arxiv was turned on: looked for once
            _match_once(run, api, record)
        run.cached(record)
        return None
    if not record.abstract and entry.abstract_from is not None:
        run.bar.show("abstracts")
        try:
            record.abstract = fit_text(clean_line(entry.abstract_from(http) or ""), limits.ABSTRACT)
        except FetchError as exc:
            run.report.warn(f"{run.venue_id}/{record.id}: abstract page skipped ({exc.reason})")
    if match_arxiv:
        _match_once(run, api, record)
    if not record.fetch.pdf_url and record.arxiv_id:
        record.fetch.pdf_url = f"https://arxiv.org/pdf/{record.arxiv_id}"
    return record


def _match_once(run: FetchRun, api: ArxivAPI, record: Record) -> None:
    """The paper's arXiv version, looked for once (a paper not on arXiv costs no query on the next fetch)."""
    if record.arxiv_id or record.fetch.arxiv_checked_at is not None:
        return
    run.bar.show("arXiv title match")
    _match_arxiv(api, record, run.report)


def _match_arxiv(api: ArxivAPI, record: Record, report: Report) -> None:
    """A verified close title match (and the first author for short titles) fills what the source lacks."""
    try:
        result = api.by_title(record.title)
    except ArxivUnavailable as exc:
        report.warn(f"{record.venue}/{record.id}: arXiv match skipped ({exc}); the next fetch tries again")
        return
    record.fetch.arxiv_checked_at = now_iso()
    if result is None:
        return
    if len(normalize_title(record.title).split()) < SHORT_TITLE_WORDS and not _same_first_author(record, result):
        return  # a short title alone is too weak: a doubtful match is no match
    record.arxiv_id = result.get_short_id()
    record.abstract = record.abstract or _abstract(result)
    record.authors = record.authors or fit_names([a.name for a in result.authors])
    record.categories = list(result.categories)
    record.comment = clean_line(result.comment or "") or None


def _same_first_author(record: Record, result: arxiv.Result) -> bool:
    if not record.authors or not result.authors:
        return False
    ours = normalize_title(record.authors[0]).split()
    theirs = normalize_title(result.authors[0].name).split()
    return bool(ours and theirs and ours[-1] == theirs[-1])


def _triage(
    run: FetchRun, entry: Entry, need_ids: dict[str, list[Entry]], need_titles: list[Entry], need_pdf: list[Record]
) -> None:
    """A list or arXiv-query entry: cached, known, to ask arXiv by id or title, or a PDF of its own."""
    if entry.problem:
        _fail_entry(run, entry, entry.problem)
        return
    known = run.by_entry.get(entry.line)
    paper_id = entry.provisional_id() if entry.arxiv_id or known is None else known.id
    here = _known_here(run, entry, run.records.get(paper_id))
    if here is None and entry.arxiv_id:
        need_ids.setdefault(entry.arxiv_id, []).append(entry)
    elif here is None:
        need_titles.append(entry)
    elif run.claim(paper_id, entry):
        record = run.record(paper_id, entry)
        if here == "cached":
            run.cached(record)
            return
        if here == "arxiv result" and entry.meta is not None:
            apply_arxiv(record, entry.meta, entry)
        elif here == "its own PDF":
            record.title = fit_title(entry.title or record.title)
            record.url = fit_url(entry.url) or record.url
            record.fetch.pdf_url = entry.pdf_url
        need_pdf.append(record)


def _known_here(run: FetchRun, entry: Entry, record: Record | None) -> str | None:
    """What needs no arXiv look-up: a paper done before, an arXiv-query result, a record whose PDF alone is
    missing, a list line with a PDF of its own (not on arXiv); None when arXiv is to be asked."""
    if record is not None and is_done(run.settings, record):
        return "cached"
    if entry.meta is not None:
        return "arxiv result"
    if record is not None and _only_the_pdf_missing(record):
        return "metadata known"
    if not entry.arxiv_id and entry.pdf_url:
        return "its own PDF"
    return None


def _only_the_pdf_missing(record: Record) -> bool:
    """Metadata from an earlier run is here: only the PDF is still to fetch."""
    return bool(record.arxiv_id and record.abstract and record.fetch.pdf_url)


def _by_ids(run: FetchRun, api: ArxivAPI, need_ids: dict[str, list[Entry]]) -> list[Record]:
    run.bar.show("arXiv metadata")
    found, failed = api.by_ids(list(need_ids))
    out: list[Record] = []
    for wanted, group in need_ids.items():
        for entry in group:
            paper_id = entry.provisional_id()
            if not run.claim(paper_id, entry):
                continue
            record = run.record(paper_id, entry)
            if wanted in found:
                apply_arxiv(record, found[wanted], entry)
                out.append(record)
            else:
                run.fail(record, failed.get(wanted, "not found on arXiv"))
    return out


def _by_title(run: FetchRun, api: ArxivAPI, entry: Entry) -> Record | None:
    assert entry.title is not None
    run.bar.show("arXiv title search")
    try:
        result = api.by_title(entry.title)
    except ArxivUnavailable as exc:
        _fail_entry(run, entry, f"title search failed: {exc}")
        return None
    if result is None:
        _fail_entry(run, entry, "no arXiv match for title")
        return None
    paper_id = record_id(arxiv_id=result.get_short_id())
    if not run.claim(paper_id, entry):
        return None
    run.forget_unresolved(entry, paper_id)
    record = run.record(paper_id, entry)
    if is_done(run.settings, record):
        run.cached(record)
        return None
    apply_arxiv(record, result, entry)
    return record


def _fail_entry(run: FetchRun, entry: Entry, reason: str) -> None:
    paper_id = entry.provisional_id()
    if run.claim(paper_id, entry):
        run.fail(run.record(paper_id, entry), reason)
