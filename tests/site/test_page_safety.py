"""Safe pages by construction: whatever a note holds, through whatever door it came, the built page holds
only what the allowlist allows (``core.page_safety``), and so does the desk's view of it.

The built site and its pages are read here as HTML; ``test_page_safety_browser.py`` opens them in Chromium.
"""

from __future__ import annotations

from pathlib import Path

import markdown
import pytest
from hostile_site import ALL_FORMS, DOORS, HostileSite, build_hostile_site
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostile_markdown import FAKE_TITLE, FORMS, article, lead_words, markup_problems, search_part
from summarizer.core.markdown_dialect import markdown_extensions
from summarizer.core.page_safety import clean_html, removed_markup


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> HostileSite:
    return build_hostile_site(tmp_path_factory.mktemp("hostile"))


@pytest.mark.parametrize("form", list(ALL_FORMS))
@pytest.mark.parametrize("door", list(DOORS))
def test_each_hostile_form_through_each_door_is_inert_on_its_page(hostile: HostileSite, door: str, form: str) -> None:
    record = hostile.record(door, form)
    page = hostile.page(door, form)
    assert page.is_file(), hostile.said[door]
    html = page.read_text("utf-8")
    content = article(html)
    assert markup_problems(content) == [], (door, form)
    assert "onerror=" not in html.replace("onerror=alert", "") and 'href="javascript' not in html.lower()
    assert FAKE_TITLE not in html.split("<article", 1)[0]  # not the page's title, nor its search metadata
    if record.notes.current is not None and record.notes.status == "approved":
        assert lead_words(ALL_FORMS[form]) in content, (door, form)  # the note is on the page, made inert
    else:
        assert hostile.said[door].strip(), (door, form)  # refused: and said why


def test_every_door_let_the_forms_in_or_said_why(hostile: HostileSite) -> None:
    for door in DOORS:
        shown = [form for form in ALL_FORMS if hostile.record(door, form).notes.status == "approved"]
        refused = [form for form in ALL_FORMS if form not in shown]
        for form in refused:
            assert form in hostile.said[door] or hostile.record(door, form).id in hostile.said[door], (door, form)
    # The forms that read as harmless to a pattern over the Markdown get in by every door but the model's.
    for door in ("folder", "jsonl", "desk"):
        assert hostile.record(door, "svg-slash").notes.status == "approved", hostile.said[door]


def test_search_metadata_comes_only_from_the_tool(hostile: HostileSite) -> None:
    for door in DOORS:
        html = hostile.page(door, "search-metadata").read_text("utf-8")
        assert "data-pagefind-meta" not in article(html) and "data-pagefind-filter" not in article(html), door
        assert "data-pagefind-weight" not in article(html) and "search-terms" not in article(html), door
        _, filters = search_part(html)  # the tool's own: the page's venue and field, nothing the note said
        assert [f.split(":", 1)[0] for f in filters] == ["venue", "field"] and "EVIL" not in str(filters), door


def _rendered(text: str) -> str:
    names, options = markdown_extensions()
    return markdown.markdown(text, extensions=names, extension_configs=options)


@pytest.mark.parametrize("form", list(FORMS))
def test_each_form_rendered_and_sanitised_holds_only_the_allowlist(form: str) -> None:
    raw = _rendered(FORMS[form])
    assert markup_problems(raw) != []  # the form does reach the HTML as markup: what the sanitiser is for
    assert markup_problems(clean_html(raw)) == []
    assert removed_markup(raw) != []  # and the reviewer is told


_PIECES = st.sampled_from(
    [
        "<",
        ">",
        "/",
        "!",
        "-",
        "--",
        "<!--",
        "-->",
        "--!>",
        "`",
        "```",
        "~~~",
        "\\",
        "\\\\",
        "(",
        ")",
        "[",
        "]",
        "\n",
        "\n\n",
        "    ",
        "\t",
        '"',
        "'",
        "=",
        "{:",
        "}",
        "$",
        "\\(",
        "\\)",
        "$$",
        "&",
        "&#x6a;",
        "&lt;",
        "svg",
        "img",
        "a",
        "script",
        "iframe",
        "style",
        "math",
        "div",
        "span",
        "input",
        "details",
        "object",
        " src=x",
        " onerror=alert(1)",
        "onload=alert(1)",
        " href=",
        "javascript:alert(1)",
        "java\tscript:",
        "data:text/html,x",
        " style=position:fixed",
        " data-pagefind-meta=title:x",
        " id=x",
        " class=md-x",
        "markdown=1",
        "!!! note",
        "??? x",
        "==",
        "{++",
        "++}",
        "文字",
        "x",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, min_size=1, max_size=40).map("".join))
def test_generated_hostile_markdown_renders_to_the_allowlist_only(text: str) -> None:
    assert markup_problems(clean_html(_rendered(text))) == []


def test_a_page_sanitised_twice_is_the_page_sanitised_once(hostile: HostileSite) -> None:
    for door in DOORS:
        content = article(hostile.page(door, "svg-slash").read_text("utf-8"))
        assert clean_html(content) == content


def test_the_built_site_runs_the_sanitiser_it_ships(hostile: HostileSite) -> None:
    shipped = (hostile.root / "hooks" / "page_safety.py").read_text("utf-8")
    assert shipped == Path(__import__("summarizer.core.page_safety").core.page_safety.__file__).read_text("utf-8")
    assert "hooks/sanitize.py" in (hostile.root / "mkdocs.yml").read_text("utf-8").split("hooks:", 1)[1][:60]
