"""A site whose notes hold every hostile form, each through every door a note comes in by.

One venue a door: a model's note answer (ICML2026, `summarizer notes`), a notes folder (ICLR2026,
`summarizer import FOLDER`), a JSONL file (NeurIPS2025, `summarizer import FILE`) and the desk's editor
(CVPR2026, its JSON route).  Every note is then approved, the site built and `mkdocs build --strict` run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from test_mkdocs import mkdocs_build

from conftest import FIELDS, VENUES, Project, summary_text
from desk_workspace import desk, session
from hostile_markdown import FORMS, SEARCH_FORM, note_markdown
from summarizer.apps.cli import main
from summarizer.core.paper_text import PaperText
from summarizer.core.records import FetchState, Record
from summarizer.core.store import Store
from summarizer.testing.fake_openai import FakeOpenAI, default_answer, paper_title
from summarizer.testing.fake_requests import is_note_request

ALL_FORMS = {**FORMS, "search-metadata": SEARCH_FORM}
DOORS = {"model": "ICML2026", "folder": "ICLR2026", "jsonl": "NeurIPS2025", "desk": "CVPR2026"}
KEY_ENV = "HOSTILE_SITE_KEY"


def paper_id(form: str) -> str:
    return f"2601.{20000 + list(ALL_FORMS).index(form):05d}"


def paper_title_of(form: str) -> str:
    return f"Hostile {form} note"


@dataclass
class HostileSite:
    project: Project
    root: Path  # outputs/site
    said: dict[str, str] = field(default_factory=dict)  # door -> what its command printed

    def page(self, door: str, form: str) -> Path:
        return self.root / "site" / DOORS[door] / "llm_pretraining" / paper_id(form) / "index.html"

    def record(self, door: str, form: str) -> Record:
        return Store(self.project.settings().outputs_dir).load(DOORS[door], paper_id(form))


def _cli(project: Project, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    err = io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["--config", str(project.config_path), *args])
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    return code, err.getvalue()


def _record(venue: str, form: str) -> Record:
    record = Record(venue=venue, id=paper_id(form), title=paper_title_of(form), arxiv_id=paper_id(form))
    record.abstract = "We study sparse attention for LLM pretraining. It cuts compute by 40%."
    record.summaries.add_version(summary_text(), ["LLM"], "llm_pretraining", "llm")
    record.summaries.approve()
    return record


def _model_door(project: Project) -> str:
    settings, store = project.settings(), Store(project.settings().outputs_dir)
    for n, form in enumerate(ALL_FORMS):
        record = _record(DOORS["model"], form)
        rel = f"text/{n:064x}.json"
        text = PaperText(record.title, record.abstract or "", "Transformers are expensive. " * 30, "It works.")
        (settings.cache_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings.cache_dir / rel).write_text(text.to_json(), "utf-8")
        record.fetch = FetchState(text_path=rel)
        store.save(record)

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        produced = default_answer(body)
        title = paper_title(body) or ""
        form = next((f for f in ALL_FORMS if paper_title_of(f) == title), None)
        if is_note_request(body) and form is not None:
            produced["background"] += "\n\n" + ALL_FORMS[form]
        return produced

    with FakeOpenAI(answer=answer) as server:
        project.write_config(llm={**project.config["llm"], "base_url": server.base_url, "api_key_env": KEY_ENV})
        return _cli(project, "notes", DOORS["model"], env={KEY_ENV: "sk-test"})[1]


def _folder_door(project: Project) -> str:
    store = Store(project.settings().outputs_dir)
    folder = project.root / "notes" / DOORS["folder"] / "llm"
    folder.mkdir(parents=True)
    for form in ALL_FORMS:
        store.save(_record(DOORS["folder"], form))
        header = (
            f"# {paper_title_of(form)}\n\n**arXiv**: [{paper_id(form)}](https://arxiv.org/abs/{paper_id(form)})\n\n"
        )
        note = header + "## 一句话总结\n" + summary_text() + "\n\n" + note_markdown(ALL_FORMS[form])
        (folder / f"{form}.md").write_text(note, "utf-8")
    return _cli(project, "import", str(project.root / "notes"))[1]


def _jsonl_door(project: Project) -> str:
    rows = [
        {
            "venue": DOORS["jsonl"], "id": paper_id(form), "arxiv_id": paper_id(form), "title": paper_title_of(form),
            "summary": summary_text(), "tags": ["LLM"], "field": "llm_pretraining", "status": "approved",
            "notes": {"markdown": note_markdown(ALL_FORMS[form]), "status": "draft"},
        }
        for form in ALL_FORMS
    ]  # fmt: skip
    return _cli(project, "import", str(project.write_jsonl("notes.jsonl", rows)))[1]


def _desk_door(project: Project) -> str:
    store = Store(project.settings().outputs_dir)
    for form in ALL_FORMS:
        record = _record(DOORS["desk"], form)
        record.notes.add_version(note_markdown("模型写的一段。"), "llm", model="fake-model", checked=True)
        store.save(record)
    said = []
    with desk(project, DOORS["desk"]) as running:
        s = session(running.base, running.token)
        for form in ALL_FORMS:
            payload = {
                "ref": f"{DOORS['desk']}/{paper_id(form)}", "action": "edit", "version": 1, "status": "draft",
                "markdown": note_markdown(ALL_FORMS[form]),
            }  # fmt: skip
            body = json.dumps(payload, ensure_ascii=False).encode()
            headers = {"Origin": running.base, "Content-Type": "application/json"}
            answer = s.post(f"{running.base}/api/note-action", data=body, headers=headers, timeout=30)
            said.append(f"{form}: {answer.status_code} {answer.text}")
    return "\n".join(said)


def build_hostile_site(root: Path) -> HostileSite:
    venues = [*(dict(v) for v in VENUES), {"id": "NeurIPS2025", "emoji": "🧠"}, {"id": "CVPR2026", "emoji": "👁"}]
    project = Project(
        root=root,
        config={
            "llm": {"max_attempts": 3, "timeout_s": 5, "backoff_s": 0.005},
            "venues": venues,
            "fields": [dict(f) for f in FIELDS],
            "tags": {"vocabulary": ["LLM", "扩散模型", "推理"]},
        },
    )
    project.config_path.write_text(yaml.safe_dump(project.config, allow_unicode=True), "utf-8")
    site = HostileSite(project, project.settings().outputs_dir / "site")
    for door, enter in (("model", _model_door), ("folder", _folder_door), ("jsonl", _jsonl_door), ("desk", _desk_door)):
        site.said[door] = enter(project)
    for venue in DOORS.values():
        _cli(project, "review", "notes", "approve", venue, "--all")
    code, said = _cli(project, "build")
    assert code == 0, said
    built = mkdocs_build(site.root)
    assert built.returncode == 0, built.stderr
    return site
