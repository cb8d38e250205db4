"""TeX that could put a link, an id, a class, a style or raw HTML on a published page.

MathJax 3 turns ``\\href{javascript:…}{x}`` into a real ``<a href>``.  What can do
that, by MathJax 3.2's own sources and documentation:

* the ``html`` extension: ``\\href``, ``\\class``, ``\\cssId``, ``\\style`` (MathJax 4
  adds ``\\data`` for data attributes);
* ``\\mmlToken`` in the *base* package: ``\\mmlToken{mi}[href="…",class="…",style="…"]{x}``
  sets those attributes on a token, so it cannot be dropped by configuration;
* ``\\bbox[…]``: its options take free CSS (``position:fixed`` over the page);
* ``\\unicode[font]``: a font family of the writer's choice;
* ``\\require`` and ``\\setOptions``: load other extensions or change the TeX options;
* the ``action`` extension (``\\toggle``, ``\\mathtip``, ``\\texttip``): interactive
  elements and tooltips of the writer's text.

No summary needs any of them, so validation refuses them wherever they appear.  The
site's MathJax configuration (``templates/mathjax.js``) is the second layer: it loads
``ui/safe`` and drops those extensions, so text that got in another way is still inert.
``\\url`` and ``\\html`` are not MathJax commands today; they are refused in case a
future extension defines them.
"""

from __future__ import annotations

import re

UNSAFE_TEX_COMMANDS = (
    "href",
    "url",
    "class",
    "cssId",
    "style",
    "data",
    "html",
    "mmlToken",
    "bbox",
    "unicode",
    "require",
    "setOptions",
    "toggle",
    "mathtip",
    "texttip",
)
# A TeX control word is a backslash and letters: ``\href1`` is ``\href`` then ``1``, while
# ``\\href`` is a line break followed by the letters h, r, e, f.
_UNSAFE = re.compile(r"(?<!\\)(?:\\\\)*\\(" + "|".join(UNSAFE_TEX_COMMANDS) + r")(?![A-Za-z])")
# The same names after any backslash: a quick first look (most text has none), cheaper than the exact one.
_MAYBE_UNSAFE = re.compile(r"\\(?:" + "|".join(UNSAFE_TEX_COMMANDS) + ")")


def unsafe_tex_commands(text: str) -> list[str]:
    """The unsafe control sequences in ``text`` (``\\href``, ``\\class`` …), each once, in order."""
    found: list[str] = []
    if _MAYBE_UNSAFE.search(text) is None:
        return found
    for match in _UNSAFE.finditer(text):
        command = "\\" + match.group(1)
        if command not in found:
            found.append(command)
    return found


def without_unsafe_tex(text: str) -> str:
    """``text`` with the backslash of each unsafe command dropped (``\\href{…}`` → ``href{…}``): the words stay,
    nothing can make a link.  For text from a source, which is kept; a person's text is refused instead."""
    if _MAYBE_UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda m: m.group(0)[: -len(m.group(1)) - 1] + m.group(1), text)
