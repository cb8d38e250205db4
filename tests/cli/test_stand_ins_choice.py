"""The demo's offline stand-ins answer only a config that chooses them (``stand_ins: demo``), never because of the
files beside it: a project of your own with a ``papers.yaml`` of its own reaches the provider its config names."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, Project, RunCli
from fetched_venue import VENUE, title, write_venue
from summarizer.apps.cli import main
from summarizer.apps.demo import stand_ins
from summarizer.testing.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.usefixtures("provider_key"), pytest.mark.fake_openai(latency=0.0)]

DEMO = REPO / "examples" / "demo"
STAND_INS_LINE = "arXiv and the model provider are the demo's offline stand-ins"


def point_at(project: Project, server: FakeOpenAI, **settings: Any) -> None:
    project.write_config(llm={**project.config["llm"], "base_url": server.base_url}, **settings)


def a_reading_list() -> str:
    """A papers.yaml of a user's own: their reading list, nothing to do with the demo."""
    papers = [{"title": title(i), "why": "cited by our survey"} for i in range(2)]
    return yaml.safe_dump({"papers": papers}, allow_unicode=True)


def the_demos_papers() -> str:
    """The demo's papers.yaml itself, as a project started from a copy of the demo folder keeps it."""
    return (DEMO / "papers.yaml").read_text("utf-8")


def recorded_answer() -> dict[str, Any]:
    """The demo's first recorded answer, in a field the test project has."""
    first = yaml.safe_load(the_demos_papers())["papers"][0]
    return {**first["answer"], "field": "llm_pretraining"}


def demo_papers_for(answer: dict[str, Any]) -> str:
    """A papers.yaml in the demo's shape that records ``answer`` for the project's paper 0."""
    first = yaml.safe_load(the_demos_papers())["papers"][0]
    paper = {**first, "venue": VENUE, "arxiv_id": "2601.00000", "title": title(0), "answer": answer}
    for key in ("revised", "note", "note_revised", "left_for_review", "note_left_for_review"):
        paper.pop(key, None)
    return yaml.safe_dump({"papers": [paper]}, allow_unicode=True)


@pytest.fixture
def no_demo_stand_ins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any start of the demo's stand-ins fails the test."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the demo's stand-ins were started")

    monkeypatch.setattr(stand_ins, "stand_ins", refused)


@pytest.mark.usefixtures("no_demo_stand_ins")
@pytest.mark.parametrize("papers", [a_reading_list, the_demos_papers], ids=["own-papers", "demo-shaped-papers"])
def test_a_project_with_a_papers_yaml_of_its_own_reaches_the_provider_its_config_names(
    project: Project, server: FakeOpenAI, cli: RunCli, papers: Any
) -> None:
    point_at(project, server)
    (project.root / "papers.yaml").write_text(papers(), "utf-8")
    write_venue(project, n=2)

    result = cli("summarize", VENUE)

    assert result.code == 0, result.err
    assert sorted(server.calls_by_title()) == [title(0), title(1)]  # the config's provider answered each paper
    assert STAND_INS_LINE not in result.out + result.err
    for record in project.store().records(VENUE):
        assert (
            record.summaries.current is not None and record.title in record.summaries.current.summary
        )  # the provider's answer


def test_a_copy_of_the_demo_without_the_setting_says_what_to_add(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    point_at(project, server)
    (project.root / "papers.yaml").write_text(the_demos_papers(), "utf-8")
    write_venue(project, n=1)

    result = cli("summarize", VENUE)

    assert result.code == 0, result.err
    [hint] = [line for line in result.err.splitlines() if "stand_ins: demo" in line]
    assert "add the line `stand_ins: demo`" in hint and "the real ones" in hint
    assert server.calls_by_title() == {title(0): 1}


def test_the_demo_setting_switches_the_stand_ins_on(project: Project, server: FakeOpenAI, cli: RunCli) -> None:
    answer = recorded_answer()
    point_at(project, server, stand_ins="demo")
    (project.root / "papers.yaml").write_text(demo_papers_for(answer), "utf-8")
    write_venue(project, n=1)

    result = cli("summarize", VENUE)

    assert result.code == 0, result.err
    assert STAND_INS_LINE in result.out + result.err
    assert server.requests == []  # the provider the config names is never asked
    [record] = project.store().records(VENUE)
    assert (
        record.summaries.current is not None and record.summaries.current.summary == answer["summary"]
    )  # the recorded answer
    assert project.settings().llm.base_url == server.base_url  # the config file is left as it was


def test_the_demo_setting_without_its_papers_is_one_line_naming_the_file(
    project: Project, server: FakeOpenAI, cli: RunCli
) -> None:
    point_at(project, server, stand_ins="demo")
    write_venue(project, n=1)

    result = cli("summarize", VENUE)

    assert result.code == 2
    [line] = result.err.strip().splitlines()
    assert "papers.yaml: missing" in line and "stand_ins: demo" in line
    assert server.requests == []


def test_the_demo_in_an_older_demo_folder_asks_for_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder, ignore=shutil.ignore_patterns("outputs", "cache"))
    config = folder / "config.yaml"
    config.write_text(config.read_text("utf-8").replace("\nstand_ins: demo\n", "\n"), "utf-8")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()

    assert main(["demo", "--dir", "demo"]) == 2

    [line] = capsys.readouterr().err.strip().splitlines()
    assert "demo/config.yaml" in line and "add the line `stand_ins: demo`" in line
    assert not (folder / "outputs").exists()  # nothing ran
