"""Emoji a reader sees: `make browser-deps` installs a colour emoji font, and the site's style sheet names an emoji
font stack (after Material's own), so the fields' 💡 🎨 🔥 are glyphs, not boxes."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from conftest import REPO

SITE_CSS = REPO / "src" / "summarizer" / "site" / "templates" / "stylesheets" / "site.css"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_browser_deps_installs_the_emoji_font() -> None:
    planned = subprocess.run(
        ["make", "-n", "--no-print-directory", "browser-deps"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert planned.returncode == 0, planned.stderr
    assert "apt-get install -y -qq fonts-noto-color-emoji" in planned.stdout


def test_the_site_names_an_emoji_font_stack_after_materials_own() -> None:
    css = SITE_CSS.read_text("utf-8")
    stack = re.search(r"body \{\s*--md-text-font-family:([^;]+);", css)
    assert stack is not None and css.index("body {") < css.index(".site-search-box")
    fonts = [name.strip().strip('"') for name in stack.group(1).split(",")]
    assert fonts[0] == "var(--md-text-font" and "sans-serif" in fonts
    assert {"Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji"} <= set(fonts)
    assert fonts.index("Noto Color Emoji") > fonts.index("sans-serif")  # text keeps its font; emoji fall back
