"""Written by `summarizer build` (mkdocs.yml `hooks:`): `mkdocs build --dirty` writes what a full build writes.

`summarizer build` rewrites only the pages whose Markdown changed, and ``--dirty`` renders again only
the pages whose Markdown is newer than their HTML.  Two things would still leave a built page stale;
this hook takes care of both.

**Parts.**  A few lines of a page change when *other* pages change: a field page's cross-venue line
(each venue's count of papers in the field) and a paper page's related papers.  New papers in one
venue change those lines on thousands of pages of the others.  `summarizer build` writes each such
line as a part: one line of raw HTML, ``<p data-part="cross">…</p>`` or ``<ul data-part="related">…</ul>``,
which Python-Markdown copies into the page's HTML as it is.  When MkDocs renders a page with parts,
this hook stamps its HTML with a digest of everything else the page is made from (its Markdown file,
front matter and all, with the parts emptied: its skeleton); a page whose HTML does not hold each part
exactly as its Markdown wrote it gets no stamp.  Before a ``--dirty`` build renders anything, the hook
looks at each page whose Markdown is newer than its HTML: when the Markdown's skeleton is the one its
HTML was stamped with, only parts changed, and the hook writes the new parts into the HTML itself.
The page is then newer than its Markdown, so MkDocs leaves it, and it reads byte for byte as a
rendered one would.

**The whole site's settings.**  Every page shows the site's name, theme and settings, which no page's
Markdown holds.  The hook keeps a digest of them in the built site (``.summarizer-site``: the MkDocs
configuration less the venues' part of its nav, which reaches the pages of the venue it concerns
through their front matter, ``nav:`` being a digest of it; the theme overrides and hooks; the versions
of MkDocs, Material, Python-Markdown, its extensions and jinja2).  A ``--dirty`` build that finds
another digest empties the built site first, as a full build does, and renders it all.

So MkDocs' warning that a dirty build is inaccurate does not hold for this site, and it is left out:
``mkdocs build --strict --dirty`` builds.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import page_safety  # beside this file (hooks/sanitize.py runs it over every page)
from mkdocs.utils import clean_directory

PART = re.compile(r'^<(p|ul) data-part="([a-z]+)">[^\n]*</\1>$', re.MULTILINE)
STAMP = '<meta name="summarizer:skeleton" content="{}">'
STAMPED = re.compile(r'<meta name="summarizer:skeleton" content="([0-9a-f]{32})">')
SITE_STAMP = ".summarizer-site"
DIRTY_WARNING = "A 'dirty' build is being performed"
RENDERERS = ("mkdocs", "mkdocs-material", "markdown", "pymdown-extensions", "jinja2", "nh3")  # their upgrade: all again
log = logging.getLogger("mkdocs.hooks.rebuild")
_state: dict[str, Any] = {"dirty": False, "skeletons": {}}


class _DirtyIsExact(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(DIRTY_WARNING)


def on_startup(command: str, dirty: bool) -> None:
    _state["dirty"] = dirty
    if dirty:
        logging.getLogger("mkdocs.commands.build").addFilter(_DirtyIsExact())


def on_pre_build(config: Any) -> None:
    site = Path(config["site_dir"])
    _state["site_digest"] = _site_digest(config)
    if _state["dirty"] and _made_from(site) != _state["site_digest"]:
        log.info("rebuild: the site's settings or theme changed since it was built: building it all")
        clean_directory(str(site))


def on_files(files: Any, config: Any) -> Any:
    if _state["dirty"]:
        patched = sum(
            _patch(Path(file.abs_src_path), Path(file.abs_dest_path))
            for file in files.documentation_pages()
            if file.is_modified() and os.path.isfile(file.abs_dest_path)
        )
        log.info("rebuild: %d pages brought up to date without rendering them (parts)", patched)
    return files


def on_page_read_source(page: Any, config: Any) -> str:
    """The page's Markdown as MkDocs reads it; its skeleton is taken from the very text that is rendered."""
    with open(page.file.abs_src_path, encoding="utf-8-sig", errors="strict") as source:
        text = source.read()
    _state["skeletons"][page.file.src_uri] = _skeleton(text)
    return text


def on_post_page(output: str, page: Any, config: Any) -> str:
    digest, parts = _state["skeletons"].pop(page.file.src_uri, ("", {}))
    if not parts or "</head>" not in output or any(output.count(line) != 1 for line in parts.values()):
        return output  # no parts, or a part not copied as written: this page is always rendered
    if dict(_parts(output)) != parts:
        return output
    return output.replace("</head>", STAMP.format(digest) + "</head>", 1)


def on_post_build(config: Any) -> None:
    (Path(config["site_dir"]) / SITE_STAMP).write_text(_state["site_digest"] + "\n", encoding="utf-8")


def _site_digest(config: Any) -> str:
    """What every page is made from besides its own Markdown and its venue's nav."""
    digest = hashlib.sha256()
    for package in RENDERERS:
        try:
            digest.update(f"{package} {metadata.version(package)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{package} -\n".encode())
    settings = Path(config["config_file_path"]).read_text(encoding="utf-8")
    head, _, nav = settings.partition("\nnav:\n")
    digest.update(head.encode("utf-8") + b"\0" + nav.split("\n", 1)[0].encode("utf-8"))  # and the home page's entry
    here = Path(config["config_file_path"]).parent
    for folder in ("overrides", "hooks"):
        for path in sorted((here / folder).rglob("*")) if (here / folder).is_dir() else []:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(here).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


def _made_from(site: Path) -> str | None:
    try:
        return (site / SITE_STAMP).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _skeleton(source: str) -> tuple[str, dict[str, str]]:
    """The digest of a page's Markdown file without its parts' content, and its parts (name -> the whole line)."""
    parts: dict[str, str] = {}
    for name, line in _parts(source):
        if name in parts:
            return "", {}  # two parts of one name: not a page this hook patches
        parts[name] = page_safety.clean_html(line)  # as the sanitised page holds it, and as it is patched in
    emptied = PART.sub(lambda m: f'<{m.group(1)} data-part="{m.group(2)}"></{m.group(1)}>', source)
    return hashlib.sha256(emptied.encode("utf-8")).hexdigest()[:32], parts


def _parts(text: str) -> list[tuple[str, str]]:
    return [(m.group(2), m.group(0)) for m in PART.finditer(text)]


def _patch(source: Path, built: Path) -> bool:
    """Put the Markdown's parts into the built page when nothing else of it changed; True when it did."""
    try:
        digest, parts = _skeleton(source.read_text(encoding="utf-8-sig"))
        html = built.read_text(encoding="utf-8") if parts else ""
    except (OSError, ValueError):
        return False
    stamp = STAMPED.search(html)
    if not parts or stamp is None or stamp.group(1) != digest:
        return False
    found = _parts(html)
    old = dict(found)
    if sorted(old) != sorted(parts) or len(old) != len(found):
        return False
    for name, line in parts.items():
        html = html.replace(old[name], line, 1)
    _replace(built, html.encode("utf-8", errors="xmlcharrefreplace"))  # as MkDocs writes a page
    return True


def _replace(path: Path, data: bytes) -> None:
    mode = path.stat().st_mode & 0o777
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
