"""The hostile forms through each door, in real Chromium: on the built site and in the desk's note view,
no dialog opens, no element is outside the allowlist, no ``on*`` attribute, no ``javascript:`` URL."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hostile_site import ALL_FORMS, DOORS, HostileSite, build_hostile_site, paper_id

from browser import new_page, serve_directory
from desk_workspace import desk
from hostile_markdown import search_part
from summarizer.core.page_safety import ATTRIBUTES, TAGS

pytestmark = pytest.mark.slow

# What the page holds: every element of the scope outside the allowlist, every on* attribute, every URL
# whose scheme is not http(s), mailto or none — as Chromium parsed the page.
AUDIT_JS = """([scope, tags, attributes]) => {
  const found = {outside: [], onAttrs: [], badLinks: []};
  for (const el of document.querySelectorAll(scope.split(",").map(s => s + " *").join(","))) {
    const tag = el.tagName.toLowerCase();
    // MathJax's own output, typeset from the TeX; the desk's own mark of a flagged number
    if (tag.startsWith("mjx-") || el.closest("mjx-container") || el.matches("mark.flagged")) continue;
    if (!tags.includes(tag)) found.outside.push(tag);
    for (const a of el.attributes) {
      if (a.name.startsWith("on")) found.onAttrs.push(tag + " " + a.name);
      const allowed = (attributes[tag] || []).concat(attributes["*"], tag === "input" ? ["type"] : []);
      if (!allowed.includes(a.name)) found.outside.push(tag + " " + a.name);
    }
    for (const name of ["href", "src"]) {
      const url = el.getAttribute(name);
      if (url !== null && !["http:", "https:", "mailto:"].includes(new URL(url, location.href).protocol)) {
        found.badLinks.push(tag + " " + url);
      }
    }
  }
  return found;
}"""


SEARCH_PART_OFF = "() => document.querySelector('[data-pagefind-body] > div.search-terms:first-child').remove()"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> HostileSite:
    return build_hostile_site(tmp_path_factory.mktemp("hostile-browser"))


def _allowlist() -> list[Any]:
    return [sorted(TAGS), {tag: sorted(names) for tag, names in ATTRIBUTES.items()}]


def _audit(page: Any, scope: str) -> dict[str, list[str]]:
    page.wait_for_timeout(200)  # an onload or onerror has had its chance to run
    links = page.locator(f"{scope} a")
    for i in range(links.count()):
        href = links.nth(i).get_attribute("href") or ""
        if links.nth(i).is_visible() and not href.startswith(("http", "#", ".", "/")):
            links.nth(i).click(timeout=5_000, no_wait_after=True)
    result: dict[str, list[str]] = page.evaluate(AUDIT_JS, [scope, *_allowlist()])
    return result


@pytest.mark.parametrize("door", list(DOORS))
def test_each_form_is_inert_in_chromium_on_the_built_site(hostile: HostileSite, browser: Any, door: str) -> None:
    with serve_directory(hostile.root / "site") as base, new_page(browser) as page:
        for form in ALL_FORMS:
            page.goto(f"{base}/{DOORS[door]}/llm_pretraining/{paper_id(form)}/")
            # The search hook's own part (test_page_safety.py checks its every byte) is not the note's.
            assert search_part(hostile.page(door, form).read_text("utf-8"))[1], (door, form)
            page.evaluate(SEARCH_PART_OFF)
            assert _audit(page, "article") == {"outside": [], "onAttrs": [], "badLinks": []}, (door, form)
            assert page.dialogs == [], (door, form)


def test_each_form_is_inert_in_the_desks_note_view_and_its_removal_said(hostile: HostileSite, browser: Any) -> None:
    with desk(hostile.project, *DOORS.values()) as running, new_page(browser) as page:
        page.goto(f"{running.base}/?token={running.token}")
        for door, venue in DOORS.items():
            for form in ALL_FORMS:
                page.goto(f"{running.base}/note/{venue}/{paper_id(form)}")
                found = _audit(page, "#note .note-top, #note .note-text")
                assert found == {"outside": [], "onAttrs": [], "badLinks": []}, (door, form)
                assert page.dialogs == [], (door, form)
                if form == "svg-slash" and door != "model":
                    warnings = page.locator("#note-warnings").inner_text()
                    assert "removed: an <svg> element" in warnings, json.dumps([door, warnings], ensure_ascii=False)
