"""Importing notes from a folder of reference-style files: the real reference notes, kept as written and
rendered as the reference renders them; hostile notes made inert; the same folder twice changes nothing."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import markdown
import pytest
import yaml

from conftest import Project, RunCli
from summarizer.core.ids import record_id
from summarizer.core.note_markdown import render
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.review.note_files import split_note

ARXIV = re.compile(r"^\*\*arXiv\*\*: \[(\d{4}\.\d{4,5})\]", re.MULTILINE)
FRONT_ARXIV = re.compile(r'^arxiv: "(\d{4}\.\d{4,5})"', re.MULTILINE)
TITLE = re.compile(r"^# (.+)$", re.MULTILINE)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)


def note_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.md"))


def paper_of(text: str) -> tuple[str | None, str]:
    """(arXiv id, title) as a person reads them off a note file."""
    arxiv = ARXIV.search(text) or FRONT_ARXIV.search(text)
    return (arxiv.group(1) if arxiv else None), TITLE.search(text).group(1)  # type: ignore[union-attr]


def papers_for(project: Project, folder: Path) -> Store:
    """A record for each paper the folder's notes are about (its arXiv id, or its title in other letter case)."""
    venues = sorted({p.relative_to(folder).parts[0] for p in note_files(folder)})
    project.write_config(venues=[{"id": v} for v in venues])
    store = project.store()
    for path in note_files(folder):
        arxiv, title = paper_of(path.read_text("utf-8"))
        venue = path.relative_to(folder).parts[0]
        shown = title if arxiv else title.upper()  # matched by its title, whatever the case
        store.save(Record(venue=venue, id=record_id(arxiv_id=arxiv, title=title), title=shown, arxiv_id=arxiv))
    return store


class _Text(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def reference_extensions(fixtures: Path) -> tuple[list[str], dict[str, dict[str, object]]]:
    """The reference site's Markdown extensions and their options (its own mkdocs.yml)."""
    config = yaml.safe_load((fixtures / "notes" / "reference-mkdocs-excerpt.yml").read_text("utf-8"))
    names: list[str] = []
    options: dict[str, dict[str, object]] = {}
    for item in config["markdown_extensions"]:
        name = next(iter(item)) if isinstance(item, dict) else item
        names.append(name)
        if isinstance(item, dict):
            options[name] = item[name]
    return names, options


def shown_text(page: str, extensions: tuple[list[str], dict[str, dict[str, object]]]) -> str:
    """What a browser shows of a page's Markdown as MkDocs renders it: the front matter is the page's meta."""
    html_text = markdown.markdown(FRONT_MATTER.sub("", page), extensions=extensions[0], extension_configs=extensions[1])
    parser = _Text()
    parser.feed(html_text)
    return " ".join("".join(parser.parts).split())


def test_the_reference_notes_import_losslessly_and_render_as_the_reference_does(
    project: Project, cli: RunCli, real_fixtures: Path
) -> None:
    folder = real_fixtures / "notes"
    store = papers_for(project, folder)
    files = note_files(folder)

    result = cli("import", str(folder))

    assert result.code == 0, result.err
    assert f"{len(files)} notes imported" in result.err
    assert result.err.count("files are this paper") == 2  # the two papers filed twice, both kept
    settings = project.settings()
    extensions = reference_extensions(real_fixtures)
    kept = {
        (v.header or "") + v.markdown: (record, v)
        for venue in store.venues()
        for record in store.records(venue)
        for v in record.notes.versions
    }
    assert len(kept) == len(files)
    for path in files:
        original = path.read_text("utf-8")
        assert original in kept, path  # no note lost, none altered: header and sections as written
        record, version = kept[original]
        assert version.origin == "import" and version.math == "dollar" and record.notes.status == "draft"
        assert shown_text(render(settings, record, version), extensions) == shown_text(original, extensions), path

    before = {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")}
    again = cli("import", str(folder))
    assert again.code == 0 and "0 notes imported" in again.err and f"{len(files)} unchanged" in again.err
    assert {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")} == before


HOSTILE = """\
# A Hostile Note

**会议**: ICML 2026{BREAK}
**arXiv**: [2601.00001](https://arxiv.org/abs/2601.00001){BREAK}

## 一句话总结
看似正常的总结 <script>alert(1)</script>，还有 <b onclick="x()">属性</b> 与 <br> 换行。

## 研究背景与动机
点 [这里](javascript:alert(1)) 或 [那里](https://example.org/ok)，看 ![像素](https://tracker.example/p.png)。
一段带属性的文字 {: onclick="alert(1)" }
公式 $a_{i=1}$ 与 `<code>` 保持原样。

[ref]: javascript:alert(2)
""".replace("{BREAK}", "  ")  # a bold line ends in two spaces (a line break), as the reference writes it


def test_a_hostile_note_is_imported_with_warnings_and_rendered_inert(project: Project, cli: RunCli) -> None:
    store = project.store()
    store.save(Record(venue="ICML2026", id="2601.00001", title="A Hostile Note", arxiv_id="2601.00001"))
    folder = project.root / "notes" / "ICML2026" / "llm"
    folder.mkdir(parents=True)
    (folder / "hostile.md").write_text(HOSTILE, "utf-8")
    (folder / "unsafe_tex.md").write_text(HOSTILE.replace("$a_{i=1}$", "$\\href{javascript:x}{y}$"), "utf-8")
    (folder / "nobody.md").write_text(HOSTILE.replace("2601.00001", "2601.09999").replace("Hostile", "Other"), "utf-8")

    result = cli("import", str(project.root / "notes"))

    assert result.code == 1  # two files could not be imported, each said with its reason
    assert "unsafe_tex.md: note: unsafe TeX \\href" in result.err
    assert "nobody.md: no record of this paper (arXiv 2601.09999)" in result.err
    record = store.load("ICML2026", "2601.00001")
    (version,) = record.notes.versions
    assert (version.header or "") + version.markdown == HOSTILE  # kept as written
    assert "raw HTML (shown as text on the site)" in version.warnings and "an image" in version.warnings
    page = markdown.markdown(
        render(project.settings(), record, version), extensions=["attr_list", "md_in_html", "tables"]
    )
    tags = _Tags()
    tags.feed(page)
    assert {tag for tag, _ in tags.found} <= {"h1", "h2", "p", "strong", "a", "br", "b", "code"}
    links = [[("href", "https://arxiv.org/abs/2601.00001")], [("href", "https://example.org/ok")]]
    assert [attrs for tag, attrs in tags.found if attrs] == links
    shown = shown_text(render(project.settings(), record, version), (["attr_list", "md_in_html"], {}))
    for text in ("<script>alert(1)</script>", '<b onclick="x()">', "[这里](javascript:alert(1))", "$a_{i=1}$"):
        assert text in shown  # what could act shows as text, as it was written


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))


@pytest.mark.parametrize("status", ["approved", "human"])
def test_an_imported_note_never_replaces_an_approved_or_human_one(project: Project, cli: RunCli, status: str) -> None:
    store = project.store()
    record = Record(venue="ICML2026", id="2601.00001", title="A Hostile Note", arxiv_id="2601.00001")
    record.notes.add_version("## 研究背景与动机\n人写的背景。\n", "human" if status == "human" else "llm")
    if status == "approved":
        record.notes.approve()
    store.save(record)
    folder = project.root / "notes" / "ICML2026"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text(HOSTILE, "utf-8")

    assert cli("import", str(project.root / "notes")).code == 0
    notes = store.load("ICML2026", "2601.00001").notes
    assert notes.versions[0].markdown == "## 研究背景与动机\n人写的背景。\n" and len(notes.versions) == 2
    if status == "approved":
        assert notes.approved_version == 1 and notes.has_pending_draft  # the import waits as a pending draft


def test_a_header_with_code_is_cut_before_the_first_real_section() -> None:
    header = "# Title\n\n**会议**: X  \n```\n## inside a fence\n```\n`a\nb`\n\n"
    body = "## 一句话总结\n总结。\n"
    assert split_note(header + body) == (header, body)
