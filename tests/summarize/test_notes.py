"""The notes stage end to end: CLI → real openai client → loopback provider → note versions, cache, batches."""

from __future__ import annotations

import json
import os
import re
import shutil
from typing import Any

import pytest

from conftest import Project, RunCli
from fetched_venue import VENUE, paper_id, title, write_venue
from notes_venue import write_approved_venue
from summarizer.core.note_rules import split_sections
from summarizer.core.records import Record
from summarizer.testing.fake_openai import FakeOpenAI, Fault, default_answer

pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.fake_openai(latency=0.01)]

N = 6  # papers 0, 2, 4 have text; 1, 3, 5 are known from their abstracts only
WITH_TEXT = [paper_id(i) for i in range(0, N, 2)]
ORDER = [
    "研究背景与动机",
    "核心问题",
    "方法详解",
    "实验关键数据",
    "亮点与洞察",
    "局限性 / 可改进方向",
    "与相关工作的对比",
]


def configure(project: Project, server: FakeOpenAI, **llm: object) -> None:
    values = {"base_url": server.base_url, "max_attempts": 3, "backoff_s": 0.005, "batch_poll_s": 0.01}
    project.write_config(llm={**values, **llm})


def noted(project: Project) -> list[Record]:
    return [r for r in project.store().records(VENUE) if r.notes.versions]


def test_a_draft_note_per_paper_with_text_in_the_references_order_with_a_results_table(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_approved_venue(project, N)

    result = cli("notes", VENUE)

    assert result.code == 0, result.err
    assert server.calls == len(WITH_TEXT) and sorted(server.calls_by_title()) == sorted(title(i) for i in (0, 2, 4))
    assert "3 written" in result.err and "3 abstract only (no note)" in result.err
    for record in noted(project):
        note = record.notes.current
        assert note is not None and note.origin == "llm" and record.notes.status == "draft" and note.checked
        assert [s.heading for s in split_sections(note.markdown)] == ORDER
        assert "| 设置 | 结果 |" in note.markdown and "| 40% |" in note.markdown  # the paper's own number
        assert record.title in note.markdown  # the fake writes the title it was given: the right paper
        assert record.usage.llm_calls == 1 and record.usage.cost_usd > 0
        assert (
            record.summaries.status == "approved" and record.summaries.versions[-1].origin == "llm"
        )  # the summary is untouched
    request = server.requests[0].body
    assert request["response_format"]["json_schema"]["name"] == "paper_note" and request["max_tokens"] == 6000
    user = request["messages"][1]["content"]
    assert "<paper>" in user and "Sparse attention matches dense attention" in user  # the conclusion is read too

    again = cli("notes", VENUE)  # nothing to do: no call
    assert again.code == 0 and server.calls == len(WITH_TEXT) and "3 already have a note" in again.err

    for record in noted(project):  # the notes lost, the answer cache kept: no call
        record.notes.versions.clear()
        project.store().save(record)
    cached = cli("notes", VENUE)
    assert cached.code == 0 and server.calls == len(WITH_TEXT) and "3 cached" in cached.err
    assert len(noted(project)) == len(WITH_TEXT)


def test_only_the_named_papers_and_only_with_an_approved_summary(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    store = write_approved_venue(project, N)
    unapproved = store.load(VENUE, paper_id(2))
    unapproved.summaries.status, unapproved.summaries.approved_version = "draft", None
    store.save(unapproved)

    result = cli("notes", VENUE, paper_id(0), paper_id(2))

    assert result.code == 0, result.err
    assert [r.id for r in noted(project)] == [paper_id(0)]
    assert "1 no approved summary yet" in result.err
    assert cli("notes", VENUE, "2601.99999").code == 2  # an id the venue does not have


@pytest.mark.parametrize(
    ("fault", "said"),
    [(Fault.english(), "background: no Chinese"), (Fault.truncated(), "not valid JSON")],
    ids=["english", "truncated"],
)
def test_a_broken_note_is_asked_again_with_what_was_wrong(
    project: Project, server: FakeOpenAI, cli: RunCli, fault: Fault, said: str
) -> None:
    configure(project, server)
    write_approved_venue(project, 2)
    server.fail_first(fault)

    assert cli("notes", VENUE).code == 0
    first, second = server.requests
    assert second.body["messages"][-2] == {"role": "assistant", "content": first.content}
    assert said in second.body["messages"][-1]["content"]
    assert noted(project)[0].usage.llm_calls == 2


def _bad_then_good(change: Any) -> Any:
    seen: set[str] = set()

    def answer(body: dict[str, Any]) -> Any:
        note = default_answer(body)
        key = json.dumps(body["messages"][1]["content"])
        if key not in seen:
            seen.add(key)
            change(note)
        return note

    return answer


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda n: n.update(background=n["background"] + "<img src=x onerror=alert(1)>"), "no HTML"),
        (lambda n: n.update(background="超长的背景。" * 2000), "shorten every section"),
    ],
    ids=["html", "over-the-cap"],
)
def test_html_or_a_note_over_the_cap_is_asked_again(
    project: Project, server: FakeOpenAI, cli: RunCli, change: Any, said: str
) -> None:
    server.answer = _bad_then_good(change)
    configure(project, server)
    write_approved_venue(project, 2)

    assert cli("notes", VENUE).code == 0
    assert server.calls == 2 and said in server.requests[1].body["messages"][-1]["content"]
    assert "<img" not in noted(project)[0].notes.current.markdown  # type: ignore[union-attr]


def test_an_invented_number_is_flagged_with_its_section(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    def invented(body: dict[str, Any]) -> Any:
        note = default_answer(body)
        note["experiments"]["main_results"]["rows"].append(["设置 9", "93.7"])
        note["highlights"][0]["detail"] += " 在 GPT-9 上也成立。"
        return note

    server.answer = invented
    configure(project, server)
    write_approved_venue(project, 1)

    assert cli("notes", VENUE).code == 0
    warnings = noted(project)[0].notes.current.warnings  # type: ignore[union-attr]
    assert "numbers not in the paper text: 93.7 (实验关键数据), GPT-9 (亮点与洞察)" in warnings
    listed = cli("review", "notes", "list", VENUE)
    assert "93.7" in listed.out and "GPT-9" in listed.out


def test_batch_writes_the_same_notes_as_online_at_half_the_cost(
    project: Project, server: FakeOpenAI, cli: RunCli, tmp_path_factory: pytest.TempPathFactory
) -> None:
    configure(project, server)
    write_approved_venue(project, N)
    twin = Project(tmp_path_factory.mktemp("twin"), dict(project.config))
    shutil.copytree(project.root, twin.root, dirs_exist_ok=True)

    assert cli("notes", VENUE).code == 0
    batched = cli("notes", VENUE, "--batch", config=twin.config_path)

    assert batched.code == 0, batched.err
    assert server.calls == len(WITH_TEXT) and len(server.batch.requests) == len(WITH_TEXT)
    assert (twin.root / "outputs" / "state" / f"{VENUE}.notes.json").is_file()
    online, batch = noted(project), noted(twin)
    assert [r.notes.current.markdown for r in online] == [r.notes.current.markdown for r in batch]  # type: ignore[union-attr]
    for a, b in zip(online, batch, strict=True):
        assert (a.usage.prompt_tokens, a.usage.completion_tokens) == (b.usage.prompt_tokens, b.usage.completion_tokens)
        assert b.usage.cost_usd == pytest.approx(a.usage.cost_usd / 2, abs=1e-8)
    status = cli("status", VENUE, "--json", config=twin.config_path).json()
    assert status["notes"] == {"draft": 3, "approved": 0, "rejected": 0} and status["batches"] == []
    assert [b["status"] for b in status["note_batches"]] == ["completed"]
    assert "notes: 3 draft, 0 approved, 0 rejected" in cli("status", VENUE, config=twin.config_path).out


def test_regen_of_an_approved_note_waits_as_a_pending_draft_with_the_feedback(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_approved_venue(project, 1)
    assert cli("notes", VENUE).code == 0
    assert cli("review", "notes", "approve", f"{VENUE}/{paper_id(0)}").code == 0

    result = cli("regen", f"{VENUE}/{paper_id(0)}", "--notes", "--feedback", "实验部分写得太简略")

    assert result.code == 0, result.err
    prompt = server.requests[-1].body["messages"][1]["content"]
    assert "审稿意见：实验部分写得太简略" in prompt and "<previous_note>" in prompt and "研究背景与动机" in prompt
    record = project.store().load(VENUE, paper_id(0))
    assert record.notes.approved_version == 1 and record.notes.current.number == 2  # type: ignore[union-attr]
    assert record.notes.current.feedback == "实验部分写得太简略"  # type: ignore[union-attr]
    assert "stays published" in result.err
    assert "approved*" in cli("review", "notes", "list", VENUE, "--status", "draft").out


def test_dry_run_prints_papers_tokens_and_cost_and_spends_nothing(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_venue(project, N)
    summaries = cli("summarize", VENUE, "--dry-run")
    write_approved_venue(project, N)
    before = {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")}

    notes = cli("notes", VENUE, "--dry-run")

    assert notes.code == 0 and summaries.code == 0, notes.err + summaries.err
    assert server.calls == 0 and {p: p.read_bytes() for p in (project.root / "outputs").rglob("*.json")} == before
    for i in (0, 2, 4):
        assert paper_id(i) in notes.out
    assert "3 model calls" in notes.out and "online" in notes.out and "with --batch" in notes.out
    assert "3 abstract only (no note)" in notes.out and "nothing was sent" in notes.out
    assert "gpt-4o-mini" in notes.out and "$0.15/$0.6 per million" in notes.out
    assert f"{N} model calls" in summaries.out  # every paper, those known from their abstracts too
    note_cost, summary_cost = _online_usd(notes.out), _online_usd(summaries.out)
    assert note_cost > summary_cost > 0  # a note reads more and writes more than a summary


def _online_usd(out: str) -> float:
    return float(re.search(r"~\$([0-9.]+) online", out).group(1))  # type: ignore[union-attr]


def test_the_header_comes_from_the_record_and_the_code_link_from_the_papers_own_text(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    project.write_config(notes={"ratings": True})
    store = write_approved_venue(project, 1)
    record = store.load(VENUE, paper_id(0))
    text_path = project.settings().cache_dir / str(record.fetch.text_path)
    text = json.loads(text_path.read_text("utf-8"))
    text["conclusion"] += " Code is available at https://github.com/example-org/sparse-attn."
    text_path.write_text(json.dumps(text), "utf-8")

    assert cli("notes", VENUE).code == 0
    shown = cli("review", "notes", "show", f"{VENUE}/{paper_id(0)}").out

    assert "ratings" in server.requests[0].body["response_format"]["json_schema"]["schema"]["properties"]
    for line in (
        f"# {title(0)}",
        "**会议**: ICML2026",
        f"**arXiv**: [{paper_id(0)}](https://arxiv.org/abs/{paper_id(0)})",
        "**代码**: [https://github.com/example-org/sparse-attn](https://github.com/example-org/sparse-attn)",
        "**领域**: 预训练",
        "**关键词**: LLM",
        "## 一句话总结",
        "## 评分",
        "- 新颖性: ⭐⭐⭐⭐",
    ):
        assert line in shown, line
    summary = store.load(VENUE, paper_id(0)).summaries.approved.summary  # type: ignore[union-attr]
    assert summary.split("\\(")[0] in shown  # the approved summary, copied


def test_a_provider_without_json_schema_gets_the_notes_schema_in_the_prompt(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server, structured_output="json_object")
    write_approved_venue(project, 2)

    assert cli("notes", VENUE).code == 0
    (request,) = server.requests
    assert request.response_format == "json_object"
    system = request.body["messages"][0]["content"]
    assert "JSON Schema" in system and '"key_designs"' in system and "研究背景与动机" in system
    assert len(noted(project)) == 1


def test_a_killed_runs_half_written_cache_entries_are_removed_by_the_next_run(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    configure(project, server)
    write_approved_venue(project, 2)
    folder = project.root / "cache" / "llm" / "ab"
    folder.mkdir(parents=True)
    stale = folder / ".ab12cd34.json.k3j4h5g6.tmp"  # as the atomic write names it
    in_flight = folder / ".ab98fe76.json.q1w2e3r4.tmp"  # another venue's command, writing now
    someone_elses = folder / ".notes.tmp"
    for path in (stale, in_flight, someone_elses):
        path.write_text("{half", "utf-8")
    an_hour_and_more = stale.stat().st_mtime - 3700
    os.utime(stale, (an_hour_and_more, an_hour_and_more))
    os.utime(someone_elses, (an_hour_and_more, an_hour_and_more))

    assert cli("notes", VENUE).code == 0

    assert not stale.exists()
    assert in_flight.exists() and someone_elses.exists()
