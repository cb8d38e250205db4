"""Written by `summarizer build` (mkdocs.yml `hooks:`, the first): every page's HTML through the allowlist.

What a page shows comes from outside (notes, summaries, titles, tags, names from config.yaml), and
Markdown passes raw HTML through.  So each page's content, as Python-Markdown rendered it, is
sanitised here before any other hook or the theme sees it: ``page_safety.py`` beside this file is the
allowlist and the sanitiser (ammonia, as ``nh3``), the same one the review desk runs.
"""

from __future__ import annotations

from typing import Any

import page_safety  # beside this file: MkDocs puts a hook's folder on sys.path while it loads it


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return page_safety.clean_html(html)
