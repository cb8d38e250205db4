"""Written by `summarizer build` (mkdocs.yml `hooks:`): the site's search, one Pagefind index made after MkDocs.

Every paper page's indexed body gets a hidden part first (``search_terms.py``): its Chinese as
character pairs in Latin letters, weighted (title and tags, summary, the rest), and its venue and
field as Pagefind filters and metadata.  It is added here, after the sanitiser, from the page's own
rendered text: what a record holds cannot set a search term, weight, filter or title.

The whole site is one index, ``search-index/`` in the built site: a query fetches the index chunks
that hold its terms, however many venues there are.  The index is made again only when what it
indexes changed: ``docs/.search-index.json`` (written by `summarizer build`) holds a digest per
venue, and the index keeps the digest of them all it was made from.  Pages the site no longer has (a
paper taken off) are removed from the built site first, which ``--dirty`` does not do.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import search_terms  # beside this file: MkDocs puts a hook's folder on sys.path while it loads it
from mkdocs.exceptions import PluginError

log = logging.getLogger("mkdocs.hooks.search_index")
INDEX = "search-index"
STAMP = ".digest"
# Paper pages only (VENUE/FIELD/<id>/index.html): Pagefind reads no other page, so the long pages that
# list papers (fields, tags) cost it nothing.
PAPER_PAGES = "*/*/*/index.html"
_BODY = re.compile(r"<div\b[^>]*\bdata-pagefind-body\b[^>]*>")
_state: dict[str, Any] = {"pages": set(), "dirty": False, "labels": {}}


def on_startup(command: str, dirty: bool) -> None:
    _state["dirty"] = dirty  # a full build starts from an empty folder: no page is gone


def on_config(config: Any) -> Any:
    _state["labels"] = _wanted(config).get("labels", {})
    return config


def on_files(files: Any, config: Any) -> Any:
    _state["pages"] = {f.dest_uri for f in files}
    return files


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """A paper page (``VENUE/FIELD/<id>``, with an indexed body): its hidden index-only part, first in the body."""
    found = _BODY.search(html)
    parts = page.file.src_uri.split("/")
    if found is None or len(parts) != 3:
        return html
    labels = _state["labels"]
    filters = {"venue": labels.get(parts[0], parts[0]), "field": labels.get(f"{parts[0]}/{parts[1]}", parts[1])}
    return html[: found.end()] + search_terms.index_part(html, filters) + html[found.end() :]


def on_post_build(config: Any) -> None:
    site = Path(config["site_dir"])
    wanted = _wanted(config)
    if _state["dirty"]:
        _remove_gone_pages(site, wanted["folders"])
    digest = hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()
    index = site / INDEX
    if _made_from(index) == digest:
        log.info("search: index unchanged")
        return
    shutil.rmtree(index, ignore_errors=True)
    if wanted["venues"]:
        _index(site)
        try:
            _settle_filters(index)
        except (PluginError, ValueError, TypeError, IndexError) as exc:  # another Pagefind's format: left as it is
            log.info("search: index left in Pagefind's own order (%s)", exc)
        (index / STAMP).write_text(digest, encoding="utf-8")
    log.info("search: index made over %d venues", len(wanted["venues"]))


def _wanted(config: Any) -> dict[str, Any]:
    path = Path(config["docs_dir"]) / ".search-index.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else {"venues": {}, "folders": []}


def _made_from(index: Path) -> str | None:
    try:
        return (index / STAMP).read_text(encoding="utf-8")
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


def _index(site: Path) -> None:
    """Pagefind over the paper pages into one index."""
    command = [
        sys.executable, "-m", "pagefind", "--site", str(site), "--glob", PAPER_PAGES,
        "--output-path", str(site / INDEX), "--force-language", "zh", "--quiet",
        # Heading anchors (¶) and TeX source are not words a reader searches for, nor good snippets.
        "--exclude-selectors", ".headerlink, .arithmatex",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, check=False)
    except OSError as exc:
        raise PluginError(f"search: cannot run Pagefind ({exc})") from exc
    if done.returncode:
        err = done.stderr.decode("utf-8", "replace").strip()[-500:]
        hint = " (pip install 'conference-digest-zh[mkdocs]' brings Pagefind)" if "No module named" in err else ""
        raise PluginError(f"search: Pagefind failed: {err}{hint}")


# Pagefind writes each filter's values, and the list of filters in its metadata, in the order of a hash map
# seeded anew on every run: the same pages give other bytes (and file names) each time.  The index is put in
# one order here (by value, by filter name), so a site built twice, or with --dirty, is the same files.
def _settle_filters(index: Path) -> None:
    renamed: dict[str, str] = {}
    for path in sorted((index / "filter").glob("*.pf_filter")):
        head, (name, values) = _read_cbor_file(path)
        data = head + _cbor([name, sorted(values, key=lambda v: _cbor(v))])
        new = path.name.split("_", 1)[0] + "_" + hashlib.sha256(data).hexdigest()[:7]
        renamed[path.name.removesuffix(".pf_filter")] = new
        path.unlink()
        (path.parent / f"{new}.pf_filter").write_bytes(gzip.compress(data, mtime=0))
    for meta in sorted(index.glob("pagefind.*.pf_meta")):
        head, value = _read_cbor_file(meta)
        value = [sorted(([n, renamed.get(h, h)] for n, h in part), key=lambda p: p[0]) if _is_filters(part, renamed)
                 else part for part in value]  # fmt: skip
        data = head + _cbor(value)
        old, new = meta.name.split(".")[1], meta.name.split(".")[1].split("_", 1)[0] + "_"
        new += hashlib.sha256(data).hexdigest()[: len(old) - len(new)]
        meta.unlink()
        (index / f"pagefind.{new}.pf_meta").write_bytes(gzip.compress(data, mtime=0))
        entry = index / "pagefind-entry.json"
        entry.write_text(entry.read_text(encoding="utf-8").replace(f'"{old}"', f'"{new}"'), encoding="utf-8")


def _is_filters(part: Any, renamed: dict[str, str]) -> bool:
    return (
        isinstance(part, list)
        and bool(part)
        and all(isinstance(p, list) and len(p) == 2 and p[1] in renamed for p in part)
    )


_SIGNATURE = re.compile(rb"pagefind_\w\w\w")


def _read_cbor_file(path: Path) -> tuple[bytes, Any]:
    data = gzip.decompress(path.read_bytes())
    head = _SIGNATURE.match(data)
    if head is None:
        raise PluginError(f"search: {path.name} is not a Pagefind file this site knows")
    value, end = _uncbor(data, head.end())
    if end != len(data):
        raise PluginError(f"search: {path.name} holds more than one CBOR item")
    return data[: head.end()], value


def _uncbor(data: bytes, at: int) -> tuple[Any, int]:
    """One CBOR item (the kinds Pagefind writes: integers, strings, arrays; anything else kept as raw bytes)."""
    major, info = data[at] >> 5, data[at] & 31
    at += 1
    if info < 24:
        n = info
    elif info <= 27:
        size = 1 << (info - 24)
        n, at = int.from_bytes(data[at : at + size], "big"), at + size
    else:
        raise PluginError("search: a Pagefind file holds CBOR this site does not read")
    if major == 0:
        return n, at
    if major in (2, 3):
        raw = data[at : at + n]
        return (raw.decode("utf-8") if major == 3 else raw), at + n
    if major == 4:
        items = []
        for _ in range(n):
            item, at = _uncbor(data, at)
            items.append(item)
        return items, at
    raise PluginError("search: a Pagefind file holds CBOR this site does not read")


def _cbor(value: Any) -> bytes:
    def head(major: int, n: int) -> bytes:
        if n < 24:
            return bytes([major << 5 | n])
        size = next(s for s in (1, 2, 4, 8) if n < 1 << (8 * s))
        return bytes([major << 5 | {1: 24, 2: 25, 4: 26, 8: 27}[size]]) + n.to_bytes(size, "big")

    if isinstance(value, int):
        return head(0, value)
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return head(3, len(raw)) + raw
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    return head(4, len(value)) + b"".join(_cbor(v) for v in value)
