"""Text stage: a paper's PDF → its sections (title, abstract, introduction, conclusion, rest).

It knows nothing of records or the cache: ``extract_pdf`` (bytes or path → ``PaperText``;
raises ``FetchError`` with a plain reason for encrypted, damaged or image-only PDFs, and past the
pages or characters it is given) is all ``pdf_worker`` calls, in a process of its own;
``core.cache_layout`` says where the result is kept and ``core.paper_text`` what of it the model reads.

Sections are found on pymupdf's text blocks (plain text extraction, ligatures
expanded, line-end hyphens joined, spacing accents such as ``Teˇsanovi´c``
recombined): headings like ``Abstract``, ``1. Introduction``, ``I.`` +
``INTRODUCTION``, ``5 Conclusion, Limitations, and Future Work`` or
``V. DISCUSSION``; a section runs to the next top-level heading.  A table of
contents is not mistaken for the body: of several candidate headings the one
followed by the most text wins.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from summarizer.core.errors import FetchError
from summarizer.core.paper_text import PaperText

# -- PDF → sections -----------------------------------------------------------

MIN_TEXT_CHARS = 200  # less than this over the whole PDF: no text layer (a scan)
MAX_SECTION_CHARS = 40_000  # a section that never meets its end stops here
MAX_REST_CHARS = 200_000

_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
# LaTeX accents that text extraction leaves as a spacing character before the letter: ``Teˇsanovi´c``.
_SPACING_ACCENTS = dict(zip("´ˇ¨˜ˆ˘˙˝¯˚", "\u0301\u030c\u0308\u0303\u0302\u0306\u0307\u030b\u0304\u030a", strict=True))
_ACCENT_BEFORE_LETTER = re.compile("([" + "".join(_SPACING_ACCENTS) + r"])\s?([^\W\d_])")
_HYPHEN_BREAK = re.compile(r"(\S*?)([A-Za-z])-\n([a-z])")
_ARXIV_STAMP = re.compile(r"^arXiv:\d{4}\.\d{4,5}|^arXiv:[a-z-]+/\d{7}")

_NUMBER = r"(?:\d{1,2}|[IVX]{1,6}|[A-H])"
_NUMBERING = rf"(?:{_NUMBER}\.?\s+)?"
_KINDS = {
    "abstract": r"abstract",
    "introduction": r"introduction(?:\s+and\s+[a-z ]{3,30})?",
    "conclusion": r"(?:conclusions?|concluding\s+remarks|summary\s+and\s+(?:conclusions?|outlook)|"
    r"conclusions?\s*(?:,|and|&)\s*[a-z ,&]{3,60}|discussion\s+and\s+conclusions?)",
    "discussion": r"(?:discussion|discussions|summary|discussion\s+and\s+[a-z ]{3,40})",
    "stop": r"(?:references|bibliography|acknowledge?ments?|acknowledge?ments?\s+and\s+[a-z ]{3,40}|"
    r"[a-z ]{0,30}\s+and\s+acknowledge?ments?|appendix(?:\s+[a-z0-9].{0,60})?|appendices|"
    r"supplementary\s+materials?|author\s+contributions)",
    "other": r"(?:related\s+work|background|preliminaries|problem\s+(?:setup|formulation|statement)|methods?|"
    r"methodology|approach|our\s+approach|model|experiments?|experimental\s+(?:setup|results)|results|"
    r"evaluation|analysis|limitations|future\s+work|setup|theory)",
}
_KIND_RES = {kind: re.compile(rf"^{_NUMBERING}(?P<name>{body})\s*[.:]?$", re.I) for kind, body in _KINDS.items()}
# Any other top-level numbered heading: "2 Approach", "3. Experiments", "II. MODEL".
_NUMBERED_HEADING = re.compile(r"^(?P<num>\d{1,2}|[IVX]{1,6})\.?\s+(?P<name>[A-Z][^\n]{1,78})$")
_INLINE_ABSTRACT = re.compile(r"^abstract\s*[.:—–-]\s*(?=\S)", re.I)
_BARE_NUMBER = re.compile(rf"^{_NUMBER}\.?$")


@dataclass
class _Unit:
    """A paragraph-like piece of the page: a heading or a block of text."""

    text: str
    page: int
    heading: str | None = None  # kind when this unit is a heading
    number: str | None = None


@dataclass
class _Doc:
    units: list[_Unit] = field(default_factory=list)
    title: str = ""
    pages: int = 0


def normalize_pdf_text(text: str) -> str:
    """Ligatures expanded, spacing accents recombined, line-end hyphens joined, whitespace collapsed."""
    text = text.translate(_LIGATURES)
    text = _ACCENT_BEFORE_LETTER.sub(lambda m: m.group(2) + _SPACING_ACCENTS[m.group(1)], text)
    text = unicodedata.normalize("NFC", text)

    def join(m: re.Match[str]) -> str:
        # "super-\nvised" → "supervised"; "text-to-\nimage" keeps its hyphen.
        head = m.group(1)
        return f"{head}{m.group(2)}{'-' if '-' in head else ''}{m.group(3)}"

    text = _HYPHEN_BREAK.sub(join, text)
    text = text.replace("\u00ad\n", "").replace("\u00ad", "")
    return re.sub(r"\s+", " ", text).strip()


def _heading_kind(line: str) -> tuple[str, str | None] | None:
    """The kind of heading this line is ('abstract', 'introduction', …, 'numbered'), and its number."""
    if len(line) > 90:
        return None
    for kind, pattern in _KIND_RES.items():
        if pattern.match(line):
            number = re.match(rf"^({_NUMBER})\.?\s", line)
            return kind, number.group(1) if number else None
    m = _NUMBERED_HEADING.match(line)
    if m and not line.rstrip().endswith((".", ",", ";")) and len(m.group("name").split()) <= 12:
        name = m.group("name")
        # Body lines start like "3 times faster …"; headings are Title Case or UPPER CASE.
        words = [w for w in re.findall(r"[A-Za-z]+", name) if len(w) > 3]
        if words and sum(w[0].isupper() for w in words) / len(words) >= 0.5:
            return "numbered", m.group("num")
    return None


def _split_block(raw: str, page: int) -> list[_Unit]:
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    if not lines:
        return []
    if _ARXIV_STAMP.match(lines[0]):
        return []
    # A heading whose number sits on its own line: "I." + "INTRODUCTION".
    candidates = [(lines[0], 1)]
    if len(lines) >= 2 and _BARE_NUMBER.match(lines[0]):
        candidates.insert(0, (f"{lines[0]} {lines[1]}", 2))
    for head, used in candidates:
        found = _heading_kind(head)
        if found is None:
            continue
        rest = "\n".join(lines[used:])
        if rest and len(rest) < 30:
            # "1 Introduction 3" in a table of contents is not a heading.
            continue
        kind, number = found
        units = [_Unit(text=normalize_pdf_text(head), page=page, heading=kind, number=number)]
        if rest:
            units.append(_Unit(text=normalize_pdf_text(rest), page=page))
        return units
    inline = _INLINE_ABSTRACT.match(lines[0])
    if inline:
        body = "\n".join(lines)[inline.end() :]
        return [_Unit(text="Abstract", page=page, heading="abstract"), _Unit(text=normalize_pdf_text(body), page=page)]
    return [_Unit(text=normalize_pdf_text("\n".join(lines)), page=page)]


def _is_prose(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    if len(text) < 40 or letters < 0.7 * len(text.replace(" ", "")):
        return False
    return len(text) >= 150 or text.endswith((".", ":", ";", "?", "!"))


_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Algorithm)\s*\d", re.I)


def _is_noise(text: str) -> bool:
    """Figure labels, tick numbers, page numbers, table cells: anything that is neither prose nor a caption."""
    return not (_is_prose(text) or (_CAPTION.match(text) is not None and len(text) >= 25))


def _open(source: bytes | Path, max_pages: int | None):  # type: ignore[no-untyped-def]
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    try:
        if isinstance(source, Path):
            doc = pymupdf.open(source, filetype="pdf")
        else:
            doc = pymupdf.open(stream=source, filetype="pdf")
    except Exception as exc:
        _raise_if_out_of_memory(exc)
        raise FetchError(f"the PDF is damaged and cannot be opened ({_short(exc)})") from None
    problem = None
    if doc.needs_pass:
        problem = "the PDF is encrypted (it needs a password to open)"
    elif doc.page_count == 0:
        problem = "the PDF is damaged: it has no pages"
    elif max_pages is not None and doc.page_count > max_pages:
        problem = f"the PDF has {doc.page_count} pages, more than the {max_pages} read (extract.max_pages)"
    if problem:
        doc.close()
        raise FetchError(problem)
    return doc


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120]


# MuPDF reports an allocation the address-space limit refused as "code=2: malloc (…) failed".
_NO_MEMORY = re.compile(r"\b(?:malloc|calloc|realloc)\b.*\bfailed|out of memory", re.I)


def _raise_if_out_of_memory(exc: BaseException) -> None:
    """Running out of memory is the reader's limit, not a damaged PDF: it leaves as a MemoryError."""
    if isinstance(exc, MemoryError) or _NO_MEMORY.search(str(exc)):
        raise MemoryError(_short(exc)) from None


def _title_from_first_page(page) -> str:  # type: ignore[no-untyped-def]
    """The largest horizontal text in the top half of page 1."""
    import pymupdf

    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES & ~pymupdf.TEXT_PRESERVE_IMAGES
    data = page.get_text("dict", flags=flags)
    height = page.rect.height or 792
    lines: list[tuple[float, float, str]] = []
    for block in data.get("blocks", []):
        for line in block.get("lines", []):
            if abs(line["dir"][1]) > 0.01 or line["bbox"][1] > height * 0.5:
                continue
            text = "".join(span["text"] for span in line["spans"]).strip()
            if len(text) < 2 or _ARXIV_STAMP.match(text) or sum(ch.isalpha() for ch in text) < 2:
                continue
            size = max(span["size"] for span in line["spans"])
            lines.append((size, line["bbox"][1], text))
    if not lines:
        return ""
    top = max(size for size, _, _ in lines)
    picked = [text for size, _, text in sorted(lines, key=lambda x: x[1]) if size >= top - 0.6]
    return normalize_pdf_text("\n".join(picked))[:300]


def _read(source: bytes | Path, max_pages: int | None = None, max_chars: int | None = None) -> _Doc:
    import pymupdf

    doc = _open(source, max_pages)
    flags = (pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES) | pymupdf.TEXT_MEDIABOX_CLIP
    out = _Doc(pages=doc.page_count)
    chars = 0
    try:
        for number, page in enumerate(doc):
            if number == 0:
                out.title = _title_from_first_page(page)
            for block in page.get_text("blocks", flags=flags):
                if block[6] == 0:  # not an image block
                    out.units.extend(_split_block(block[4], number))
                    chars += len(block[4])
            if max_chars is not None and chars > max_chars:
                raise FetchError(f"the PDF has more than {max_chars:,} characters of text (extract.max_chars)")
    except FetchError:
        raise
    except Exception as exc:
        _raise_if_out_of_memory(exc)
        raise FetchError(f"the PDF is damaged: text extraction failed ({_short(exc)})") from None
    finally:
        doc.close()
    return out


def _section_end(units: list[_Unit], start: int, number: str | None) -> int:
    """Index of the next top-level heading after ``start`` (a heading of another section)."""
    for i in range(start + 1, len(units)):
        unit = units[i]
        if unit.heading is None:
            continue
        if unit.heading == "numbered" and number is not None and unit.number == number:
            continue
        if unit.heading == "abstract":
            continue
        return i
    return len(units)


def _join(parts: list[str]) -> str:
    """Paragraphs joined by blank lines; a paragraph cut by a column or page break is mended."""
    out = ""
    for part in parts:
        if not out:
            out = part
            continue
        broken = re.search(r"(\S*?)([A-Za-z])-$", out)
        if broken and part[:1].islower():
            out = out[:-1] + ("-" if "-" in broken.group(1) else "") + part
        elif part[:1].islower() and not out.endswith((".", ":", "!", "?")):
            out = f"{out} {part}"
        else:
            out = f"{out}\n\n{part}"
    return out


def _body(units: list[_Unit], start: int, end: int, limit: int = MAX_SECTION_CHARS) -> tuple[str, set[int]]:
    parts: list[str] = []
    used: set[int] = set()
    size = 0
    for i in range(start, end):
        text = units[i].text
        if units[i].heading is not None or _is_noise(text):
            continue
        if size >= limit:
            break
        parts.append(text)
        used.add(i)
        size += len(text)
    return _join(parts)[: limit + 2000], used


def _best_section(units: list[_Unit], kinds: tuple[str, ...]) -> tuple[str, set[int], int | None]:
    """The candidate heading (of the first kind that has one with text) followed by the most text."""
    for kind in kinds:
        best: tuple[str, set[int], int | None] = ("", set(), None)
        for i, unit in enumerate(units):
            if unit.heading != kind:
                continue
            body, used = _body(units, i + 1, _section_end(units, i, unit.number))
            if len(body) > len(best[0]):
                best = (body, used, i)
        if len(best[0]) >= 100:
            return best
    return "", set(), None


def _abstract(units: list[_Unit], intro_at: int | None) -> tuple[str, set[int]]:
    for i, unit in enumerate(units):
        if unit.heading == "abstract" and unit.page <= 1:
            parts, used = _paragraphs_after(units, i)
            if parts:
                return " ".join(parts), used
    return _longest_first_page_paragraph(units, intro_at)


def _paragraphs_after(units: list[_Unit], heading_at: int) -> tuple[list[str], set[int]]:
    """The prose right after an "Abstract" heading (its page or the next), up to the next heading."""
    page = units[heading_at].page
    parts: list[str] = []
    used: set[int] = set()
    for j in range(heading_at + 1, len(units)):
        nxt = units[j]
        first_short_paragraph = not parts and len(nxt.text) >= 10 and sum(c.isalpha() for c in nxt.text) >= 8
        if nxt.heading is not None or nxt.page > page + 1:
            break
        if not (_is_prose(nxt.text) or first_short_paragraph):
            break
        parts.append(nxt.text)
        used.add(j)
    return parts, used


def _longest_first_page_paragraph(units: list[_Unit], intro_at: int | None) -> tuple[str, set[int]]:
    """No "Abstract" heading (e.g. REVTeX): the longest paragraph on page 1 before the introduction."""
    end = intro_at if intro_at is not None else len(units)
    best = -1
    for i in range(end):
        unit = units[i]
        if unit.page > 0 or unit.heading is not None or not _is_prose(unit.text):
            continue
        if best < 0 or len(unit.text) > len(units[best].text):
            best = i
    if best >= 0 and len(units[best].text) >= 200:
        return units[best].text, {best}
    return "", set()


def split_sections(doc: _Doc) -> PaperText:
    units = doc.units
    intro, intro_used, intro_at = _best_section(units, ("introduction",))
    conclusion, concl_used, _ = _best_section(units, ("conclusion", "discussion"))
    abstract, abstract_used = _abstract(units, intro_at)
    stop = next(
        (i for i in range(len(units) - 1, -1, -1) if units[i].heading == "stop" and i > (intro_at or 0)),
        len(units),
    )
    # References and what follows them are left out of the rest; so is the front matter.
    start = intro_at if intro_at is not None else (max(abstract_used) + 1 if abstract_used else 0)
    taken = intro_used | concl_used | abstract_used
    rest_parts: list[str] = []
    size = 0
    for i in range(start, stop):
        unit = units[i]
        if i in taken or _is_noise(unit.text):
            continue
        text = f"## {unit.text}" if unit.heading else unit.text
        rest_parts.append(text)
        size += len(text)
        if size > MAX_REST_CHARS:
            break
    return PaperText(
        title=doc.title,
        abstract=abstract,
        introduction=intro,
        conclusion=conclusion,
        rest=_join(rest_parts),
        pages=doc.pages,
    )


def extract_pdf(source: bytes | Path, *, max_pages: int | None = None, max_chars: int | None = None) -> PaperText:
    """A PDF's sections; ``FetchError`` (with a reason) when it is encrypted, damaged, has no text, or has more
    pages or characters than allowed; ``MemoryError`` when reading it needs more memory than the process may have."""
    doc = _read(source, max_pages, max_chars)
    chars = sum(len(u.text) for u in doc.units)
    if chars < MIN_TEXT_CHARS:
        raise FetchError(f"the PDF has no text layer (scanned or image-only; {chars} characters of text)")
    return split_sections(doc)
