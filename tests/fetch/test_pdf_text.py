"""PDF → sections: real papers from ../shared, generated ones, and the PDFs that must be refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from summarizer.core.errors import FetchError
from summarizer.core.paper_text import PaperText, model_input
from summarizer.core.records import Record
from summarizer.core.tokens import estimate_tokens
from summarizer.fetch.pdf_text import extract_pdf, normalize_pdf_text
from summarizer.testing.pdfs import corrupt_pdf, encrypted_pdf, image_only_pdf, paper_pdf

REAL = ("deepseek_r1.pdf", "janus_pro.pdf", "arxiv_1111.2011v2.pdf")
LIGATURES = "ﬀﬁﬂﬃﬄﬅﬆ"
SPACING_ACCENTS = "´ˇ¨˜ˆ˘˙˝"


def sections(text: PaperText) -> dict[str, str]:
    return {"abstract": text.abstract, "introduction": text.introduction, "conclusion": text.conclusion}


@pytest.mark.parametrize("name", REAL)
def test_real_pdfs_yield_abstract_introduction_conclusion(real_fixtures: Path, name: str) -> None:
    text = extract_pdf((real_fixtures / "pdf" / name).read_bytes())
    for section, body in sections(text).items():
        assert len(body) > 300, f"{name}: {section} is {len(body)} characters"
    assert text.title and text.rest and text.pages > 5
    everything = " ".join([text.title, text.abstract, text.introduction, text.conclusion, text.rest])
    assert not any(ch in everything for ch in LIGATURES), "ligatures are expanded"
    assert not any(ch in everything for ch in SPACING_ACCENTS), "accents are recombined"
    assert "-\n" not in everything


def test_real_pdfs_known_contents(real_fixtures: Path) -> None:
    deepseek = extract_pdf(real_fixtures / "pdf" / "deepseek_r1.pdf")
    # Its page 2 is a table of contents naming "1 Introduction" and "5 Conclusion …": not the sections.
    assert deepseek.title.startswith("DeepSeek-R1: Incentivizing Reasoning Capability")
    assert deepseek.abstract.startswith("We introduce our first-generation reasoning models")
    assert "supervised fine-tuning" in deepseek.abstract  # "super-\nvised" joined
    assert deepseek.introduction.startswith("In recent years, Large Language Models")
    assert deepseek.conclusion.startswith("In this work, we share our journey")
    janus = extract_pdf(real_fixtures / "pdf" / "janus_pro.pdf")
    assert janus.abstract.startswith("In this work, we introduce Janus-Pro") and "Specifically" in janus.abstract
    assert janus.conclusion.startswith("This paper introduces improvements to Janus")
    assert "[1] J. Bai" not in janus.conclusion + janus.rest, "references are left out"
    physics = extract_pdf(real_fixtures / "pdf" / "arxiv_1111.2011v2.pdf")
    # REVTeX: no "Abstract" heading, "I." and "INTRODUCTION" on separate lines, "V. DISCUSSION" at the end.
    assert physics.abstract.startswith("Theoretical description of anisotropic systems")
    assert physics.introduction.startswith("It is often the case")
    assert physics.conclusion.startswith("We have presented a self-consistent")
    assert physics.title.startswith("Quantum Criticality for Extended Nodes")


def test_generated_paper_sections_and_ligatures() -> None:
    blob = paper_pdf(
        "Efficient Fine-Tuning of Diffusion Workflows",
        "We propose an efficient fine-tuning workflow; it is effective and simple.",
        [
            ("Introduction", "Diffusion models are effective but costly to fine-tune. " * 12),
            ("Method", "Our method freezes most weights and trains small adapters. " * 30),
            ("Conclusion", "Efficient fine-tuning of diffusion models is practical. " * 6),
        ],
    )
    text = extract_pdf(blob)
    assert text.title == "Efficient Fine-Tuning of Diffusion Workflows"
    assert text.abstract == "We propose an efficient fine-tuning workflow; it is effective and simple."
    assert text.introduction.startswith("Diffusion models are effective")
    assert "adapters" not in text.introduction and "adapters" in text.rest
    assert text.conclusion.startswith("Efficient fine-tuning of diffusion models is practical.")
    assert "References" not in text.conclusion
    assert not any(ch in text.to_json() for ch in LIGATURES)


def test_unnumbered_headings_and_inline_abstract() -> None:
    blob = paper_pdf(
        "Unnumbered",
        "Abstract text.",
        [("Introduction", "We introduce things here. " * 10), ("Conclusions", "We conclude here. " * 10)],
        numbered=False,
    )
    text = extract_pdf(blob)
    assert text.introduction.startswith("We introduce things") and text.conclusion.startswith("We conclude here")


@pytest.mark.parametrize(
    ("blob", "reason"),
    [
        (encrypted_pdf(), "the PDF is encrypted"),
        (corrupt_pdf(), "the PDF is damaged"),
        (b"%PDF-1.4\n", "the PDF is damaged"),
        (image_only_pdf(), "the PDF has no text layer"),
    ],
    ids=["encrypted", "corrupt", "truncated", "image-only"],
)
def test_unreadable_pdfs_raise_a_plain_reason(blob: bytes, reason: str) -> None:
    with pytest.raises(FetchError) as info:
        extract_pdf(blob)
    assert info.value.reason.startswith(reason)


def test_normalize_pdf_text() -> None:
    assert normalize_pdf_text("Zlatko Teˇsanovi´c") == "Zlatko Tešanović"
    assert normalize_pdf_text("super-\nvised and text-to-\nimage") == "supervised and text-to-image"
    assert normalize_pdf_text("DeepSeek-\nR1 ﬁne ﬂow") == "DeepSeek- R1 fine flow"


def test_paper_text_round_trip_and_model_input_budget() -> None:
    text = PaperText(
        title="T", abstract="pdf abstract", introduction="intro " * 400, conclusion="end " * 50, rest="x " * 5000
    )
    assert PaperText.from_json(text.to_json()) == text
    record = Record(venue="V", id="2501.00001", title="T", abstract="arXiv abstract")
    parts = model_input(record, text, budget=600)
    assert [name for name, _ in parts][:2] == ["abstract", "introduction"]
    assert parts[0][1] == "arXiv abstract"
    assert sum(estimate_tokens(body) for _, body in parts) <= 600 + 5
    assert model_input(record, None, budget=600) == [("abstract", "arXiv abstract")]
