"""What the site build touches and shows: only its own folder, whole pages, config names as text."""

from __future__ import annotations

from pathlib import Path

from test_build import add
from test_mkdocs import mkdocs_build

from conftest import Project, RunCli, summary_text
from summarizer.core.store import Store
from summarizer.site.build import build_site


def built(project: Project) -> Path:
    settings = project.settings()
    store = Store(settings.outputs_dir)
    add(store, "ICML2026", "2601.00001", "A Paper", summary_text(), ["LLM"], "llm_pretraining")
    return Path(build_site(settings, store, None, drafts=False).subject)


def test_build_removes_nothing_outside_its_folder_whatever_its_page_list_says(project: Project) -> None:
    root = built(project)
    victim = project.root / "precious.txt"
    victim.write_text("keep me", "utf-8")
    listed = (root / ".summarizer-pages").read_text("utf-8")
    (root / ".summarizer-pages").write_text(
        listed + f"../../precious.txt\n../../config.yaml\n{victim}\n{project.config_path}\n", "utf-8"
    )

    build_site(project.settings(), project.store(), None, drafts=False)

    assert victim.read_text("utf-8") == "keep me" and project.config_path.is_file()


def test_a_killed_runs_temporary_files_are_removed_by_the_next_run_that_writes_there(
    cli: RunCli, project: Project
) -> None:
    root = built(project)
    records = project.root / "outputs" / "records" / "ICML2026"
    leftovers = [
        records / ".2601.00001.json.a1b2c3d4.tmp",
        root / "docs" / "ICML2026" / ".index.md.z9y8x7w6.tmp",
        project.root / "outputs" / "state" / ".ICML2026.json.q1w2e3r4.tmp",
    ]
    for path in leftovers:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half written", "utf-8")
    someone_elses = records / ".notes.tmp"  # not a name this tool gives its temporary files
    someone_elses.write_text("not ours", "utf-8")

    assert cli("review", "reject", "ICML2026/2601.00001", "--note", "off topic").code == 0  # takes the venue's lock
    assert cli("build").code == 0

    assert [p for p in leftovers if p.exists()] == []
    assert someone_elses.read_text("utf-8") == "not ours"


def test_config_names_reach_the_nav_and_the_header_as_text(project: Project) -> None:
    fields = [dict(f) for f in project.config["fields"]]
    fields[0]["name"] = 'LLM <Agents> & "co"'
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["name"] = "ICML <script>alert(1)</script> {++2026++}"
    project.write_config(fields=fields, venues=venues, site={"title": "论文 <b>解读</b> & more"})
    add(project.store(), "ICLR2026", "2602.00001", "A Paper Again", summary_text(), ["LLM"], "llm_pretraining")
    root = built(project)

    result = mkdocs_build(root)

    assert result.returncode == 0, result.stderr
    page = (root / "site" / "ICML2026" / "llm_pretraining" / "index.html").read_text("utf-8")
    assert "<script>alert(1)</script>" not in page and "<Agents>" not in page and "<b>解读</b>" not in page
    assert "LLM &lt;Agents&gt; &amp; &#34;co&#34;" in page or "LLM &lt;Agents&gt; &amp; &quot;co&quot;" in page
    # As text: the sanitiser writes the brace itself, the entity it was in the page's raw HTML.
    assert "<ins" not in page
    assert "ICML &lt;script&gt;alert(1)&lt;/script&gt; {++2026++}" in page
    # In another venue's raw-HTML lines (the cross-venue line, related papers) too: critic reads raw HTML.
    for other in ("ICLR2026/llm_pretraining/index.html", "ICLR2026/llm_pretraining/2602.00001/index.html"):
        html = (root / "site" / other).read_text("utf-8")
        assert "<ins" not in html and "{++2026++}" in html, other


def test_no_link_points_a_reader_at_their_own_machine_or_network(project: Project) -> None:
    from summarizer.site.markdown_text import link_target

    for url in ("http://127.0.0.1:8000/pdf/1", "http://localhost/x", "http://a.localhost/", "http://[::1]/",
                "http://10.0.0.1/", "http://192.168.1.1/admin", "http://169.254.169.254/latest", "http://0.0.0.0/",
                "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://[bad/"):  # fmt: skip
        assert link_target(url) is None, url
    for url in ("https://arxiv.org/pdf/2601.00001", "http://8.8.8.8/x", "https://openreview.net/pdf?id=a"):
        assert link_target(url) == url
    settings, store = project.settings(), project.store()
    add(store, "ICML2026", "2601.00001", "A Paper", summary_text("本文"), ["LLM"], "llm_pretraining",
        arxiv_id="2601.00001")  # fmt: skip
    record = store.load("ICML2026", "2601.00001")
    record.fetch.pdf_url = "http://127.0.0.1:41000/pdf/2601.00001v1"  # a stand-in's, as in the demo
    record.url = "http://10.1.2.3/forum"
    store.save(record)
    root = Path(build_site(settings, store, None, drafts=False).subject)
    page = next(root.glob("docs/ICML2026/*/2601.00001.md")).read_text("utf-8")
    assert "[PDF](https://arxiv.org/pdf/2601.00001)" in page  # arXiv's PDF in its place
    assert "127.0.0.1" not in page and "10.1.2.3" not in page


def test_a_damaged_page_list_is_one_line_naming_it(cli: RunCli, project: Project) -> None:
    root = built(project)
    (root / ".summarizer-pages").write_bytes(b"# Files written\nICML2026/index.md\n\xff\xfe\x00broken\n")

    result = cli("build")

    assert result.code != 0
    assert "Traceback" not in result.err
    assert ".summarizer-pages: damaged" in result.err and "move it aside" in result.err
    (root / ".summarizer-pages").rename(root / "pages.old")
    assert cli("build").code == 0
