"""Paper-like PDFs made with pymupdf, for tests, the demo and benchmarks.

``paper_pdf`` lays out a title, authors, an "Abstract" heading and numbered
sections over several pages (HTML through ``pymupdf.Story``, so text wraps and
flows like a real paper, with ligature-prone words like "efficient" and
"workflow").  The variants are what the fetch stage must refuse with a
reason: ``encrypted_pdf`` (needs a password), ``corrupt_pdf`` (a ``%PDF-``
header over garbage), ``image_only_pdf`` (a scan: pages are pictures, no text).
"""

from __future__ import annotations

import html
import io
import random
import zlib
from collections.abc import Sequence

_FILLER = (
    "We study an efficient and simple workflow for this problem and find that it transfers to new settings. "
    "The first experiments confirm the effect across model sizes, datasets and training budgets. "
    "A careful ablation shows which of the components matters most, and where the gains come from. "
    "We also discuss the limitations of the analysis and the assumptions it rests on. "
)

CSS = """
* { font-family: serif; font-size: 10.5pt; line-height: 1.25; }
h1 { font-size: 17pt; font-weight: bold; text-align: center; margin-bottom: 6pt; }
p.authors { text-align: center; font-size: 11pt; }
h2.abstract { font-size: 13pt; text-align: center; font-weight: bold; }
h2 { font-size: 13pt; font-weight: bold; margin-top: 10pt; }
p { text-align: justify; margin-bottom: 5pt; }
"""


def default_sections(title: str, *, paragraphs: int = 3, seed: int = 0) -> list[tuple[str, str]]:
    """Plausible body text for a paper: introduction, method, experiments, conclusion."""
    rng = random.Random(f"{title}:{seed}")

    def body(topic: str) -> str:
        parts = []
        for _ in range(paragraphs):
            sentences = [x for x in _FILLER.split(". ") if x.strip()]
            rng.shuffle(sentences)
            text = ". ".join(s.strip(". ") for s in sentences)
            parts.append(f"In this section on {topic.lower()} of {title}, {text}.")
        return "\n\n".join(parts)

    return [
        ("Introduction", body("Introduction")),
        ("Related Work", body("Related Work")),
        ("Method", body("Method")),
        ("Experiments", body("Experiments")),
        ("Conclusion", body("Conclusion")),
    ]


def _html(
    title: str, authors: Sequence[str], abstract: str, sections: Sequence[tuple[str, str]], numbered: bool
) -> str:
    out = [f"<h1>{html.escape(title)}</h1>", f"<p class='authors'>{html.escape(', '.join(authors))}</p>"]
    out.append("<h2 class='abstract'>Abstract</h2>")
    out.append(f"<p>{html.escape(abstract)}</p>")
    for number, (heading, text) in enumerate(sections, start=1):
        label = f"{number} {heading}" if numbered else heading
        out.append(f"<h2>{html.escape(label)}</h2>")
        for para in (p.strip() for p in text.split("\n\n")):
            if para:
                out.append(f"<p>{html.escape(para)}</p>")
    out.append("<h2>References</h2>")
    out.append("<p>[1] A. Author and B. Author. A paper we cite. In Proceedings of a Conference, 2024.</p>")
    return "\n".join(out)


def paper_pdf(
    title: str,
    abstract: str,
    sections: Sequence[tuple[str, str]] | None = None,
    *,
    authors: Sequence[str] = ("Ada Lovelace", "Alan Turing"),
    numbered: bool = True,
    min_pages: int = 2,
) -> bytes:
    """A multi-page paper PDF: title, authors, Abstract, numbered sections, References."""
    import pymupdf

    sections = list(sections) if sections is not None else default_sections(title)
    page = pymupdf.paper_rect("letter")
    where = pymupdf.Rect(page.x0 + 72, page.y0 + 72, page.x1 - 72, page.y1 - 72)
    for extra in range(0, 20):
        body = [(h, t) for h, t in sections]
        if extra:  # pad the body until the paper has min_pages pages
            body.insert(-1, ("Analysis", "\n\n".join([_FILLER * 2] * extra)))
        story = pymupdf.Story(html=_html(title, authors, abstract, body, numbered), user_css=CSS)
        buffer = io.BytesIO()
        writer = pymupdf.DocumentWriter(buffer)
        more, pages = 1, 0
        while more:
            device = writer.begin_page(page)
            more, _ = story.place(where)
            story.draw(device)
            writer.end_page()
            pages += 1
        writer.close()
        if pages >= min_pages:
            return buffer.getvalue()
    return buffer.getvalue()


def encrypted_pdf(title: str = "An Encrypted Paper", abstract: str = "Locked away.") -> bytes:
    """A paper PDF that needs a user password to open."""
    import pymupdf

    doc = pymupdf.open(stream=paper_pdf(title, abstract), filetype="pdf")
    aes_256 = pymupdf.PDF_ENCRYPT_AES_256  # type: ignore[attr-defined]
    data = doc.tobytes(encryption=aes_256, user_pw="secret", owner_pw="owner-secret")
    doc.close()
    return bytes(data)


def corrupt_pdf(size: int = 4096, seed: int = 0) -> bytes:
    """Starts like a PDF, then nothing a reader can make sense of."""
    rng = random.Random(seed)
    return b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + bytes(rng.randrange(256) for _ in range(size))


def image_only_pdf(title: str = "A Scanned Paper", abstract: str = "Only pixels here.", pages: int = 2) -> bytes:
    """A scan: every page is a picture of a paper page, with no text layer."""
    import pymupdf

    source = pymupdf.open(stream=paper_pdf(title, abstract), filetype="pdf")
    out = pymupdf.open()
    for number in range(min(pages, source.page_count)):
        pix = source[number].get_pixmap(dpi=50)
        new = out.new_page(width=source[number].rect.width, height=source[number].rect.height)
        new.insert_image(new.rect, stream=pix.tobytes("png"))
    data = out.tobytes()
    out.close()
    source.close()
    return bytes(data)


# -- hostile PDFs: small files that are expensive to read -------------------------------------------


def _raw_pdf(objects: Sequence[bytes]) -> bytes:
    """A PDF of the given objects (object 1 is the catalog), with its cross-reference table."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _text_ops(lines: int) -> bytes:
    return b"".join(
        b"BT /F1 9 Tf %d %d Td (line %d of a page that says the same thing over and over) Tj ET\n"
        % (72 + i % 40, 60 + (i * 12) % 680, i)
        for i in range(lines)
    )


def _flate(unit: bytes, total: int) -> bytes:
    """``unit`` repeated to ``total`` bytes, compressed piece by piece (the whole is never in memory)."""
    compressor = zlib.compressobj(9)
    block = unit * max(1, (1 << 20) // len(unit))
    parts = [compressor.compress(block) for _ in range(total // len(block) + 1)]
    return b"".join([*parts, compressor.flush()])


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def inflating_pdf(inflated_mb: int) -> bytes:
    """One page whose Flate content stream inflates to ``inflated_mb`` MB of text operators (a file ~1/140 of it)."""
    stream = _flate(_text_ops(200), inflated_mb << 20)
    return _raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
            b"/Contents 5 0 R >>",
            _FONT,
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        ]
    )


def many_pages_pdf(pages: int, lines: int = 50) -> bytes:
    """``pages`` pages sharing one content stream of ``lines`` lines of text: a small file, slow to read whole."""
    stream = _text_ops(lines)
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
        b"/Contents 4 0 R >>"
    )
    return _raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
            _FONT,
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
            *([page] * pages),
        ]
    )
