"""The editorial workflow from the command line: run → edit → approve → reject → regen → run → build.

A loopback arXiv and a loopback OpenAI-compatible provider stand in for the
real services; every step is a CLI command, and the assertions are on what an
editor sees: exit codes, messages, record files, and the pages of the
published site and of the preview.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core.records import Record
from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper
from summarizer.testing.fake_openai import FakeOpenAI

VENUE = "ICML2026"
KEY_ENV = "WORKFLOW_PROVIDER_KEY"
KEY = "sk-fake-workflow-0b5e71"

PAPERS = [
    FakePaper("2502.00011", "Sparse Attention for Long Context Pretraining", "We make attention sparse for LLMs."),
    FakePaper("2502.00012", "Chain of Thought Distillation for Small Reasoners", "We distill reasoning traces."),
    FakePaper("2502.00013", "Fewer Steps for Diffusion Image Generation", "We halve diffusion sampling steps."),
    FakePaper("2502.00014", "Data Mixtures for Language Model Pretraining", "We tune pretraining data mixtures."),
    FakePaper("2502.00015", "Verifier Guided Search for Math Reasoning", "A verifier guides tree search."),
]
EDITED, OTHER, REJECTED, DRAFT_1, DRAFT_2 = (p.arxiv_id for p in PAPERS)
TITLES = {p.arxiv_id: p.title for p in PAPERS}
HUMAN_TEXT = summary_text("人工改写的长上下文稀疏注意力")
FEEDBACK = "请突出 KV cache 的显存节省，并删去与基线无关的细节"


pytestmark = [
    pytest.mark.provider_key(key=KEY, env=KEY_ENV),
    pytest.mark.fake_openai(latency=0.01),
    pytest.mark.arxiv_papers(PAPERS),
]


@pytest.fixture
def configured(project: Project, fake_arxiv: FakeArxiv, server: FakeOpenAI) -> Project:
    (project.root / "icml.txt").write_text("".join(p.arxiv_id + "\n" for p in PAPERS), "utf-8")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "list", "path": "icml.txt"}
    project.write_config(
        venues=venues,
        arxiv={"delay_s": 0, "api_url": fake_arxiv.api_url},
        llm={
            "base_url": server.base_url,
            "api_key_env": KEY_ENV,
            "max_attempts": 3,
            "timeout_s": 5,
            "backoff_s": 0.005,
        },
    )
    return project


def record_bytes(project: Project, paper: str) -> bytes:
    return project.store().path(VENUE, paper).read_bytes()


def field_pages(root: Path) -> str:
    """Every field digest page of the venue, concatenated (which field a paper lands in is the model's call)."""
    pages = sorted((root / "docs" / VENUE).glob("*/index.md"))
    assert pages, f"no field pages under {root}"
    return "\n".join(p.read_text("utf-8") for p in pages)


def model_text(record: Record, number: int) -> str:
    version = record.summaries.version(number)
    assert version is not None and version.origin == "llm"
    return version.summary


def test_run_review_regen_run_build(
    configured: Project, cli: RunCli, fake_arxiv: FakeArxiv, server: FakeOpenAI
) -> None:
    store = configured.store()
    outputs = configured.settings().outputs_dir

    # -- run: fetch + summarize + preview ------------------------------------------------
    first = cli("run", VENUE)
    assert first.code == 0, first.err
    assert server.calls == len(PAPERS) and set(server.calls_by_title().values()) == {1}
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.requests)  # the named variable
    preview_yml = outputs / "preview" / "mkdocs.yml"
    assert f"mkdocs serve -f {preview_yml}" in first.err
    assert preview_yml.is_file()
    for paper in PAPERS:
        record = store.load(VENUE, paper.arxiv_id)
        assert record.summaries.status == "draft" and [v.origin for v in record.summaries.versions] == ["llm"]
        assert record.fetch.text_path and paper.title in model_text(record, 1)
    arxiv_requests = len(fake_arxiv.requests)

    # -- edit one with flags --------------------------------------------------------------
    edit = cli("review", "edit", f"{VENUE}/{EDITED}", "--summary", HUMAN_TEXT, "--tags", "大语言模型,推理",
               "--field", "image_generation")  # fmt: skip
    assert edit.code == 0, edit.err
    edited = store.load(VENUE, EDITED)
    assert [v.origin for v in edited.summaries.versions] == ["llm", "human"]
    assert edited.summaries.current is not None and edited.summaries.current.tags == [
        "LLM",
        "推理",
    ]  # normalised like model output
    assert edited.summaries.status == "draft"

    # -- approve two, reject one --------------------------------------------------------------
    approve = cli("review", "approve", f"{VENUE}/{EDITED}", f"{VENUE}/{OTHER}")
    assert approve.code == 0, approve.err
    assert store.load(VENUE, EDITED).summaries.approved_version == 2  # the human text is what gets published
    assert store.load(VENUE, OTHER).summaries.approved_version == 1
    reject = cli("review", "reject", f"{VENUE}/{REJECTED}", "--note", "不是本会议的论文")
    assert reject.code == 0, reject.err
    assert store.load(VENUE, REJECTED).summaries.review_note == "不是本会议的论文"

    # -- regen the edited one with feedback: exactly one call, the feedback and the old text in it ----------
    before = server.calls
    regen = cli("regen", f"{VENUE}/{EDITED}", "--feedback", FEEDBACK)
    assert regen.code == 0, regen.err
    assert server.calls == before + 1
    prompt = "\n".join(m["content"] for m in server.requests[-1].body["messages"])
    assert FEEDBACK in prompt and "审稿意见" in prompt and HUMAN_TEXT in prompt
    assert server.requests[-1].title == TITLES[EDITED]
    regenerated = store.load(VENUE, EDITED)
    assert [v.origin for v in regenerated.summaries.versions] == ["llm", "human", "llm"]
    assert regenerated.summaries.status == "approved" and regenerated.summaries.approved_version == 2  # v3 waits
    assert regenerated.summaries.versions[-1].feedback == FEEDBACK
    assert f"review approve {VENUE}/{EDITED}" in regen.err

    # -- run again: nothing fetched, no model call, no record rewritten -------------------------
    snapshot = {p.arxiv_id: record_bytes(configured, p.arxiv_id) for p in PAPERS}
    calls = server.calls
    again = cli("run", VENUE)
    assert again.code == 0, again.err
    assert server.calls == calls
    assert len(fake_arxiv.requests) == arxiv_requests
    assert {p.arxiv_id: record_bytes(configured, p.arxiv_id) for p in PAPERS} == snapshot
    assert "mkdocs serve -f" in again.err

    # -- build: only approved versions are published ------------------------------------------------
    build = cli("build")
    assert build.code == 0, build.err
    published = field_pages(outputs / "site")
    other = store.load(VENUE, OTHER)
    assert HUMAN_TEXT in published
    assert model_text(other, 1) in published
    assert (outputs / "site" / "docs" / VENUE / "image_generation" / "index.md").read_text("utf-8").count(
        TITLES[EDITED]
    ) == 1  # the edited field was published too
    regenerated_text = model_text(regenerated, 3)
    assert regenerated_text not in published
    for paper in (REJECTED, DRAFT_1, DRAFT_2):
        assert TITLES[paper] not in published
    assert "草稿" not in published and "修订待审" not in published

    # The regenerated summary waits as a pending draft, listed with the drafts.
    drafts = cli("review", "list", VENUE, "--status", "draft")
    assert drafts.code == 0
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in drafts.out.splitlines() if "│" in line]
    rows = {row[0]: row[1] for row in cells if row and row[0]}  # id → status (the id and status never wrap)
    assert set(rows) == {EDITED, DRAFT_1, DRAFT_2}
    assert rows == {EDITED: "approved*", DRAFT_1: "draft", DRAFT_2: "draft"}

    # The preview shows every draft and the pending revision, not the rejected paper.
    preview = field_pages(outputs / "preview")
    assert regenerated_text in preview and HUMAN_TEXT not in preview
    assert model_text(other, 1) in preview
    for paper in (DRAFT_1, DRAFT_2):
        assert model_text(store.load(VENUE, paper), 1) in preview
    assert TITLES[REJECTED] not in preview
    assert preview.count("（📝 草稿）") == 2 and preview.count("（📝 修订待审）") == 1

    # Approving the pending draft publishes it.
    assert cli("review", "approve", f"{VENUE}/{EDITED}").code == 0
    assert cli("build").code == 0
    republished = field_pages(outputs / "site")
    assert regenerated_text in republished and HUMAN_TEXT not in republished


def test_force_and_import_never_replace_approved_or_human_work(
    configured: Project, cli: RunCli, server: FakeOpenAI
) -> None:
    store = configured.store()
    assert cli("run", VENUE).code == 0
    # EDITED: human edit, approved. OTHER: model text, approved. DRAFT_1: human edit, still a draft.
    assert cli("review", "edit", f"{VENUE}/{EDITED}", "--summary", HUMAN_TEXT).code == 0
    assert cli("review", "approve", f"{VENUE}/{EDITED}", f"{VENUE}/{OTHER}").code == 0
    assert cli("review", "edit", f"{VENUE}/{DRAFT_1}", "--summary", summary_text("审稿人重写")).code == 0
    kept = (EDITED, OTHER, DRAFT_1)
    snapshot = {paper: record_bytes(configured, paper) for paper in kept}

    calls = server.calls
    forced = cli("summarize", VENUE, "--force")
    assert forced.code == 0, forced.err
    assert server.calls == calls + 2  # only the two plain model drafts (REJECTED and DRAFT_2, not rejected here)
    assert {paper: record_bytes(configured, paper) for paper in kept} == snapshot
    assert "3 approved or edited (kept)" in forced.err
    assert len(store.load(VENUE, DRAFT_2).summaries.versions) == 1  # the same answer again adds no version

    # A draft line in an import: on an approved paper it waits as a pending draft; the status stays.
    rows = [
        {"venue": VENUE, "arxiv_id": paper, "title": TITLES[paper], "summary": summary_text(f"外部导入{n}"),
         "tags": ["LLM"], "field": "llm_pretraining", "status": "draft"}
        for n, paper in enumerate(kept)
    ]  # fmt: skip
    before = {paper: store.load(VENUE, paper) for paper in kept}
    result = cli("import", str(configured.write_jsonl("outside.jsonl", rows)))
    assert result.code == 0, result.err
    for paper in kept:
        old, new = before[paper], store.load(VENUE, paper)
        assert (
            new.summaries.versions[: len(old.summaries.versions)] == old.summaries.versions
        )  # history kept, nothing overwritten
        assert [v.origin for v in new.summaries.versions[len(old.summaries.versions) :]] == ["import"]
        assert (new.summaries.status, new.summaries.approved_version) == (
            old.summaries.status,
            old.summaries.approved_version,
        )
    published_version = store.load(VENUE, EDITED).summaries.approved
    assert published_version is not None and published_version.summary == HUMAN_TEXT

    # The same import again changes nothing; the published site still shows the approved texts.
    imported = {paper: record_bytes(configured, paper) for paper in kept}
    assert cli("import", str(configured.root / "outside.jsonl")).code == 0
    assert {paper: record_bytes(configured, paper) for paper in kept} == imported
    assert cli("build").code == 0
    published = field_pages(configured.settings().outputs_dir / "site")
    assert HUMAN_TEXT in published and model_text(store.load(VENUE, OTHER), 1) in published
    assert "外部导入" not in published
    json.loads(record_bytes(configured, EDITED))


def test_an_imported_paper_with_only_an_abstract_can_be_regenerated(
    configured: Project, cli: RunCli, server: FakeOpenAI
) -> None:
    """An old site's paper arrives by import with no arXiv id or PDF: regen writes from its abstract."""
    line = {
        "venue": "ICLR2026",
        "title": "Budgeted Search for Verifier Guided Reasoning",
        "summary": summary_text("旧站导入的摘要"),
        "tags": ["推理"],
        "field": "llm_reasoning",
        "status": "approved",
        "abstract": "We search over reasoning traces under a token budget, guided by a verifier.",
    }
    assert cli("import", str(configured.write_jsonl("old.jsonl", [line]))).code == 0
    [record] = configured.store().records("ICLR2026")

    fetched = cli("fetch", "ICLR2026")  # ICLR2026 has no source: its imported records are fetched
    assert fetched.code == 0, fetched.err
    assert configured.store().load("ICLR2026", record.id).fetch.abstract_only

    result = cli("regen", f"ICLR2026/{record.id}", "--feedback", FEEDBACK)
    assert result.code == 0, result.err
    after = configured.store().load("ICLR2026", record.id)
    assert [v.origin for v in after.summaries.versions] == ["import", "llm"] and after.summaries.has_pending_draft
    assert "token budget" in json.dumps(server.requests[-1].body, ensure_ascii=False)  # the abstract was read


def all_record_bytes(project: Project) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((project.root / "outputs" / "records").rglob("*.json"))}


def test_reimporting_an_export_after_a_human_edit_and_a_regen_changes_no_byte(
    configured: Project,
    cli: RunCli,
    server: FakeOpenAI,
) -> None:
    assert cli("run", VENUE).code == 0
    assert cli("review", "edit", f"{VENUE}/{EDITED}", "--summary", HUMAN_TEXT).code == 0
    assert cli("review", "approve", f"{VENUE}/{EDITED}").code == 0
    assert cli("regen", f"{VENUE}/{EDITED}", "--feedback", "更具体").code == 0  # a pending draft
    exported = configured.root / "export.jsonl"
    assert cli("export", VENUE, "-o", str(exported)).code == 0
    before = all_record_bytes(configured)

    result = cli("import", str(exported))
    assert result.code == 0, result.err
    assert "0 created, 0 updated, 5 unchanged" in result.err
    assert all_record_bytes(configured) == before
    drafts = cli("review", "list", VENUE, "--status", "draft")
    assert EDITED in drafts.out and "approved*" in drafts.out

    # A line that asks to publish other text over the approved human edit waits as a pending draft.
    line = json.loads(next(x for x in exported.read_text("utf-8").splitlines() if EDITED in x))
    line.update(summary=summary_text("外部来稿"), status="approved")
    line.pop("pending")
    result = cli("import", str(configured.write_jsonl("outside.jsonl", [line])))
    assert result.code == 0 and "1 waits as a pending draft" in result.err
    record = configured.store().load(VENUE, EDITED)
    assert record.summaries.approved is not None and record.summaries.approved.summary == HUMAN_TEXT
    assert [v.origin for v in record.summaries.versions] == ["llm", "human", "llm", "import"]


def test_run_with_notes_writes_notes_once_the_summaries_are_approved(
    configured: Project, cli: RunCli, server: FakeOpenAI
) -> None:
    first = cli("run", VENUE, "--notes")
    assert first.code == 0, first.err
    assert "5 no approved summary yet" in first.err  # drafts: nothing to write a note from yet
    assert cli("review", "approve", VENUE, "--all").code == 0
    calls = server.calls

    second = cli("run", VENUE, "--notes")

    assert second.code == 0, second.err
    assert "notes ICML2026: 5 written" in second.err and server.calls == calls + 5
    records = configured.store().records(VENUE)
    assert all(r.notes.current is not None and r.notes.status == "draft" for r in records)
