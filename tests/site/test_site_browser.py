"""Published pages carry no script, whatever the text: the built site in real headless Chromium.

Records are written with ``Store`` directly, bypassing every validation, to stand for text
that got in some other way.  The site is built (``summarizer build``, ``mkdocs build
--strict``), served on 127.0.0.1 and opened in Chromium with MathJax 3 (see
``tests/browser.py``).  After MathJax has typeset the page, everything a reader could click
in the paper's paragraph is clicked, and the page must hold no ``javascript:``/``data:``
link, no ``on*`` attribute, no id, class or style that came from the text, and must have
opened no dialog; the house math must have rendered.

Two layers keep a page inert: the builder shows math holding unsafe TeX as plain text, and
the site's MathJax configuration (``templates/mathjax.js``) drops the extensions that make
links and styles and loads ``ui/safe``.  ``test_mathjax_configuration_alone_*`` checks the
second layer by itself, on spans written straight into the built HTML, and the last test
shows that the same checks do see the attack under MathJax's default configuration.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_mkdocs import mkdocs_build

from browser import new_page, serve_directory
from conftest import FIELDS, VENUES, Project
from summarizer.apps.cli import main
from summarizer.core.records import Record
from summarizer.core.store import Store

pytestmark = pytest.mark.slow  # real Chromium: `make test` leaves it to `make test-all`

HOUSE_MATH = (
    "本文把复杂度从 \\(O(n^2)\\) 降到 \\(O(n\\log n)\\)，加速 \\(3.2\\times\\)，"
    "损失写作 \\(\\frac{1}{N}\\sum_i \\ell(x_i)\\)，记作 \\(\\text{KV}_{t}\\) 与 $L=\\alpha N^{-\\beta}$。"
)
# Every hostile input: (case id, title, summary).  The title carries the case id so the test
# can find the paper's paragraph on the page.
HOSTILE = [
    ("href-javascript", "\\(\\href{javascript:alert(1)}{\\text{x}}\\)"),
    ("href-data", "\\(\\href{data:text/html,<script>alert(2)</script>}{\\text{y}}\\)"),
    ("href-dollar", "$\\href{javascript:alert(3)}{z}$"),
    ("class", "\\(\\class{md-header}{x}\\)"),
    ("cssId", "\\(\\cssId{evil-id}{x}\\)"),
    ("style", "\\(\\style{position:fixed;top:0;left:0;width:100vw;height:100vh}{x}\\)"),
    ("data", "\\(\\data{data-evil=1}{x}\\)"),
    ("unicode", "\\(\\unicode[evil-font]{x41}\\)"),
    ("require", "\\(\\require{html}\\href{javascript:alert(4)}{x}\\)"),
    ("bbox", "\\(\\bbox[position:fixed;top:0;left:0]{x}\\)"),
    ("mmlToken", '\\(\\mmlToken{mi}[href="javascript:alert(5)",class="evil-class",style="position:fixed;top:0"]{x}\\)'),
    ("img-onerror", '<img src="x" onerror="alert(6)">'),
    ("script", "<script>alert(7)</script>"),
    ("markdown-link", "[点我](javascript:alert(8)) 与 [数据](data:text/html,<script>alert(9)</script>)"),
    ("markdown-image", '![x](javascript:alert(10)) 与 <a href="javascript:alert(11)">a</a>'),
    ("autolink", "<javascript:alert(12)> 与 <https://evil.example/?q=1 onclick=alert(13)>"),
    # The Markdown subset (bold, code) followed by an attribute list: no attribute, whatever the extensions.
    ("attr-list", '**粗**{: onclick="alert(14)"} 与 `x`{: .evil-class} 与 \\(y\\){: #evil-id}'),
]
# Shown exactly as written, except that bold, code and safe math render as such.
SUBSET = {"attr-list"}
HOSTILE_TEX = [(case, text) for case, text in HOSTILE if text.startswith(("\\(", "$"))]
INJECTED = ("md-header", "evil-id", "evil-class", "evil-font")


def _record(venue: str, pid: str, title: str, summary: str) -> Record:
    record = Record(venue=venue, id=pid, title=title, arxiv_id=None, url="https://example.org/" + pid)
    record.summaries.add_version(summary, ["LLM"], "llm_pretraining", "import", created_at="2026-01-01T00:00:00Z")
    record.summaries.approve()
    return record


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML of a site whose one field page holds every hostile input (title and summary)."""
    project = Project(
        root=tmp_path_factory.mktemp("hostile"),
        config={"venues": [dict(v) for v in VENUES], "fields": [dict(f) for f in FIELDS]},
    )
    project.write_config()
    store = Store(project.settings().outputs_dir)
    store.save(_record("ICML2026", "house-math", "House Math", HOUSE_MATH))
    for n, (case, text) in enumerate(HOSTILE):
        summary = f"案例 {case}：{text} 之后是 {HOUSE_MATH}"
        store.save(_record("ICML2026", f"case-{n:02d}", f"Case {case} {text}", summary))
    assert main(["--config", str(project.config_path), "build"]) == 0
    root = project.root / "outputs" / "site"
    result = mkdocs_build(root)
    assert result.returncode == 0, result.stderr[-2000:]
    return root / "site"


# -- what the page must not hold ----------------------------------------------------------

# Every element of the page: bad links, on* attributes, and the ids, classes and styles the hostile
# inputs ask for (a second md-header would come from \class{md-header}).
AUDIT_JS = """() => {
  const out = {badLinks: [], onAttrs: [], injected: []};
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      const value = el.getAttribute(attr) || '';
      if (attr.toLowerCase().startsWith('on')) out.onAttrs.push(el.tagName + ' ' + attr);
      if (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(attr.toLowerCase())
          && /^\\s*(javascript|data|vbscript):/i.test(value)) out.badLinks.push(el.tagName + ' ' + value);
    }
  }
  for (const name of INJECTED) {
    if (document.getElementById(name) || document.getElementsByClassName(name).length > 1)
      out.injected.push(name);
  }
  for (const el of document.querySelectorAll('mjx-container [style], mjx-container [id], mjx-container [class]')) {
    const said = [el.getAttribute('class'), el.getAttribute('id'), el.getAttribute('style')].join(' ');
    if (INJECTED.some(name => said.includes(name)) || /position|url\\(|fixed/i.test(el.getAttribute('style') || ''))
      out.injected.push(el.tagName + ' ' + said);
  }
  return out;
}""".replace("INJECTED", json.dumps(list(INJECTED)))

WAIT_TYPESET_JS = """() => window.MathJax && MathJax.startup && MathJax.startup.promise &&
  document.querySelectorAll('.arithmatex').length > 0 &&
  document.querySelectorAll('.arithmatex').length === document.querySelectorAll('.arithmatex mjx-container').length"""
FIELD_DIR = "ICML2026/llm_pretraining"


def open_typeset(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_function(WAIT_TYPESET_JS, timeout=30_000)
    page.evaluate("() => MathJax.startup.promise")


def click_everything(page: Any, scope: Any) -> None:
    """Click every non-http link, image and piece of math in ``scope``, coming back if one navigates."""
    targets = scope.locator("a:not([href^='http']), mjx-container, img")
    for i in range(targets.count()):
        target = targets.nth(i)
        # Math inside the title's own http link would only follow that link off the test server.
        if target.is_visible() and not target.evaluate("el => !!el.closest(\"a[href^='http']\")"):
            target.click(timeout=5_000, no_wait_after=True)
            if not page.url.startswith("http://127.0.0.1"):
                page.go_back()
    page.wait_for_timeout(300)  # a script a click started has had time to open its dialog


def paper(page: Any, title_start: str) -> Any:
    """A paper's entry on its field page: its term (the title) and its definition (the summary)."""
    term = page.locator("article dt").filter(has_text=re.compile("^" + re.escape(title_start.rstrip(": "))))
    return term.locator("xpath=self::dt | following-sibling::dd[1]")


def assert_inert(page: Any) -> None:
    audit = page.evaluate(AUDIT_JS)
    assert audit == {"badLinks": [], "onAttrs": [], "injected": []}, audit
    assert page.dialogs == []


@pytest.mark.parametrize("case", [c for c, _ in HOSTILE])
def test_hostile_text_on_the_built_page_is_inert(case: str, hostile_site: Path, browser: Any, tmp_path: Path) -> None:
    with serve_directory(hostile_site) as base, new_page(browser) as page:
        open_typeset(page, f"{base}/{FIELD_DIR}/index.html")
        scope = paper(page, f"Case {case} ")
        assert scope.count() == 2  # the title and the summary
        click_everything(page, scope)
        page.screenshot(path=str(tmp_path / f"{case}.png"), full_page=True)
        assert_inert(page)
        # The text shows as written (title and summary), and the house math after it rendered.
        shown = " ".join(" ".join(scope.all_inner_texts()).split())
        if case in SUBSET:  # math, bold and code render; the attribute lists stay text, in title and summary
            for attrs in re.findall(r"\{:[^}]*\}", dict(HOSTILE)[case]):
                assert shown.count(attrs) == 2, shown
        else:
            assert shown.count(dict(HOSTILE)[case]) == 2, shown
        assert scope.locator("mjx-container").count() == 6 + (2 if case in SUBSET else 0)  # \\(y\\) twice
        assert scope.locator("mjx-merror").count() == 0


def test_house_math_renders(hostile_site: Path, browser: Any, tmp_path: Path) -> None:
    with serve_directory(hostile_site) as base, new_page(browser) as page:
        open_typeset(page, f"{base}/{FIELD_DIR}/index.html")
        house = paper(page, "House Math: ")
        assert house.locator("mjx-container").count() == 6
        assert house.locator("mjx-merror").count() == 0
        assert house.locator("mjx-mfrac").count() == 1  # \frac
        assert house.locator("mjx-msub").count() >= 2  # x_i, \text{KV}_{t}
        assert house.locator("mjx-mtext").count() >= 1  # \text{}
        house.last.screenshot(path=str(tmp_path / "house-math.png"))
        assert_inert(page)


def _raw_page(site: Path, name: str, script: str | None = None) -> str:
    """A copy of the built field page with every hostile TeX input as a raw arithmatex span.

    It stands for TeX that reached MathJax despite the builder; with ``script`` the page's
    MathJax configuration is replaced by that one.
    """
    page = (site / FIELD_DIR / "index.html").read_text("utf-8")
    spans = []
    for case, text in HOSTILE_TEX:
        tex = "\\(" + text[1:-1] + "\\)" if text.startswith("$") else text  # as arithmatex writes $…$
        spans.append(f'<p id="raw-{case}"><span class="arithmatex">{html.escape(tex)}</span></p>')
    page = page.replace("</article>", "".join(spans) + "</article>", 1)
    if script is not None:
        page = page.replace('src="../../javascripts/mathjax.js"', f'src="data:text/javascript,{quote(script)}"')
    (site / FIELD_DIR / name).write_text(page, "utf-8")
    return f"{FIELD_DIR}/{name}"


@pytest.mark.parametrize("case", [c for c, _ in HOSTILE_TEX])
def test_mathjax_configuration_alone_makes_unsafe_tex_inert(
    case: str, hostile_site: Path, browser: Any, tmp_path: Path
) -> None:
    raw = _raw_page(hostile_site, "raw-safe.html")
    with serve_directory(hostile_site) as base, new_page(browser) as page:
        open_typeset(page, f"{base}/{raw}")
        scope = page.locator(f"#raw-{case}")
        assert scope.locator("mjx-container").count() == 1
        click_everything(page, scope)
        page.screenshot(path=str(tmp_path / f"raw-{case}.png"), full_page=True)
        assert_inert(page)
        assert scope.locator("a").count() == 0


def test_without_the_safe_configuration_the_checks_see_the_attack(
    hostile_site: Path, browser: Any, tmp_path: Path
) -> None:
    """MathJax's defaults turn \\href{javascript:…} into a link that runs: the checks above can fail."""
    permissive = (
        "window.MathJax={tex:{inlineMath:[['\\\\(','\\\\)']]},"
        "options:{ignoreHtmlClass:'.*|',processHtmlClass:'arithmatex'}};"
    )
    raw = _raw_page(hostile_site, "raw-permissive.html", script=permissive)
    with serve_directory(hostile_site) as base, new_page(browser) as page:
        open_typeset(page, f"{base}/{raw}")
        audit = page.evaluate(AUDIT_JS)
        assert any("javascript:alert(1)" in link for link in audit["badLinks"]), audit
        assert any("evil-id" in item for item in audit["injected"]), audit
        # \\style's fixed overlay would catch a real click (a clickjacking layer): click the link itself.
        page.locator("#raw-href-javascript a").evaluate("link => link.click()")
        page.wait_for_timeout(300)
        assert page.dialogs == ["1"]
