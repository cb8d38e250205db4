"""The site's own files: ``mkdocs.yml`` from ``site:`` in config.yaml, the theme overrides, the search hook,
the scripts and styles, and MathJax itself.

MathJax 3 is served from the site (``docs/javascripts/mathjax/``), copied from the ``django-static-mathjax``
package (MathJax 3.2.2's ``es5`` files, Apache-2.0), so a page loads nothing from a third party;
``site.mathjax: cdn`` names unpkg.com's copy instead.  The review desk serves the same folder
(``mathjax_es5``).
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from summarizer.core import page_safety
from summarizer.core.config import Settings
from summarizer.core.markdown_dialect import MARKDOWN_EXTENSIONS

from .markdown_text import meta_text, yaml_scalar
from .pages import NAV_HOME, NAV_OVERVIEW, TEMPLATES, SiteView, nav_title, site_title

MATHJAX_CDN = "https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"
MATHJAX_DIR = "javascripts/mathjax"
# What the site's pages use of MathJax's es5 folder: the combined TeX component, what it loads on demand
# (TeX extensions, fonts, the menu's accessibility tools) and the licence.
MATHJAX_PARTS = ("tex-mml-chtml.js", "input", "output/chtml", "ui", "a11y", "sre")
SHIPPED = (
    "javascripts/mathjax.js",
    "javascripts/search.js",
    "stylesheets/site.css",
)
THEME_FILES = (
    "overrides/main.html",
    "overrides/partials/header.html",
    "overrides/partials/nav.html",
    "overrides/partials/nav-item.html",
    "overrides/partials/site-parts.html",
    "hooks/sanitize.py",
    "hooks/page_safety.py",
    "hooks/search_index.py",
    "hooks/search_terms.py",
    "hooks/rebuild.py",
)
_SHIPPED_FROM = {"javascripts/mathjax.js": "mathjax.js", "javascripts/search.js": "search.js"}
# The sanitiser the desk runs too, copied beside the hook that runs it over every page.
_SHIPPED_FROM_PACKAGE = {"hooks/page_safety.py": Path(page_safety.__file__)}


def mathjax_es5() -> Path | None:
    """MathJax 3's ``es5`` folder as the ``django-static-mathjax`` package installs it, if it is installed."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    return folder if (folder / "tex-mml-chtml.js").is_file() else None


def mathjax_files(es5: Path) -> Iterator[tuple[str, Path]]:
    """``(path under docs/, file)`` for each MathJax file the site serves, in a fixed order."""
    for part in MATHJAX_PARTS:
        source = es5 / part
        files = [source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())
        for path in files:
            yield f"{MATHJAX_DIR}/{path.relative_to(es5).as_posix()}", path
    licence = es5.parent / "LICENSE"
    if licence.is_file():
        yield f"{MATHJAX_DIR}/LICENSE", licence


def shipped(rel: str) -> bytes:
    """A file of the site as shipped beside this module (``templates/``)."""
    if rel in _SHIPPED_FROM_PACKAGE:
        return _SHIPPED_FROM_PACKAGE[rel].read_bytes()
    return (TEMPLATES / _SHIPPED_FROM.get(rel, rel)).read_bytes()


def theme_digest() -> str:
    """The shipped theme files and hook: part of what a page's HTML and the search index are made from."""
    digest = hashlib.sha256()
    for rel in THEME_FILES:
        digest.update(shipped(rel))
    return digest.hexdigest()


def _publisher_keys(settings: Settings) -> str:
    """``site:``'s MkDocs settings as YAML lines (names escaped as nav titles are, ``extra`` as data)."""
    site = settings.site
    keys: dict[str, Any] = {}
    if site.site_url:
        keys["site_url"] = site.site_url
    if site.repo_url:
        keys["repo_url"] = site.repo_url
    if site.repo_name:
        keys["repo_name"] = meta_text(site.repo_name)
    if site.copyright:
        keys["copyright"] = meta_text(site.copyright)
    return yaml.safe_dump(keys, allow_unicode=True, sort_keys=False) if keys else ""


def _theme_keys(settings: Settings) -> str:
    site = settings.site
    theme: dict[str, Any] = {"palette": site.palette.model_dump()}
    theme["font"] = site.font.model_dump() if site.font else False
    return yaml.safe_dump(theme, allow_unicode=True, sort_keys=False, default_flow_style=False)


def _extra(settings: Settings) -> str:
    extra = settings.site.extra
    return yaml.safe_dump({"extra": extra}, allow_unicode=True, sort_keys=True) if extra else ""


def _extensions_yaml() -> str:
    items = [{name: opts} if opts else name for name, opts in MARKDOWN_EXTENSIONS]
    return yaml.safe_dump(items, allow_unicode=True, sort_keys=False, default_flow_style=False)


def mkdocs_yml(view: SiteView) -> str:
    settings = view.settings
    venues = [view.venue_nav(v.id) for v in settings.venues if view.grouped.get(v.id)]
    mathjax = MATHJAX_CDN if settings.site.mathjax == "cdn" else f"{MATHJAX_DIR}/tex-mml-chtml.js"
    return view.env.get_template("mkdocs.yml.j2").render(
        site_name=nav_title(site_title(settings, view.drafts)),
        publisher=_publisher_keys(settings),
        theme=_indent(_theme_keys(settings), 2),
        extra=_extra(settings),
        markdown_extensions=_indent(_extensions_yaml(), 2),
        extra_css=[yaml_scalar(css) for css in ["stylesheets/site.css", *settings.site.extra_css]],
        mathjax=yaml_scalar(mathjax),
        home_title=nav_title(NAV_HOME),
        overview_title=nav_title(NAV_OVERVIEW),
        venues=venues,
    )


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())
