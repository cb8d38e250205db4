"""Rebuilds: a page is rendered again only when what it shows changed, and a rebuild writes what a full build writes.

``summarizer build`` keeps a fingerprint of each page's template context (``site/page_cache.py``); the
MkDocs hook ``hooks/rebuild.py`` brings the cross-venue line and the related papers of a built page up to
date on ``mkdocs build --dirty`` without rendering the page.  Either way the files must be byte for byte
those of a full build into an empty folder.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jinja2
import pytest
from test_build import VENUES3, add
from test_mkdocs import broken_links

from conftest import Project, summary_text
from summarizer.core.store import Store
from summarizer.site.build import build_site
from summarizer.site.page_cache import PageCache
from summarizer.site.pages import page_env

FIELDS = ["llm_pretraining", "llm_reasoning", "image_generation"]
TAGS = ["LLM", "扩散模型", "推理", "量化", "Benchmark", "benchmark", "KV cache"]
WORDS = ["Sparse", "Attention", "Diffusion", "Scaling", "Reasoning", "Quantized", "Agents", "Cache", "Flow", "Laws"]
CACHES = (".summarizer-rendered",)  # the fingerprints hold file times: a cache, not output


def site_files(root: Path) -> dict[str, bytes]:
    files = (p for p in sorted(root.rglob("*")) if p.is_file())
    return {rel: p.read_bytes() for p in files if (rel := p.relative_to(root).as_posix()) not in CACHES}


def add_paper(store: Store, rng: random.Random, n: int, venue: str | None = None) -> None:
    title = " ".join(rng.sample(WORDS, 3)) + f" {n}"
    summary = summary_text(rng.choice(["注意力", "扩散", "推理", "量化"]) + f"（{n}）")
    add(store, venue or rng.choice(VENUES3)["id"], f"2601.{n:05d}", title, summary, rng.sample(TAGS, 2),
        rng.choice(FIELDS), arxiv_id=f"2601.{n:05d}")  # fmt: skip


def full_build(project: Project, where: Path) -> Path:
    """The same config and records, built into an empty folder."""
    where.mkdir()
    shutil.copy(project.config_path, where / "config.yaml")
    shutil.copytree(project.root / "outputs" / "records", where / "outputs" / "records")
    settings = Project(where, {}).settings()
    return Path(build_site(settings, Store(settings.outputs_dir), None, drafts=False).subject)


def edit_summary(store: Store, rng: random.Random) -> None:
    venue = rng.choice(VENUES3)["id"]
    record = rng.choice(store.records(venue))
    version = record.summaries.approved
    assert version is not None
    record.summaries.add_version(summary_text("改写后的摘要"), version.tags, version.field, "human")
    record.summaries.approve()
    store.save(record)


def remove_paper(store: Store, rng: random.Random) -> None:
    venue = rng.choice(VENUES3)["id"]
    record = rng.choice(store.records(venue))
    store.path(venue, record.id).unlink()


def note_citing(store: Store, rng: random.Random, cited: int) -> None:
    """An approved note on a random paper comparing it with paper ``cited`` (linked once it is on the site)."""
    venue = rng.choice(VENUES3)["id"]
    record = rng.choice(store.records(venue))
    record.notes.add_version(
        f"## 一句话总结\n\n笔记。\n\n## 与相关工作的对比\n- **vs Other** (arXiv:2601.{cited:05d}): 对比。\n", "llm"
    )
    record.notes.approve()
    store.save(record)


def rename(project: Project, rng: random.Random, step: int) -> None:
    venues = [dict(v) for v in project.config["venues"]]
    rng.choice(venues)["name"] = f"Renamed {step}"
    project.write_config(venues=venues)


def test_a_rebuild_after_changes_writes_what_a_full_build_writes(project: Project, tmp_path: Path) -> None:
    rng = random.Random(23)
    project.write_config(venues=VENUES3, site={"title": "论文解读", "hot_topics": {"top_k": 3, "min_count": 2}})
    store = project.store()
    for n in range(30):
        add_paper(store, rng, n)
    root = Path(build_site(project.settings(), store, None, drafts=False).subject)
    changes = [
        lambda: [add_paper(store, rng, 100 + n, "ICLR2026") for n in range(3)],  # new papers in one venue
        lambda: edit_summary(store, rng),
        lambda: remove_paper(store, rng),
        lambda: rename(project, rng, 1),
        lambda: note_citing(store, rng, 300),  # a note whose comparison is not on the site yet
        lambda: add_paper(store, rng, 300),  # now it is: the note's page links it
        lambda: (add_paper(store, rng, 200), edit_summary(store, rng), remove_paper(store, rng)),
        lambda: project.write_config(site={"title": "新的站名", "hot_topics": {"top_k": 2, "min_count": 1}}),
    ]
    for step, change in enumerate(changes):
        change()
        report = build_site(project.settings(), store, None, drafts=False)
        assert report.written, step
        full = full_build(project, tmp_path / f"full-{step}")
        assert site_files(root) == site_files(full), step
        assert site_files(full) == site_files(full_build(project, tmp_path / f"again-{step}"))  # deterministic
    pages = site_files(root).values()
    assert any(b"paper-note" in page and b"2601.00300.md)" in page for page in pages)  # the note's link was made


def test_a_rebuild_renders_only_the_pages_whose_context_changed(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    project.write_config(venues=VENUES3)
    store = project.store()
    for n in range(20):
        add_paper(store, rng, n)
    note_citing(store, rng, 3)  # a page with a note is skipped like any other
    root = Path(build_site(project.settings(), store, None, drafts=False).subject)
    rendered: list[str] = []
    real_render = jinja2.Template.render

    def counting(self: jinja2.Template, *args: object, **kwargs: object) -> str:
        rendered.append(self.name or "")
        return real_render(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Template, "render", counting)
    build_site(project.settings(), store, None, drafts=False)
    assert rendered == ["mkdocs.yml.j2"]  # every page as it was: none rendered, none read

    edit_summary(store, rng)
    rendered.clear()
    report = build_site(project.settings(), store, None, drafts=False)
    # The paper's page, its field's and venue's pages (the summary, the newest papers), the home page
    # and tag pages when counts move: a handful, not the site.
    assert 1 <= len(rendered) - 1 <= 8 < len(report.unchanged)

    page = next(root.glob("docs/ICML2026/*/2601.*.md"))
    page.write_text("edited by hand\n", "utf-8")
    rendered.clear()
    build_site(project.settings(), store, None, drafts=False)
    assert page.read_text("utf-8") != "edited by hand\n" and len(rendered) == 2  # that page, and mkdocs.yml


def test_a_page_function_that_changes_its_templates_text_is_rendered_whole(tmp_path: Path) -> None:
    env = page_env()
    cache = PageCache(tmp_path)
    env.page_cache = cache
    (tmp_path / "docs").mkdir()

    def page() -> str:
        return env.get_template("search.md.j2").render(meta_description="d", index="b") + "!"

    text, _ = cache.make("docs/search.md", page, lambda _: "")
    assert text is not None and text.endswith("!")
    (tmp_path / "docs/search.md").write_text(text, "utf-8")
    cache.save()
    again = PageCache(tmp_path)
    env.page_cache = again
    assert again.make("docs/search.md", page, lambda _: "") == (text, "")  # rendered again, whole
    assert not again.fresh  # such a page gets no fingerprint: it is rendered every time


def mkdocs(root: Path, *args: str, site_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of the site in ``root`` (its output in ``root/site`` unless ``site_dir``)."""
    where = ["-d", str(site_dir)] if site_dir is not None else []
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", *args, *where, "-f", str(root / "mkdocs.yml")]
    env = {"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300)


def dirty_then_full(root: Path) -> str:
    """``mkdocs build --strict --dirty``, then a full build beside it: the two sites must be the same files."""
    dirty = mkdocs(root, "--dirty")
    assert dirty.returncode == 0, dirty.stderr[-2000:]
    shutil.rmtree(root / "full-site", ignore_errors=True)
    full = mkdocs(root, site_dir=root / "full-site")
    assert full.returncode == 0, full.stderr[-2000:]
    assert site_files(root / "site") == site_files(root / "full-site")
    return dirty.stderr


@pytest.mark.slow
def test_mkdocs_dirty_after_changes_writes_what_a_full_build_writes(project: Project) -> None:
    rng = random.Random(7)
    project.write_config(venues=VENUES3)
    store = project.store()
    for n in range(24):
        add_paper(store, rng, n)
    root = Path(build_site(project.settings(), store, None, drafts=False).subject)
    first = mkdocs(root)
    assert first.returncode == 0, first.stderr[-2000:]

    for n in range(4):  # new papers in one venue: the other venues' cross-venue lines and related papers move
        add_paper(store, rng, 100 + n, "ICLR2026")
    build_site(project.settings(), store, None, drafts=False)
    log = dirty_then_full(root)
    patched = re.search(r"rebuild: (\d+) pages brought up to date", log)
    assert patched is not None and int(patched.group(1)) >= 1, log[-2000:]
    assert broken_links(root / "site") == []

    remove_paper(store, rng)  # its page goes, in the built site too
    edit_summary(store, rng)
    note_citing(store, rng, 101)  # a note in place of a summary, its comparison linked to another venue
    build_site(project.settings(), store, None, drafts=False)
    dirty_then_full(root)

    fields = [dict(f) for f in project.config["fields"]]
    fields[0]["name"] = "改名的方向"  # in the sidebar of every page of every venue with that field
    project.write_config(fields=fields)
    build_site(project.settings(), store, None, drafts=False)
    dirty_then_full(root)

    project.write_config(site={"title": "新的站名"})  # on every page: the whole site is built again
    build_site(project.settings(), store, None, drafts=False)
    assert "building it all" in dirty_then_full(root)
