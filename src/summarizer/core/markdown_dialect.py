"""The Markdown every page of the site is read with, and the review desk with it: the reference site's
extensions, in its order and with its options (its own ``mkdocs.yml``), so a note imported from it renders
as it did there and the desk shows a note as the site will.

Every text the site writes itself is escaped for all of them (``site.markdown_text``); a note passes
``core.note_markdown``'s checks first.
"""

from __future__ import annotations

from typing import Any

MARKDOWN_EXTENSIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("pymdownx.arithmatex", {"generic": True}),
    ("pymdownx.highlight", {"anchor_linenums": True}),
    ("pymdownx.superfences", {}),
    ("pymdownx.details", {}),
    ("pymdownx.mark", {}),
    ("pymdownx.critic", {}),
    ("pymdownx.tasklist", {"custom_checkbox": True}),
    ("admonition", {}),
    ("def_list", {}),
    ("tables", {}),
    ("attr_list", {}),
    ("md_in_html", {}),
    ("toc", {"permalink": True, "toc_depth": 2}),
)


def markdown_extensions() -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The extensions as Python-Markdown takes them: (names, options by name)."""
    return [name for name, _ in MARKDOWN_EXTENSIONS], {name: dict(opts) for name, opts in MARKDOWN_EXTENSIONS if opts}
