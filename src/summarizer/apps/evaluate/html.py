"""The pieces every report page is made of: the page, its tables, and escaping for HTML and Markdown.

Every text from outside (titles, summaries, abstracts, labels, file names) goes through ``e`` on an
HTML page and ``md`` in a Markdown file.  The page loads nothing and runs no script: its
Content-Security-Policy allows only its own inline styles.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

STYLE = """
body { font: 14px/1.5 system-ui, "Noto Sans CJK SC", sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; }
.note { color: #555; }
.side { width: 50%; }
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'"


def e(text: object) -> str:
    return escape(str(text), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#<>])")


def md(text: object) -> str:
    """Outside text in a Markdown table cell: one line, every character Markdown or HTML would act on escaped."""
    one_line = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", one_line.replace("&", "&amp;"))


def page(title: str, body: Sequence[str]) -> str:
    return (
        "<!doctype html>\n"
        '<html lang="zh-CN"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table; ``head`` and the cells are HTML already (escape outside text with ``e`` first)."""
    out = ["<table><thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    out += [
        "<tr>" + "".join(cell if cell.startswith("<td") else f"<td>{cell}</td>" for cell in row) + "</tr>"
        for row in rows
    ]
    return "\n".join(out) + "</tbody></table>"


def metric(name: str, value: float, shown: str) -> str:
    """A table cell holding one figure: shown as text, its exact value in ``data-value`` for a test to read."""
    return f'<td class="n" data-metric="{e(name)}" data-value="{value:.10g}">{e(shown)}</td>'


def md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table; the cells are Markdown already (escape outside text with ``md`` first)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def pct(value: float) -> str:
    return f"{value:.1%}"
