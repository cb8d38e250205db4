"""Issue 11, the store's part: records, files and the terminal survive an accident or an outsider.

Each test drives the real CLI and looks at what a user sees: the exit code, the one line, the files.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Project, RunCli, summary_text
from summarizer.core.records import Record
from summarizer.core.store import Store
from summarizer.testing.fake_openai import FakeOpenAI, Fault, default_answer

VENUE = "ICML2026"
ROWS = [
    {"venue": VENUE, "title": f"Paper {n}", "arxiv_id": f"2601.0000{n}", "summary": summary_text(f"主题{n}"),
     "tags": ["LLM"], "field": "llm_pretraining"}
    for n in range(1, 5)
]  # fmt: skip
pytestmark = pytest.mark.import_rows(ROWS)


def record_path(project: Project, pid: str, venue: str = VENUE) -> Path:
    return project.root / "outputs" / "records" / venue / f"{pid}.json"


def snapshot(project: Project) -> dict[str, bytes]:
    root = project.root / "outputs" / "records"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.json"))}


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err, err
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, err
    return errors[0]


def rewrite(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text("utf-8"))
    data.update(changes)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), "utf-8")


# -- obs. 2: a record's path is its identity ------------------------------------------------


def test_a_record_whose_id_disagrees_with_its_path_is_refused(cli: RunCli, imported: Project) -> None:
    assert cli("review", "edit", f"{VENUE}/2601.00001", "--summary", summary_text("人工修改")).code == 0
    assert cli("review", "approve", f"{VENUE}/2601.00001").code == 0
    rewrite(record_path(imported, "2601.00002"), id="2601.00001")
    before = snapshot(imported)

    result = cli("review", "approve", f"{VENUE}/2601.00002")

    assert result.code == 1
    line = one_error_line(result.err)
    assert "2601.00002.json" in line and "2601.00001" in line
    assert snapshot(imported) == before  # the other paper's approved human edit is untouched


def test_a_hostile_venue_inside_a_record_never_writes_outside(cli: RunCli, imported: Project) -> None:
    rewrite(record_path(imported, "2601.00003"), venue="../../escaped")
    hostile = record_path(imported, "2601.00003").read_bytes()

    result = cli("review", "approve", VENUE, "--all")

    assert result.code == 1, result.err
    assert "2601.00003.json" in result.err
    assert not (imported.root / "escaped").exists()
    assert list(imported.root.parent.glob("escaped*")) == []
    assert record_path(imported, "2601.00003").read_bytes() == hostile
    approved = [r.id for r in imported.store().records(VENUE) if r.summaries.status == "approved"]
    assert approved == ["2601.00001", "2601.00002", "2601.00004"]


def test_the_store_refuses_paths_outside_the_venue_folder(tmp_path: Path) -> None:
    from summarizer.core.errors import UsageError

    store = Store(tmp_path / "outputs")
    for venue in ("../x", "..", "a/b", "", ".hidden"):
        record = Record(venue=venue, id="2601.00001", title="t")
        with pytest.raises(UsageError):
            store.save(record)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_a_symlinked_record_pointing_outside_is_not_written(cli: RunCli, imported: Project) -> None:
    outside = imported.root / "outside.json"
    path = record_path(imported, "2601.00004")
    shutil.move(path, outside)
    path.symlink_to(outside)
    before = outside.read_bytes()

    result = cli("review", "approve", f"{VENUE}/2601.00004")

    assert result.code != 0
    assert "2601.00004.json" in one_error_line(result.err)
    assert outside.read_bytes() == before


# -- obs. 9: a broken file blocks only itself ----------------------------------------------------


def test_a_truncated_record_blocks_only_itself(cli: RunCli, imported: Project) -> None:
    broken = record_path(imported, "2601.00002")
    broken.write_bytes(broken.read_bytes()[:120])
    corrupt_bytes = broken.read_bytes()

    status = cli("status", VENUE, "--json")
    assert status.code == 1
    data = status.json()
    assert data["corrupt"] == [str(broken)] and data["papers"] == 3
    assert "2601.00002.json" in status.err  # the one-line warning

    listed = cli("review", "list", VENUE)
    assert listed.code == 1 and "2601.00001" in listed.out + listed.err and "2601.00003" in listed.out + listed.err

    exported = cli("export", VENUE)
    assert exported.code == 1 and len(exported.out.splitlines()) == 3

    approved = cli("review", "approve", VENUE, "--all")
    assert approved.code == 1
    assert [r.summaries.status for r in imported.store().records(VENUE)] == ["approved"] * 3

    built = cli("build")
    assert built.code == 1
    assert "Paper 1" in (
        imported.root / "outputs" / "site" / "docs" / VENUE / "llm_pretraining" / "index.md"
    ).read_text("utf-8")

    table = cli("status")
    assert table.code == 1 and "corrupt" in table.out and "2601.00002.json" in table.out

    for result in (status, listed, exported, approved, built, table):
        assert "Traceback" not in result.err
        assert sum("2601.00002.json" in line for line in result.err.splitlines()) == 1, result.err
    assert broken.read_bytes() == corrupt_bytes  # never overwritten


def test_a_corrupt_record_is_skipped_by_summarize(
    cli: RunCli, imported: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        imported.write_config(llm={"base_url": server.base_url, "max_attempts": 1, "timeout_s": 5, "backoff_s": 0.005})
        broken = record_path(imported, "2601.00001")
        broken.write_text("{", "utf-8")
        result = cli("summarize", VENUE)
    assert result.code == 1
    assert "2601.00001.json" in result.err and "Traceback" not in result.err
    assert broken.read_text("utf-8") == "{"


# -- obs. 4: every OS error is one line -----------------------------------------------------------


def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a read-only outputs/ does to a write (root ignores permission bits, so it is simulated)."""

    def refuse(src: str, dst: str) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), dst)

    monkeypatch.setattr(os, "replace", refuse)


@pytest.mark.parametrize(
    "args",
    [
        ("review", "approve", f"{VENUE}/2601.00001"),
        ("review", "reject", f"{VENUE}/2601.00001", "--note", "不是本会议的论文"),
        ("review", "edit", f"{VENUE}/2601.00001", "--summary", summary_text("编辑")),
        ("review", "approve", VENUE, "--all"),
    ],
    ids=["approve", "reject", "edit", "approve-all"],
)
def test_a_read_only_outputs_folder_is_one_line(
    cli: RunCli, imported: Project, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    before = snapshot(imported)
    read_only(monkeypatch)
    result = cli(*args)
    assert result.code == 1
    line = one_error_line(result.err)
    assert "Read-only file system" in line and str(imported.root / "outputs" / "records" / VENUE) in line
    monkeypatch.undo()
    assert snapshot(imported) == before  # nothing half written
    assert [p.name for p in (imported.root / "outputs" / "records" / VENUE).iterdir() if p.name.endswith(".tmp")] == []


def test_a_file_where_a_folder_should_be_is_one_line(cli: RunCli, imported: Project) -> None:
    site = imported.root / "outputs" / "site"
    shutil.rmtree(site, ignore_errors=True)
    site.write_text("not a folder", "utf-8")
    result = cli("build")
    assert result.code == 1
    assert f"{site}: Not a directory (a file is where a folder should be" in one_error_line(result.err)

    blocker = imported.root / "blocker"
    blocker.write_text("x", "utf-8")
    result = cli("export", VENUE, "-o", str(blocker / "out.jsonl"))
    assert result.code == 1
    assert f"{blocker}: " in one_error_line(result.err)


def test_import_into_an_unwritable_records_folder_is_one_line(cli: RunCli, project: Project) -> None:
    records = project.root / "outputs" / "records"
    records.parent.mkdir(parents=True)
    records.write_text("not a folder", "utf-8")
    result = cli("import", str(project.write_jsonl("in.jsonl", ROWS)))
    assert result.code == 1
    assert f"{records}: " in one_error_line(result.err)


def test_an_unreadable_record_path_is_one_line(cli: RunCli, imported: Project) -> None:
    path = record_path(imported, "2601.00001")
    path.unlink()
    path.mkdir()
    result = cli("review", "show", f"{VENUE}/2601.00001")
    assert result.code == 1
    assert str(path) in one_error_line(result.err)


# -- a paid answer is never lost -------------------------------------------------------------------


def configure(project: Project, server: FakeOpenAI, **values: object) -> None:
    project.write_config(
        llm={"base_url": server.base_url, "max_attempts": 1, "timeout_s": 5, "backoff_s": 0.005, **values}
    )


def abstract_only_venue(project: Project, n: int, title: str = "Sparse Attention {i}") -> None:
    store = project.store()
    for i in range(n):
        record = Record(venue=VENUE, id=f"2601.{i:05d}", title=title.format(i=i), arxiv_id=f"2601.{i:05d}",
                        abstract=f"We study sparse attention for LLM pretraining (paper {i}).")  # fmt: skip
        record.fetch.abstract_only = True
        store.save(record)


@pytest.mark.parametrize("force", [False, True], ids=["summarize", "summarize-force"])
def test_an_unwritable_answer_cache_loses_no_paid_answer(
    cli: RunCli, project: Project, server: FakeOpenAI, force: bool
) -> None:
    configure(project, server)
    abstract_only_venue(project, 5)
    llm_cache = project.root / "cache" / "llm"
    llm_cache.parent.mkdir(parents=True)
    llm_cache.write_text("not a folder", "utf-8")

    result = cli("summarize", VENUE, *(["--force"] if force else []))

    assert result.code == 1
    assert "Traceback" not in result.err
    cache_lines = [line for line in result.err.splitlines() if str(llm_cache) in line]
    assert len(cache_lines) == 1, result.err
    assert server.calls == 5
    records = project.store().records(VENUE)
    assert all(len(r.summaries.versions) == 1 and r.usage.llm_calls == 1 and r.usage.prompt_tokens > 0 for r in records)

    llm_cache.unlink()
    again = cli("summarize", VENUE)
    assert again.code == 0, again.err
    assert server.calls == 5  # no call paid twice


def test_an_answer_cache_that_cannot_be_read_stops_the_run_before_paying(
    cli: RunCli, project: Project, server: FakeOpenAI
) -> None:
    configure(project, server)
    abstract_only_venue(project, 2)
    assert cli("summarize", VENUE).code == 0
    entry = next((project.root / "cache" / "llm").rglob("*.json"))
    entry.unlink()
    entry.mkdir()  # a folder where a cached answer should be: read, it is an error, not a miss
    abstract_only_venue(project, 2)  # the same papers again, without their summaries

    result = cli("summarize", VENUE)

    assert result.code == 1
    assert f"error: {entry}: Is a directory" in result.err and "Traceback" not in result.err
    assert server.calls == 2  # only the first run's


def test_an_unwritable_record_still_keeps_the_answer_in_the_cache(
    cli: RunCli, project: Project, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(project, server, max_concurrency=1)
    abstract_only_venue(project, 1)
    path = record_path(project, "2601.00000")
    real_replace = os.replace

    def refuse_records(src: str, dst: str) -> None:
        if str(dst).startswith(str(path.parent)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse_records)
    result = cli("summarize", VENUE)
    assert result.code == 1
    assert "No space left on device" in one_error_line(result.err)
    monkeypatch.undo()

    again = cli("summarize", VENUE)
    assert again.code == 0, again.err
    assert server.calls == 1  # the answer came back from the cache
    assert len(project.store().load(VENUE, "2601.00000").summaries.versions) == 1


# -- obs. 5: terminal escapes ---------------------------------------------------------------------

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202eevil\x00"


def test_stored_control_characters_are_escaped_on_the_terminal(cli: RunCli, project: Project) -> None:
    store = project.store()
    record = Record(venue=VENUE, id="2601.00001", title=f"Title {HOSTILE}")
    record.fail("summarize", f"reason {HOSTILE}")
    store.save(record)

    result = cli("status", VENUE)

    for text in (result.out, result.err):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text and "\x00" not in text
    assert "\\x1b]0;pwned" in result.out

    as_json = cli("status", VENUE, "--json")
    assert "\x1b" not in as_json.out and "\u202e" not in as_json.out and "\x07" not in as_json.out
    assert as_json.json()["failed"][0]["reason"] == f"reason {HOSTILE}"  # escaped, not lost


def test_model_answers_lose_control_characters_before_the_record(
    cli: RunCli, project: Project, server: FakeOpenAI
) -> None:
    def hostile(body: dict[str, object]) -> dict[str, object]:
        answer = default_answer(body)  # type: ignore[arg-type]
        answer["summary"] = "\x1b[31m" + str(answer["summary"]) + "\u202e\x07"
        answer["tags"] = ["LLM\x00", "\u202e推理"]
        return answer

    server.answer = hostile
    configure(project, server)
    abstract_only_venue(project, 1)

    result = cli("summarize", VENUE)

    assert result.code == 0, result.err
    version = project.store().load(VENUE, "2601.00000").summaries.versions[0]
    assert version.tags == ["LLM", "推理"]
    assert "\x1b" not in version.summary and "\u202e" not in version.summary and "\x07" not in version.summary


# -- obs. 7: config ---------------------------------------------------------------------------


def test_a_non_utf8_config_is_one_line(cli: RunCli, project: Project) -> None:
    project.config_path.write_bytes("venues: []\nsite: {title: '论文'}\n".encode("gb18030"))
    result = cli("status")
    assert result.code == 2
    line = one_error_line(result.err)
    assert str(project.config_path) in line and "UTF-8" in line


def test_every_config_problem_is_reported_at_once(cli: RunCli, project: Project) -> None:
    project.config["llm"] = {"max_concurency": 3, "temperature": 9}
    project.config["venues"] = [{"id": "../bad"}]
    project.write_config()
    result = cli("status")
    assert result.code == 2
    line = one_error_line(result.err)
    for key in ("llm.max_concurency", "llm.temperature", "venues[0].id"):
        assert key in line, line


# -- small things ---------------------------------------------------------------------------------


def test_run_checks_the_api_key_before_fetching(cli: RunCli, project: Project) -> None:
    (project.root / "papers.txt").write_text("2501.00001\n", "utf-8")
    venues = [dict(v) for v in project.config["venues"]]
    venues[0]["source"] = {"type": "list", "path": "papers.txt"}
    project.write_config(
        venues=venues,
        arxiv={"delay_s": 0, "api_url": "http://127.0.0.1:9/api"},
        http={**project.config["http"], "timeout_s": 1},
    )

    result = cli("run", VENUE)

    assert result.code == 2
    assert "OPENAI_API_KEY" in one_error_line(result.err)
    assert not (project.root / "outputs" / "records" / VENUE).exists()  # nothing fetched


def test_summarize_force_adds_no_identical_version(cli: RunCli, project: Project, server: FakeOpenAI) -> None:
    configure(project, server)
    abstract_only_venue(project, 2)
    assert cli("summarize", VENUE).code == 0
    result = cli("summarize", VENUE, "--force")
    assert result.code == 0, result.err
    assert server.calls == 4
    assert [len(r.summaries.versions) for r in project.store().records(VENUE)] == [1, 1]


def test_many_failures_with_one_reason_are_grouped(cli: RunCli, project: Project, server: FakeOpenAI) -> None:
    configure(project, server)
    abstract_only_venue(project, 25)
    server.fail_first(Fault.english(), n=1)

    result = cli("summarize", VENUE)

    assert result.code == 1
    assert "25 papers:" in result.err
    assert f"summarizer status {VENUE} --json" in result.err
    assert sum("2601.000" in line for line in result.err.splitlines()) < 5


def test_long_ids_and_titles_are_cut_in_messages(cli: RunCli, project: Project) -> None:
    result = cli("review", "show", f"{VENUE}/{'a' * 5000}")
    assert result.code == 2
    assert len(one_error_line(result.err)) < 300


def test_export_into_a_closed_pipe_exits_quietly(cli: RunCli, project: Project) -> None:
    rows = [dict(ROWS[0], arxiv_id=None, title=f"Paper {n}") for n in range(600)]
    assert cli("import", str(project.write_jsonl("many.jsonl", rows))).code == 0
    command = f"{sys.executable} -m summarizer --config {project.config_path} export {VENUE} | head -1"
    done = subprocess.run(
        ["bash", "-c", command + "; echo ${PIPESTATUS[0]} >&2"], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.count("\n") == 1
    assert done.stderr.strip().splitlines()[-1] == "0", done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_without_a_terminal_long_stages_print_progress_lines(
    cli: RunCli, project: Project, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summarizer.apps.cli import console

    monkeypatch.delenv("SUMMARIZER_NO_PROGRESS")
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.0)
    server.latency = 0.02
    configure(project, server, max_concurrency=1)
    abstract_only_venue(project, 3)

    result = cli("summarize", VENUE)

    assert result.code == 0, result.err
    assert f"summarize {VENUE}: 1/3" in result.err and f"summarize {VENUE}: 3/3" in result.err


def test_a_paper_whose_text_is_gone_still_moves_the_progress_line_to_the_end(
    cli: RunCli, project: Project, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from summarizer.apps.cli import console

    monkeypatch.delenv("SUMMARIZER_NO_PROGRESS")
    monkeypatch.setattr(console, "PLAIN_PROGRESS_EVERY_S", 0.0)
    configure(project, server)
    abstract_only_venue(project, 3)
    store = project.store()
    gone = store.load(VENUE, "2601.00001")
    gone.fetch.abstract_only, gone.fetch.text_path = False, "text/" + "0" * 64 + ".json"  # deleted from the cache
    store.save(gone)

    result = cli("summarize", VENUE)

    assert result.code == 1
    assert "2 summarized, 1 failed" in result.err and "2601.00001" in result.err
    assert result.err.count(f"summarize {VENUE}: 3/3") >= 1  # the failed paper counts as done


@pytest.fixture
def arxiv(project: Project) -> Iterator[None]:
    """ICML2026 lists two papers, served by a loopback arXiv."""
    from summarizer.testing.fake_arxiv import FakeArxiv, FakePaper

    papers = [FakePaper(f"2501.0000{n}", f"Sparse Attention {n}", "We make attention sparse.") for n in (1, 2)]
    (project.root / "papers.txt").write_text("2501.00001\n2501.00002\n", "utf-8")
    with FakeArxiv(papers) as fake:
        venues = [dict(v) for v in project.config["venues"]]
        venues[0]["source"] = {"type": "list", "path": "papers.txt"}
        project.write_config(venues=venues, arxiv={"delay_s": 0, "api_url": fake.api_url})
        yield


def test_fetch_into_a_cache_that_is_a_file_is_one_line(cli: RunCli, project: Project, arxiv: None) -> None:
    cache = project.root / "cache"
    cache.write_text("not a folder", "utf-8")
    result = cli("fetch", VENUE)
    assert result.code == 1
    assert f"{cache}: " in one_error_line(result.err)


def test_fetch_skips_a_corrupt_record_and_fetches_the_rest(cli: RunCli, project: Project, arxiv: None) -> None:
    broken = record_path(project, "2501.00001")
    broken.parent.mkdir(parents=True)
    broken.write_text('{"schema_version": 1, "venue": "ICML2026", "id": "2501.00001", "tit', "utf-8")

    result = cli("fetch", VENUE)

    assert result.code == 1
    assert "Traceback" not in result.err
    assert sum("2501.00001.json" in line for line in result.err.splitlines()) == 1, result.err
    assert broken.read_text("utf-8").endswith('"tit')  # never overwritten
    fetched = project.store().load(VENUE, "2501.00002")
    assert fetched.fetch.text_path


def test_regen_into_a_read_only_outputs_folder_is_one_line(
    cli: RunCli, project: Project, server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(project, server)
    abstract_only_venue(project, 1)
    before = snapshot(project)
    read_only(monkeypatch)
    result = cli("regen", f"{VENUE}/2601.00000", "--feedback", "突出方法")
    assert result.code == 1
    assert "Read-only file system" in one_error_line(result.err)
    monkeypatch.undo()
    assert snapshot(project) == before
