"""Written by `summarizer build` (mkdocs.yml `hooks:`): the site's search, made by Pagefind after MkDocs.

Each venue's paper pages get a Pagefind bundle of their own, ``search-index/<VENUE>/`` in the built site;
the search page (``search/``) asks every bundle at once, and a reader's browser fetches only the parts of
each index that hold the words asked.  Pagefind's extended build segments Chinese, so a two-character
word inside a sentence is found.

A bundle is made again only when what it indexes changed: ``docs/.search-index.json`` (written by
`summarizer build`) holds a digest per venue, and each bundle keeps the digest it was made from.  So
``mkdocs build --dirty`` after one venue changed renders and indexes that venue alone.  Pages the site no
longer has (a paper taken off) are removed from the built site first, which ``--dirty`` does not do.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

log = logging.getLogger("mkdocs.hooks.search_index")
BUNDLES = "search-index"
STAMP = ".digest"
_state: dict[str, object] = {"pages": set(), "dirty": False}


def on_startup(command: str, dirty: bool) -> None:
    _state["dirty"] = dirty  # a full build starts from an empty folder: no page is gone


def on_files(files: Any, config: Any) -> Any:
    _state["pages"] = {f.dest_uri for f in files}
    return files


def on_post_build(config: Any) -> None:
    site = Path(config["site_dir"])
    wanted = json.loads((Path(config["docs_dir"]) / ".search-index.json").read_text(encoding="utf-8"))
    if _state["dirty"]:
        _remove_gone_pages(site, wanted["folders"])
    bundles = site / BUNDLES
    if bundles.is_dir():
        for old in bundles.iterdir():
            if old.name not in wanted["venues"]:
                shutil.rmtree(old)
    todo = [venue for venue, digest in wanted["venues"].items() if _made_from(bundles / venue) != digest]
    _index(site, todo)
    for venue in todo:
        (bundles / venue / STAMP).write_text(wanted["venues"][venue], encoding="utf-8")
    log.info("search: %d of %d venue bundles made", len(todo), len(wanted["venues"]))


def _made_from(bundle: Path) -> str | None:
    try:
        return (bundle / STAMP).read_text(encoding="utf-8")
    except OSError:
        return None


def _remove_gone_pages(site: Path, folders: list[str]) -> None:
    """HTML the build did not write this time, in the folders `summarizer build` owns (venues, tags)."""
    pages = _state["pages"]
    assert isinstance(pages, set)
    for folder in folders:
        for parent, _, names in os.walk(site / folder):
            for name in names:
                html = Path(parent, name)
                if name.endswith(".html") and html.relative_to(site).as_posix() not in pages:
                    html.unlink()
                    _remove_empty(site, html.parent)


def _remove_empty(site: Path, folder: Path) -> None:
    while folder != site and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _command(site: Path, venue: str) -> list[str]:
    return [
        sys.executable, "-m", "pagefind", "--site", str(site), "--glob", f"{venue}/**/*.html",
        "--output-path", str(site / BUNDLES / venue), "--force-language", "zh", "--quiet",
        # Heading anchors (¶) and TeX source are not words a reader searches for, nor good snippets.
        "--exclude-selectors", ".headerlink, .arithmatex",
    ]  # fmt: skip


def _index(site: Path, venues: list[str]) -> None:
    """Pagefind over each venue, two at a time."""
    running: list[tuple[str, subprocess.Popen[bytes]]] = []
    failed: list[str] = []
    for venue in [*venues, None]:
        while running and (venue is None or len(running) >= 2):
            name, process = running.pop(0)
            _, err = process.communicate()
            if process.returncode:
                failed.append(f"{name}: {err.decode('utf-8', 'replace').strip()[-500:]}")
        if venue is not None:
            shutil.rmtree(site / BUNDLES / venue, ignore_errors=True)
            try:
                process = subprocess.Popen(_command(site, venue), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except OSError as exc:
                raise PluginError(f"search: cannot run Pagefind ({exc})") from exc
            running.append((venue, process))
    if failed:
        missing = any("No module named" in f for f in failed)
        hint = " (pip install 'conference-digest-zh[mkdocs]' brings Pagefind)" if missing else ""
        raise PluginError("search: Pagefind failed: " + "; ".join(failed) + hint)
