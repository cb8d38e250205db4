"""The venue sources on fixtures in their real formats, fetched end to end through the CLI against
loopback hosts: PMLR citeproc.yaml, the ACL Anthology data folder, CVF open-access pages, the
virtual-site JSON, and an arXiv query that must keep only accepted papers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, RunCli
from stand_ins.static_site import StaticSite
from summarizer.core.config_file import load_settings
from summarizer.fetch.net import PoliteHTTP
from summarizer.fetch.sources import virtual_site
from summarizer.fetch.sources.arxiv_query import acceptance
from summarizer.fetch.sources.base import SourceContext
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.pdfs import paper_pdf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"
CONTACT = "digests@example.org"


@pytest.fixture
def site() -> Iterator[StaticSite]:
    with StaticSite() as server:
        yield server


def use_source(project: Project, source: dict[str, object], **extra: object) -> None:
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = source
    project.write_config(venues=venues, http={**project.config["http"], "contact": CONTACT}, **extra)


def pdf(title: str) -> tuple[bytes, str]:
    return paper_pdf(title, f"The abstract of {title}."), "application/pdf"


# -- PMLR ----------------------------------------------------------------------------------------------


def test_pmlr_citeproc_papers_and_their_pdfs_from_another_host(project: Project, cli: RunCli, site: StaticSite) -> None:
    yaml_text = (FIXTURES / "pmlr_v306_citeproc.yaml").read_text("utf-8")
    site.put(
        "/v306/assets/bib/citeproc.yaml", yaml_text.replace("https://raw.githubusercontent.com", site.url), "text/yaml"
    )
    site.put("/mlresearch/v306/main/assets/lovelace26a/lovelace26a.pdf", *pdf("Analytical Engines Revisited"))
    site.put("/mlresearch/v306/main/assets/turing26b/turing26b.pdf", "<html>Just a moment...</html>", "text/html")
    use_source(project, {"type": "pmlr", "url": f"{site.url}/v306/assets/bib/citeproc.yaml"})

    result = cli("fetch", "ICML2026")
    assert result.code == 1, result.err  # the second PDF is an HTML page: checked, refused, reported
    assert "1 fetched, 0 cached, 1 failed" in result.err
    records = {r.source_id: r for r in project.store().records("ICML2026")}
    good, html = records["lovelace26a"], records["turing26b"]
    assert good.source_type == "pmlr" and good.authors == ["Ada Lovelace", "Charles Babbage"]
    assert good.title == "Analytical Engines Revisited: Sparse Attention at Scale"
    assert good.url == "https://proceedings.mlr.press/v306/lovelace26a.html" and good.link == good.url
    assert good.fetch.text_path and not good.failures
    text = json.loads((project.root / "cache" / good.fetch.text_path).read_text("utf-8"))
    assert text["introduction"]  # extracted like an arXiv PDF
    assert "not a PDF" in html.failures["fetch"].reason and html.fetch.abstract_only
    assert html.abstract == "A diffusion sampler with linear cost."  # the stray BEL is gone
    assert all(CONTACT in agent for agent in site.agents)


def test_pmlr_pdf_503_is_retried(project: Project, cli: RunCli, site: StaticSite) -> None:
    yaml_text = (FIXTURES / "pmlr_v306_citeproc.yaml").read_text("utf-8")
    site.put("/c.yaml", yaml_text.replace("https://raw.githubusercontent.com", site.url), "text/yaml")
    for name in ("lovelace26a", "turing26b"):
        site.put(f"/mlresearch/v306/main/assets/{name}/{name}.pdf", *pdf(name))
    site.fail("/mlresearch/v306/main/assets/turing26b/turing26b.pdf", 503, times=2)
    use_source(project, {"type": "pmlr", "url": f"{site.url}/c.yaml"})
    result = cli("fetch", "ICML2026")
    assert result.code == 0, result.err
    assert site.hits("/mlresearch/v306/main/assets/turing26b/turing26b.pdf") == 3


def test_pmlr_match_arxiv_links_the_abs_page(project: Project, cli: RunCli, site: StaticSite) -> None:
    yaml_text = (FIXTURES / "pmlr_v306_citeproc.yaml").read_text("utf-8")
    yaml_text = yaml_text.replace("Computable Numbers and Diffusion $\\mathcal{O}(n)$ Samplers", "Diffusion Samplers")
    site.put("/c.yaml", yaml_text.replace("https://raw.githubusercontent.com", site.url), "text/yaml")
    for name in ("lovelace26a", "turing26b"):
        site.put(f"/mlresearch/v306/main/assets/{name}/{name}.pdf", *pdf(name))
    papers = [
        FakePaper("2601.00011", "Analytical Engines Revisited: Sparse Attention at Scale", authors=["Ada Lovelace"]),
        FakePaper("2601.00012", "Diffusion Samplers", authors=["Someone Else"]),
    ]
    with FakeArxiv(papers) as fake:
        use_source(
            project,
            {"type": "pmlr", "url": f"{site.url}/c.yaml", "match_arxiv": True},
            arxiv={"delay_s": 0, "api_url": fake.api_url},
        )
        result = cli("fetch", "ICML2026")
        searches = [r.params["search_query"] for r in fake.api_requests()]
    assert result.code == 0, result.err
    assert 'ti:"Diffusion Samplers"' in searches  # the short title was found on arXiv …
    records = {r.source_id: r for r in project.store().records("ICML2026")}
    assert records["lovelace26a"].arxiv_id == "2601.00011v1"
    assert records["lovelace26a"].link == "https://arxiv.org/abs/2601.00011"
    assert records["lovelace26a"].tier is None and records["lovelace26a"].source_type == "pmlr"
    # … but by another first author: a two-word title alone is a doubtful match, so no match.
    assert records["turing26b"].arxiv_id is None
    assert records["turing26b"].link == "https://proceedings.mlr.press/v306/turing26b.html"


def test_match_arxiv_turned_on_after_a_fetch_matches_once(project: Project, cli: RunCli, site: StaticSite) -> None:
    yaml_text = (FIXTURES / "pmlr_v306_citeproc.yaml").read_text("utf-8")
    site.put("/c.yaml", yaml_text.replace("https://raw.githubusercontent.com", site.url), "text/yaml")
    for name in ("lovelace26a", "turing26b"):
        site.put(f"/mlresearch/v306/main/assets/{name}/{name}.pdf", *pdf(name))
    papers = [FakePaper("2601.00011", "Analytical Engines Revisited: Sparse Attention at Scale")]
    with FakeArxiv(papers) as fake:
        arxiv = {"delay_s": 0, "api_url": fake.api_url}
        use_source(project, {"type": "pmlr", "url": f"{site.url}/c.yaml"}, arxiv=arxiv)
        assert cli("fetch", "ICML2026").code == 0
        assert not fake.api_requests() and all(r.arxiv_id is None for r in project.store().records("ICML2026"))

        use_source(project, {"type": "pmlr", "url": f"{site.url}/c.yaml", "match_arxiv": True}, arxiv=arxiv)
        turned_on = cli("fetch", "ICML2026")
        assert turned_on.code == 0, turned_on.err
        assert "0 fetched, 2 cached" in turned_on.err  # no PDF again: only the arXiv look-up
        assert len(fake.api_requests()) == 2
        records = {r.source_id: r for r in project.store().records("ICML2026")}
        assert records["lovelace26a"].link == "https://arxiv.org/abs/2601.00011"
        assert records["turing26b"].arxiv_id is None and records["turing26b"].fetch.arxiv_checked_at

        again = cli("fetch", "ICML2026")  # the paper not on arXiv is not looked for again
        assert again.code == 0 and len(fake.api_requests()) == 2


# -- ACL Anthology --------------------------------------------------------------------------------------


def test_acl_anthology_volumes_with_tracks_as_tiers(project: Project, cli: RunCli, site: StaticSite) -> None:
    for full_id in ("2099.acl-long.1", "2099.acl-long.2", "2099.findings-acl.1"):
        site.put(f"/{full_id}.pdf", *pdf(full_id))
    data_dir = FIXTURES / "acl" / "data"
    use_source(
        project, {"type": "acl_anthology", "volumes": ["2099.acl-long", "2099.findings-acl"], "data_dir": str(data_dir)}
    )

    result = cli("fetch", "ICML2026", env={"ANTHOLOGY_PREFIX": site.url})
    assert result.code == 0, result.err
    records = {r.source_id: r for r in project.store().records("ICML2026")}
    assert set(records) == {"2099.acl-long.1", "2099.acl-long.2", "2099.findings-acl.1"}  # no frontmatter
    first = records["2099.acl-long.1"]
    assert first.title == "Sparse Attention for Long Context Language Models"
    assert first.authors == ["Grace Hopper", "Alan Turing"]
    assert first.tier == "long" and records["2099.findings-acl.1"].tier == "findings"
    assert first.url == f"{site.url}/2099.acl-long.1/" and first.fetch.text_path


def test_acl_anthology_unknown_volume_is_one_line(project: Project, cli: RunCli) -> None:
    data_dir = FIXTURES / "acl" / "data"
    use_source(project, {"type": "acl_anthology", "volumes": ["2099.acl-short"], "data_dir": str(data_dir)})
    result = cli("fetch", "ICML2026")
    assert result.code == 1 and "2099.acl-short" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert project.store().records("ICML2026") == []


# -- CVF --------------------------------------------------------------------------------------------------


def test_cvf_listing_abstracts_from_paper_pages_once(project: Project, cli: RunCli, site: StaticSite) -> None:
    site.put("/CVPR2099", (FIXTURES / "cvf_CVPR2099_day_all.html").read_text("utf-8"), "text/html")
    page = "/content/CVPR2099/html/Xiao_Gaussian_Splats_for_Everyone_CVPR_2099_paper.html"
    site.put(page, (FIXTURES / "cvf_paper_page.html").read_text("utf-8"), "text/html")
    site.put("/content/CVPR2099/papers/Xiao_Gaussian_Splats_for_Everyone_CVPR_2099_paper.pdf", *pdf("Splats"))
    site.put("/content/CVPR2099/papers/Okafor_Open-Vocabulary_Detection_Without_Boxes_CVPR_2099_paper.pdf", *pdf("OV"))
    use_source(project, {"type": "cvf", "conference": "CVPR2099", "url": site.url})

    result = cli("fetch", "ICML2026")
    assert result.code == 0, result.err
    records = {r.source_id: r for r in project.store().records("ICML2026")}
    splats = records["Xiao_Gaussian_Splats_for_Everyone_CVPR_2099_paper"]
    assert splats.title == "Gaussian Splats for Everyone" and splats.authors == ["Jie Xiao", "Mei Lin"]
    assert splats.abstract == "We make 3D Gaussian Splatting run on a phone. It keeps quality and renders in real time."
    assert splats.url == f"{site.url}{page}" and splats.fetch.text_path
    # The second paper's page is missing (404): a warning, and the PDF is still fetched.
    assert "abstract page skipped" in result.err
    assert records["Okafor_Open-Vocabulary_Detection_Without_Boxes_CVPR_2099_paper"].fetch.text_path
    assert not any("supplemental" in r for r in site.requests)

    site.requests.clear()
    again = cli("fetch", "ICML2026")
    assert again.code == 0 and "2 cached" in again.err
    assert [r for r in site.requests if "/html/" in r or ".pdf" in r] == []  # only the listing is read again


# -- virtual site -------------------------------------------------------------------------------------------


def test_virtual_site_rows_deduped_with_tiers(project: Project, site: StaticSite) -> None:
    site.put(
        "/static/virtual/data/iclr-2099-orals-posters.json",
        (FIXTURES / "iclr-2099-orals-posters.json").read_bytes(),
        "application/json",
    )
    use_source(project, {"type": "virtual_site", "url": f"{site.url}/static/virtual/data/iclr-2099-orals-posters.json"})
    settings = load_settings(project.config_path)
    ctx = SourceContext(settings, PoliteHTTP(settings), None)  # type: ignore[arg-type]
    entries = virtual_site.gather(ctx, settings.venues[0].source, None)  # type: ignore[arg-type]
    by_title = {e.title: e for e in entries.entries}
    assert len(by_title) == 3  # the oral's poster row is the same paper
    oral = by_title["An Oral Paper About Sparse Attention"]
    assert oral.tier == "oral" and oral.pdf_url == "https://openreview.net/pdf?id=AbCdEf123"
    assert oral.authors == ["Ada Lovelace", "Alan Turing"] and oral.source_id == "a1b2c3d4"
    assert by_title["A Spotlight on Diffusion"].tier == "spotlight"
    poster = by_title["A Plain Poster"]
    assert poster.tier == "poster"
    assert poster.pdf_url == "https://proceedings.mlr.press/v306/liskov26a/liskov26a.pdf"


def test_virtual_site_that_answers_html_is_one_line(project: Project, cli: RunCli, site: StaticSite) -> None:
    site.put("/data.json", "<html>Just a moment...</html>", "text/html")
    use_source(project, {"type": "virtual_site", "url": f"{site.url}/data.json"})
    result = cli("fetch", "ICML2026")
    assert result.code == 1 and "did not answer JSON" in result.err
    assert project.store().records("ICML2026") == []


# -- arXiv query: accepted papers only ------------------------------------------------------------------------


QUERY_PAPERS = [
    FakePaper("2601.00001", "Accepted One", comment="Accepted at ICLR 2026"),
    FakePaper("2601.00002", "Accepted Oral", comment="ICLR 2026 (Oral). 12 pages"),
    FakePaper("2601.00003", "Only Submitted", comment="Under review at ICLR 2026"),
    FakePaper("2601.00004", "Also Submitted", comment="Submitted to ICLR 2026"),
    FakePaper("2601.00005", "Bare Venue", comment="ICLR 2026"),
]


@pytest.mark.parametrize(("include", "kept"), [(False, 2), (True, 5)])
def test_arxiv_query_keeps_only_accepted_and_says_how_many_it_excluded(
    project: Project, cli: RunCli, include: bool, kept: int
) -> None:
    with FakeArxiv(QUERY_PAPERS) as fake:
        source = {"type": "arxiv_query", "query": 'co:"ICLR 2026"', "include_unconfirmed": include}
        use_source(project, source, arxiv={"delay_s": 0, "api_url": fake.api_url})
        result = cli("fetch", "ICML2026")
    assert result.code == 0, result.err
    ids = sorted(r.id for r in project.store().records("ICML2026"))
    assert len(ids) == kept
    if not include:
        assert ids == ["2601.00001", "2601.00002"]
        assert "3 excluded" in result.err
        assert "2 under review / submitted / preprint" in result.err
        assert "1 comment does not say accepted" in result.err
        assert "include_unconfirmed" in result.err
    else:
        assert "excluded" not in result.err
    assert all(r.source_type == "arxiv_query" for r in project.store().records("ICML2026"))


@pytest.mark.parametrize(
    ("comment", "kept"),
    [
        ("Accepted to ICML 2026 as a spotlight", True),
        ("To appear in NeurIPS 2025", True),
        ("Camera-ready version, CVPR 2026", True),
        ("ACL 2026 Findings", True),
        ("Preprint. Under review.", False),
        ("In submission to ICLR 2026", False),
        ("work in progress", False),
        (None, False),
    ],
)
def test_acceptance_words(comment: str | None, kept: bool) -> None:
    assert (acceptance(comment) is None) is kept


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ({"type": "openreview"}, "needs 'openreview_venue'"),
        ({"type": "acl_anthology"}, "needs 'volumes'"),
        ({"type": "cvf"}, "needs 'conference'"),
        ({"type": "pmlr"}, "needs 'volume'"),
        ({"type": "virtual_site"}, "needs 'url'"),
        ({"type": "openreview", "openreview_venue": "X", "venueid": "Y"}, "unknown key"),
    ],
)
def test_a_source_missing_its_argument_is_one_config_line(
    project: Project, cli: RunCli, source: dict[str, object], message: str
) -> None:
    use_source(project, source)
    result = cli("fetch", "ICML2026")
    assert result.code == 2 and message in result.err and "venues[0].source" in result.err


@pytest.mark.parametrize("body", ["", "<html><body>Just a moment...</body></html>"])
def test_a_cvf_listing_without_papers_is_one_line_not_an_empty_venue(
    project: Project, cli: RunCli, site: StaticSite, body: str
) -> None:
    site.put("/CVPR2099", body, "text/html")
    use_source(project, {"type": "cvf", "conference": "CVPR2099", "url": site.url})
    result = cli("fetch", "ICML2026")
    assert result.code == 1 and "lists no papers" in result.err
    assert len(result.err.strip().splitlines()) == 1
