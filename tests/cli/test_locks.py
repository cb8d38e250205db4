"""One owner for locks: a venue's lock and each site folder's lock refuse a second holder and name the first."""

import os
from pathlib import Path

import pytest

from conftest import Project, RunCli
from summarizer.core import locks
from summarizer.core.errors import LockedError
from summarizer.core.store import Store


def test_venue_lock_refuses_a_second_holder(tmp_path: Path) -> None:
    store = Store(tmp_path)
    with locks.venue(store, "ICML2026"):
        second = Store(tmp_path)
        held = pytest.raises(LockedError, match=rf"held by pid {os.getpid()}, `summarizer")
        with held, locks.venue(second, "ICML2026"):
            pass
        refused = pytest.raises(LockedError, match="another summarizer command is working on ICML2026")
        with refused, locks.venue(second, "ICML2026"):
            pass
        with locks.venue(second, "ICLR2026"):  # other venues are independent
            pass
    with locks.venue(store, "ICML2026"):
        pass


def test_site_and_preview_have_locks_of_their_own(tmp_path: Path) -> None:
    with locks.site(tmp_path, drafts=False) as folder:
        assert folder == tmp_path / "site"
        refused = pytest.raises(LockedError, match=rf"building {tmp_path / 'site'} .*held by pid {os.getpid()}")
        with refused, locks.site(tmp_path, drafts=False):
            pass
        with locks.site(tmp_path, drafts=True), locks.venue(Store(tmp_path), "ICML2026"):
            pass  # the preview and the venues are independent of the site
    with locks.site(tmp_path, drafts=False):
        pass


def test_a_second_build_is_refused_with_the_holder_named(cli: RunCli, project: Project) -> None:
    outputs = project.settings().outputs_dir
    with locks.site(outputs, drafts=False):
        refused = cli("build")
        preview = cli("build", "--drafts")  # another folder: not blocked
    assert refused.code == 2, refused.err
    assert f"another summarizer command is building {outputs / 'site'}" in refused.err
    assert f"held by pid {os.getpid()}" in refused.err
    assert not (outputs / "site" / "mkdocs.yml").exists()
    assert preview.code == 0 and (outputs / "preview" / "mkdocs.yml").is_file(), preview.err
    assert cli("build").code == 0 and (outputs / "site" / "mkdocs.yml").is_file()


def test_run_takes_the_preview_lock(cli: RunCli, project: Project) -> None:
    (project.root / "empty.txt").write_text("", "utf-8")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "list", "path": "empty.txt"}
    project.write_config(venues=venues)
    outputs = project.settings().outputs_dir
    env = {"OPENAI_API_KEY": "sk-never-used"}
    with locks.site(outputs, drafts=True):
        refused = cli("run", "ICML2026", env=env)
        with locks.venue(project.store(), "ICML2026"):
            pass  # run let go of its venue's lock on the way out
    assert refused.code == 2, refused.err
    assert f"another summarizer command is building {outputs / 'preview'}" in refused.err
    assert not (outputs / "preview" / "mkdocs.yml").exists()
    done = cli("run", "ICML2026", env=env)
    assert done.code == 0, done.err
    assert (outputs / "preview" / "mkdocs.yml").is_file()
