"""docs/site.md's "Publish" recipe works: the workflow's own commands build a site whose sitemap lists every page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from urllib.parse import unquote

import pytest
import yaml
from test_build import VENUES3, sample_store

from conftest import REPO, Project

WORKFLOW = REPO / "examples" / "publish" / "github-pages.yml"


def test_the_workflow_builds_with_summarizer_and_mkdocs_strict_and_uploads_the_site() -> None:
    jobs = yaml.safe_load(WORKFLOW.read_text("utf-8"))["jobs"]
    runs = [step["run"] for step in jobs["build"]["steps"] if "run" in step]
    assert runs[1:] == ["summarizer build", "mkdocs build --strict -f outputs/site/mkdocs.yml"]
    upload = next(step for step in jobs["build"]["steps"] if "upload-pages-artifact" in step.get("uses", ""))
    assert upload["with"]["path"] == "outputs/site/site"
    assert any("deploy-pages" in step.get("uses", "") for step in jobs["deploy"]["steps"])


@pytest.mark.slow
def test_the_workflows_commands_publish_a_site_with_every_page_in_its_sitemap(project: Project) -> None:
    sample_store(project)
    project.write_config(venues=VENUES3, site={**project.config["site"], "site_url": "https://example.github.io/d/"})
    steps = yaml.safe_load(WORKFLOW.read_text("utf-8"))["jobs"]["build"]["steps"]
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SUMMARIZER_CONFIG": str(project.root / "config.yaml")}
    for step in steps:
        command = step.get("run", "")
        if command.startswith(("summarizer ", "mkdocs ")):  # as installed by the step before them
            argv = [sys.executable, "-m", *command.split()]
            done = subprocess.run(argv, cwd=project.root, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (command, done.stderr[-2000:])
    site = project.root / "outputs" / "site" / "site"
    pages = {p.parent.relative_to(site).as_posix() for p in site.rglob("index.html") if p.parent != site}
    pages = {p for p in pages if not p.startswith(("search-index", "javascripts"))}
    sitemap = (site / "sitemap.xml").read_text("utf-8")
    listed = {unquote(url) for url in re.findall(r"<loc>https://example\.github\.io/d/(.*?)/?</loc>", sitemap)}
    assert pages and pages <= listed, sorted(pages - listed)[:5]
    assert (site / "search-index" / "pagefind-entry.json").is_file()
