import json
from typing import Any

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core import locks
from summarizer.core.records import Record

HOSTILE = [
    {
        "venue": "ICML2026",
        "title": "d²Cache: <script>alert('x')</script> & the `*bold*` [expand] _case_",
        "summary": "本文提出 d²Cache，用 \\( O(n\\log n) \\) 的 `缓存` 策略把 <b>KV</b> 误差压到 <3%，"
        "并给出 $\\mathcal{L}=\\sum_i x_i^2$ 的 [expand] 分析 🔥，在 **8×** 加速下保持 μP 的超参迁移。",
        "tags": ["LLMs", " 扩散模型 ", "大语言模型"],
        "field": "llm_pretraining",
        "status": "approved",
        "arxiv_id": "2601.00001",
        "authors": ["Zhang San", "O'Brien"],
        "abstract": "We study $x^2$ & <tags>.",
        "note": "checked by 编辑",
    },
    {
        "venue": "ICML2026",
        "title": "../../etc/passwd",
        "summary": summary_text("路径"),
        "tags": ["推理"],
        "field": "llm_reasoning",
        "url": "https://example.org/paper?id=1&x=<y>",
    },
    {
        "venue": "ICLR2026",
        "title": "Ünïcödé — Title with “quotes” and 中文",
        "summary": summary_text("多语言"),
        "tags": ["LLM"],
        "field": "image_generation",
        "status": "rejected",
        "note": "off topic",
    },
]


def export_lines(cli: RunCli, venue: str) -> list[dict[str, Any]]:
    result = cli("export", venue)
    assert result.code == 0, result.err
    return [json.loads(line) for line in result.out.splitlines()]


def test_import_then_export_round_trips_exactly(cli: RunCli, project: Project) -> None:
    path = project.write_jsonl("in.jsonl", HOSTILE)
    result = cli("import", str(path))
    assert result.code == 0, result.err
    assert "3 created" in result.err

    icml = export_lines(cli, "ICML2026")
    assert [line["id"] for line in icml] == ["2601.00001", "etc-passwd"]  # sorted by id, never a path
    first = icml[0]
    for key in ("title", "summary", "field", "status", "arxiv_id", "authors", "abstract", "note"):
        assert first[key] == HOSTILE[0][key], key
    assert first["tags"] == ["LLM", "扩散模型"]  # normalised: aliases, trimmed, deduplicated
    assert first["url"] == "https://arxiv.org/abs/2601.00001"
    assert icml[1]["status"] == "draft" and icml[1]["url"] == HOSTILE[1]["url"]
    assert set(first) == {
        "venue", "id", "title", "summary", "tags", "field", "status",
        "arxiv_id", "url", "authors", "abstract", "note",
    }  # fmt: skip
    (iclr,) = export_lines(cli, "ICLR2026")
    assert iclr["status"] == "rejected" and iclr["title"] == HOSTILE[2]["title"]

    # Exported lines import back onto the same records and change nothing.
    again = project.write_jsonl("again.jsonl", icml)
    before = {p: p.read_bytes() for p in (project.root / "outputs" / "records").rglob("*.json")}
    assert cli("import", str(again)).code == 0
    after = {p: p.read_bytes() for p in (project.root / "outputs" / "records").rglob("*.json")}
    assert before == after
    assert export_lines(cli, "ICML2026") == icml


def test_an_export_loaded_into_an_empty_project_keeps_where_papers_came_from(cli: RunCli, project: Project) -> None:
    sourced = {**HOSTILE[0], "source_type": "openreview", "source_id": "AbC-12_x", "tier": "oral\u202e\x07"}
    assert cli("import", str(project.write_jsonl("in.jsonl", [sourced, HOSTILE[1]]))).code == 0
    exported = export_lines(cli, "ICML2026")
    assert [line.get("tier") for line in exported] == ["oral", None]
    assert exported[0]["source_type"] == "openreview" and exported[0]["source_id"] == "AbC-12_x"

    for path in (project.root / "outputs" / "records").rglob("*.json"):
        path.unlink()  # a fresh project, loaded from the export
    assert cli("import", str(project.write_jsonl("export.jsonl", exported))).code == 0
    assert export_lines(cli, "ICML2026") == exported
    assert "openreview" in cli("review", "show", "ICML2026/2601.00001").out  # review shows the source


def test_a_fetched_papers_source_is_not_overwritten_by_an_import(cli: RunCli, project: Project) -> None:
    store = project.store()
    record = Record(venue="ICML2026", id="2601.00001", title=HOSTILE[0]["title"], source_type="openreview")
    record.source_id, record.tier = "note-1", "poster"
    store.save(record)
    claimed = {**HOSTILE[0], "source_type": "list\x1b[31m", "source_id": "x" * 201, "tier": "oral"}
    refused = cli("import", str(project.write_jsonl("bad.jsonl", [claimed])))
    assert refused.code != 0 and "source_id" in refused.err and "at most 200" in refused.err
    claimed["source_id"] = "other"
    assert cli("import", str(project.write_jsonl("in.jsonl", [claimed]))).code == 0
    kept = project.store().load("ICML2026", "2601.00001")
    assert (kept.source_type, kept.source_id, kept.tier) == ("openreview", "note-1", "poster")


def test_importing_twice_changes_nothing(cli: RunCli, project: Project) -> None:
    path = project.write_jsonl("in.jsonl", HOSTILE)
    assert cli("import", str(path)).code == 0
    snapshot = {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")}
    result = cli("import", str(path))
    assert result.code == 0 and "0 created, 0 updated, 3 unchanged" in result.err
    assert {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")} == snapshot


def test_import_adds_versions_and_never_demotes_an_approved_record(cli: RunCli, project: Project) -> None:
    row = dict(HOSTILE[0])
    assert cli("import", str(project.write_jsonl("a.jsonl", [row]))).code == 0
    newer = dict(row, summary=summary_text("新版本"), status="draft")
    assert cli("import", str(project.write_jsonl("b.jsonl", [newer]))).code == 0
    record = project.store().load("ICML2026", "2601.00001")
    assert [v.origin for v in record.summaries.versions] == ["import", "import"]
    assert (
        record.summaries.status == "approved"
        and record.summaries.approved_version == 1
        and record.summaries.has_pending_draft
    )
    # The line's status applies only to a paper with no approved or human version.
    rejected = dict(newer, summary=summary_text("第三版"), status="rejected")
    assert cli("import", str(project.write_jsonl("c.jsonl", [rejected]))).code == 0
    record = project.store().load("ICML2026", "2601.00001")
    assert (
        record.summaries.status == "approved"
        and record.summaries.approved_version == 1
        and len(record.summaries.versions) == 3
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "in.jsonl:2: not valid JSON"),
        ('["a list"]', "in.jsonl:2: each line must be a JSON object"),
        (json.dumps({"venue": "ICML2026", "title": "T"}), "in.jsonl:2: summary: missing (required)"),
        (json.dumps(dict(HOSTILE[1], venue="NOPE")), "in.jsonl:2: venue: unknown venue 'NOPE'"),
        (json.dumps(dict(HOSTILE[1], field="cooking")), "in.jsonl:2: field: unknown field 'cooking'"),
        (json.dumps(dict(HOSTILE[1], summary="链接 \\(\\href{javascript:x}{x}\\)")), "summary: unsafe TeX \\href"),
        (json.dumps(dict(HOSTILE[1], summary=" \n ")), "in.jsonl:2: summary: the summary is empty"),
        (json.dumps(dict(HOSTILE[1], summary="长" * 2001)), "in.jsonl:2: summary: 2001 characters (at most 2000)"),
        (json.dumps(dict(HOSTILE[1], title="T" * 501)), "in.jsonl:2: title: 501 characters (at most 500)"),
        (json.dumps(dict(HOSTILE[1], tags=["x" * 41])), "in.jsonl:2: tags: " + "x" * 40 + "… is 41 characters"),
        (json.dumps(dict(HOSTILE[1], tags=list("abcdef"))), "in.jsonl:2: tags: 6 tags (at most 5)"),
        (json.dumps(dict(HOSTILE[1], authors=["A"] * 501)), "in.jsonl:2: authors: 501 names (at most 500)"),
        (json.dumps(dict(HOSTILE[1], note="注" * 2001)), "in.jsonl:2: note: 2001 characters (at most 2000)"),
        (json.dumps(dict(HOSTILE[1], status="published")), "in.jsonl:2: status:"),
        (json.dumps(dict(HOSTILE[1], colour="red")), "in.jsonl:2: colour: unknown key"),
        (json.dumps(dict(HOSTILE[1], id="../x")), "in.jsonl:2: id:"),
        (json.dumps(HOSTILE[0]), "in.jsonl:2: the same paper as line 1"),
    ],
)
def test_bad_line_is_reported_and_nothing_is_applied(cli: RunCli, project: Project, line: str, message: str) -> None:
    path = project.root / "in.jsonl"
    path.write_text(json.dumps(HOSTILE[0], ensure_ascii=False) + "\n" + line + "\n", "utf-8")
    result = cli("import", str(path))
    assert result.code == 2
    assert message in result.err
    assert "nothing from this file was imported" in result.err
    assert not (project.root / "outputs" / "records" / "ICML2026").exists()


def test_export_to_file_and_skips_unsummarised(cli: RunCli, project: Project) -> None:
    from summarizer.core.records import Record

    assert cli("import", str(project.write_jsonl("in.jsonl", HOSTILE[:2]))).code == 0
    project.store().save(Record(venue="ICML2026", id="2601.00009", title="Fetched only"))
    out = project.root / "export.jsonl"
    result = cli("export", "ICML2026", "-o", str(out))
    assert result.code == 0 and "1 without a summary left out" in result.err
    assert len(out.read_text("utf-8").splitlines()) == 2


def test_import_respects_the_venue_lock(cli: RunCli, project: Project) -> None:
    path = project.write_jsonl("in.jsonl", HOSTILE[:1])
    with locks.venue(project.store(), "ICML2026"):
        result = cli("import", str(path))
    assert result.code == 2 and "another summarizer command is working on ICML2026" in result.err
    assert not (project.root / "outputs" / "records" / "ICML2026" / "2601.00001.json").exists()


def test_a_line_without_ids_finds_the_fetched_paper_by_title(cli: RunCli, project: Project) -> None:
    from summarizer.core.records import Record

    project.store().save(
        Record(venue="ICML2026", id="2601.00042", title="Process Reward Models for Math", arxiv_id="2601.00042")
    )
    row = {"venue": "ICML2026", "title": "process reward models  for MATH", "summary": summary_text(),
           "tags": ["LLM"], "field": "llm_reasoning"}  # fmt: skip
    assert cli("import", str(project.write_jsonl("in.jsonl", [row]))).code == 0
    assert [r.id for r in project.store().records("ICML2026")] == ["2601.00042"]


def test_import_tells_what_it_changed_and_takes_a_bom(cli: RunCli, project: Project) -> None:
    row = dict(HOSTILE[1], tags=[])
    path = project.root / "bom.jsonl"
    path.write_text("\ufeff" + json.dumps(row, ensure_ascii=False) + "\n", "utf-8")
    result = cli("import", str(path))
    assert result.code == 0, result.err
    assert "bom.jsonl:1: no tags (adds nothing to the hot topics)" in result.err
    assert "1 created, 0 updated, 0 unchanged" in result.err
    bad = project.write_jsonl("bad.jsonl", [dict(HOSTILE[1], url="javascript:alert(1)")])
    result = cli("import", str(bad))
    assert result.code == 2 and "bad.jsonl:1: url: not an http(s) URL" in result.err
    missing = cli("import", str(project.root / "nofile.jsonl"))
    assert missing.code == 2 and "nofile.jsonl: file not found" in missing.err


def test_an_import_that_fails_half_way_writes_nothing(
    cli: RunCli, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summarizer.core.store import Store

    real = Store.save
    calls = {"n": 0}

    def fail_on_the_third(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return real(*args, **kwargs)

    monkeypatch.setattr(Store, "save", fail_on_the_third)
    path = project.write_jsonl("in.jsonl", HOSTILE)
    result = cli("import", str(path))
    assert result.code == 1 and "No space left on device" in result.err
    records = project.root / "outputs" / "records"
    assert not list(records.rglob("*.json")) and not list(records.rglob("*.tmp"))  # no record, no temp file
