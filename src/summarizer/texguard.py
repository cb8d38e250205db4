"""TeX that could put a link, an id, a class, a style or raw HTML on a published page.

MathJax 3 turns ``\\href{javascript:…}{x}`` into a real ``<a href>``, and the
``html`` and ``bbox`` extensions add ids, classes, styles and data attributes.
No summary needs them, so validation refuses them wherever they appear (the
site's MathJax configuration also drops those packages and loads ``ui/safe``:
two layers, so text that got in another way is still inert).
"""

from __future__ import annotations

import re

# Control sequences that make links, attributes, styles, raw HTML, or load more TeX packages.
UNSAFE_TEX_COMMANDS = (
    "href",
    "url",
    "class",
    "cssId",
    "style",
    "data",
    "html",
    "require",
    "unicode",
    "bbox",
)
_UNSAFE = re.compile(r"\\(" + "|".join(UNSAFE_TEX_COMMANDS) + r")(?![A-Za-z])")


def unsafe_tex_commands(text: str) -> list[str]:
    """The unsafe control sequences in ``text`` (``\\href``, ``\\class`` …), each once, in order."""
    found: list[str] = []
    for match in _UNSAFE.finditer(text):
        command = "\\" + match.group(1)
        if command not in found:
            found.append(command)
    return found
