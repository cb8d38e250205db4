"""The browser harness itself: Chromium starts, MathJax is served locally and typesets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browser import new_page, serve_directory

pytestmark = pytest.mark.slow  # real Chromium: `make test` leaves it to `make test-all`

PAGE = """<!doctype html><meta charset="utf-8">
<p id="math">\\(O(n\\log n)\\)</p>
<script src="https://unpkg.com/mathjax@3/es5/tex-mml-chtml.js"></script>
"""


def test_mathjax_typesets_from_the_local_copy(tmp_path: Path, browser: Any) -> None:
    (tmp_path / "index.html").write_text(PAGE, encoding="utf-8")
    with serve_directory(tmp_path) as base, new_page(browser) as page:
        page.goto(f"{base}/index.html")
        page.wait_for_selector("#math mjx-container", timeout=15_000)
        assert page.dialogs == []
