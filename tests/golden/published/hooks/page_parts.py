"""Written by `summarizer build` (mkdocs.yml `hooks:`): a built page's parts brought up to date without rendering it.

A few lines of a page change when *other* pages change: a field page's cross-venue line (each venue's
count of papers in the field) and a paper page's related papers.  New papers in one venue change those
lines on thousands of pages of the others.  `summarizer build` writes each such line as a part: one
line of raw HTML, ``<p data-part="cross">…</p>`` or ``<ul data-part="related">…</ul>``, which
Python-Markdown copies into the page's HTML as it is.

When MkDocs renders a page that has parts, this hook stamps its HTML with a digest of everything else
the page is made from (its front matter and its Markdown with the parts emptied: its skeleton).  A page
whose HTML does not hold each part exactly as its Markdown wrote it gets no stamp.

``mkdocs build --dirty`` renders again only the pages whose Markdown is newer than their HTML.  Before
it does, this hook looks at each of those: when the Markdown's skeleton is the one its HTML was stamped
with, only parts changed, and the hook writes the new parts into the HTML itself.  The page is then
newer than its Markdown, so MkDocs leaves it, and it reads byte for byte as a rendered one would.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.utils import meta

PART = re.compile(r'^<(p|ul) data-part="([a-z]+)">[^\n]*</\1>$', re.MULTILINE)
STAMP = '<meta name="summarizer:skeleton" content="{}">'
STAMPED = re.compile(r'<meta name="summarizer:skeleton" content="([0-9a-f]{32})">')
log = logging.getLogger("mkdocs.hooks.page_parts")
_state: dict[str, Any] = {"dirty": False, "skeletons": {}}


def on_startup(command: str, dirty: bool) -> None:
    _state["dirty"] = dirty


def on_files(files: Any, config: Any) -> Any:
    if _state["dirty"]:
        patched = sum(
            _patch(Path(file.abs_src_path), Path(file.abs_dest_path))
            for file in files.documentation_pages()
            if file.is_modified() and os.path.isfile(file.abs_dest_path)
        )
        log.info("parts: %d pages brought up to date without rendering them", patched)
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    digest, parts = _skeleton(markdown, page.meta)
    if parts:
        _state["skeletons"][page.file.src_uri] = (digest, parts)
    return markdown


def on_post_page(output: str, page: Any, config: Any) -> str:
    found = _state["skeletons"].pop(page.file.src_uri, None)
    if found is None:
        return output
    digest, parts = found
    if "</head>" not in output or any(output.count(line) != 1 for line in parts.values()):
        return output  # a part not copied as written: this page is always rendered
    if {name: line for name, line in _parts(output)} != parts:
        return output
    return output.replace("</head>", STAMP.format(digest) + "</head>", 1)


def _skeleton(markdown: str, page_meta: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The digest of the page without its parts' content, and its parts (name -> the whole line)."""
    parts: dict[str, str] = {}
    for name, line in _parts(markdown):
        if name in parts:
            return "", {}  # two parts of one name: not a page this hook patches
        parts[name] = line
    emptied = PART.sub(lambda m: f'<{m.group(1)} data-part="{m.group(2)}"></{m.group(1)}>', markdown)
    digest = hashlib.sha256(json.dumps(page_meta, sort_keys=True, default=str, ensure_ascii=False).encode())
    digest.update(b"\0" + emptied.encode("utf-8"))
    return digest.hexdigest()[:32], parts


def _parts(text: str) -> list[tuple[str, str]]:
    return [(m.group(2), m.group(0)) for m in PART.finditer(text)]


def _patch(source: Path, built: Path) -> bool:
    """Put the Markdown's parts into the built page when nothing else of it changed; True when it did."""
    try:
        markdown, page_meta = meta.get_data(source.read_text(encoding="utf-8-sig"))
        html = built.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return False
    digest, parts = _skeleton(markdown, page_meta)
    stamp = STAMPED.search(html)
    if not parts or stamp is None or stamp.group(1) != digest:
        return False
    old = dict(_parts(html))
    if sorted(old) != sorted(parts) or len(old) != len(_parts(html)):
        return False
    for name, line in parts.items():
        html = html.replace(old[name], line, 1)
    mode = built.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(dir=built.parent, prefix=f".{built.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(html.encode("utf-8", errors="xmlcharrefreplace"))  # as MkDocs writes a page
        os.chmod(tmp, mode)
        os.replace(tmp, built)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True
