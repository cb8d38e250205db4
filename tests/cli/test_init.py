"""`summarizer init [DIR]`: a project to fill in, then every command works there; it never overwrites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from summarizer.apps.cli import main
from summarizer.core.config import Settings
from summarizer.core.config_doc import keys
from summarizer.core.config_file import load_settings


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_init_in_an_empty_folder_then_status_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "init")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml", "prompts", "venues"]
    assert sorted(p.name for p in (tmp_path / "prompts").iterdir()) == [
        "note_reask.md.j2",
        "note_system.md.j2",
        "note_user.md.j2",
        "reask.md.j2",
        "system.md.j2",
        "user.md.j2",
    ]
    settings = load_settings(tmp_path / "config.yaml")
    assert [v.id for v in settings.venues] == ["MyVenue2026"]
    assert settings.prompts_dir == tmp_path / "prompts"
    assert (tmp_path / "venues" / "MyVenue2026.txt").is_file()
    code, out, err = run(capsys, "status")
    assert code == 0, err
    assert "MyVenue2026" in out


def test_the_config_is_commented_and_every_other_section_at_its_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "init", str(tmp_path / "digest"))[0] == 0
    text = (tmp_path / "digest" / "config.yaml").read_text("utf-8")
    raw = yaml.safe_load(text)
    assert set(raw) == set(Settings.model_fields)
    described = [k for k in keys() if k.path.startswith("llm.") and k.path.count(".") == 1]
    assert all(f"# {k.description}" in text for k in described)
    defaults = Settings.model_validate({"venues": [], "fields": [{"id": "x"}]})
    assert raw["http"] == defaults.http.model_dump(mode="json")
    assert raw["llm"]["model"] == defaults.llm.model


def test_init_refuses_to_overwrite_anything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "config.yaml").write_text("mine\n", encoding="utf-8")
    code, _, err = run(capsys, "init", str(tmp_path))
    assert code == 2
    assert "config.yaml already exists" in err and "nothing written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]
    assert (tmp_path / "config.yaml").read_text(encoding="utf-8") == "mine\n"


def test_a_missing_config_names_the_folder_and_suggests_init(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "status")
    assert code == 2
    assert f"config.yaml: config file not found (looked in {tmp_path})" in err and "summarizer init" in err


def test_the_config_comments_point_at_what_exists_wherever_it_runs() -> None:
    from conftest import REPO
    from summarizer.apps.cli.init import PROJECT_URL, config_text
    from summarizer.core.errors import DISTRIBUTION

    comments = "\n".join(line for line in config_text().splitlines() if line.lstrip().startswith("#"))
    headings = {line.lstrip("#").strip() for line in (REPO / "README.md").read_text("utf-8").splitlines()}
    named = re.findall(r'"([^"]+)"', comments.split("# The fields:", 1)[0])
    assert len(named) >= 3 and all(name in headings for name in named), named
    assert "docs/config.md" not in comments and "summarizer's repository" not in comments  # a wheel has neither
    assert "`summarizer --help`" in comments and PROJECT_URL in comments and DISTRIBUTION in PROJECT_URL


def test_init_local_writes_the_provider_section_for_a_model_on_this_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "init", str(tmp_path / "p"), "--local")
    assert code == 0, err
    llm = load_settings(tmp_path / "p" / "config.yaml").llm
    assert llm.base_url == "http://127.0.0.1:8080/v1" and llm.api_key_env == "LOCAL_LLM_KEY"
    assert llm.max_concurrency == 1 and llm.timeout_s >= 600 and llm.structured_output == "auto"
    assert llm.price_per_million.input == 0 and llm.price_per_million.output == 0
    assert "export LOCAL_LLM_KEY=local" in out + err
    text = (tmp_path / "p" / "config.yaml").read_text("utf-8")
    assert "# Requests in flight at once." in text  # still commented key by key
