from pathlib import Path

import pytest

from conftest import REPO, Project, RunCli
from summarizer.core.config_file import load_settings
from summarizer.core.errors import ConfigError, MissingAPIKeyError


def test_shipped_config_is_valid_and_complete() -> None:
    settings = load_settings(REPO / "config.yaml")
    assert len(settings.fields) == 39
    assert [v.id for v in settings.venues][:3] == ["ICML2026", "ICLR2026", "CVPR2026"]
    assert all(f.description for f in settings.fields)
    assert settings.prompts_dir.is_dir()
    assert settings.paths.cache == REPO / "cache"


def test_minimal_config_gets_every_default(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("venues: [{id: V1}]\nfields: [{id: f1}]\n", "utf-8")
    settings = load_settings(path)
    assert settings.llm.model == "gpt-4o-mini"
    assert settings.llm.max_concurrency == 8
    assert settings.arxiv.delay_s == 3
    assert settings.site.hot_topics.top_k == 3
    assert settings.venues[0].name == "V1"  # name defaults to id
    assert settings.fields[0].name == "f1"
    assert settings.outputs_dir == tmp_path / "outputs"  # relative to the config's folder


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ("llm: {max_concurency: 4}\n", "llm.max_concurency: unknown key"),
        ("llm: {max_concurrency: eight}\n", "llm.max_concurrency: Input should be a valid integer"),
        ("llm: {structured_output: xml}\n", "llm.structured_output:"),
        ("site: {hot_topics: {top_k: -1}}\n", "site.hot_topics.top_k:"),
        ("venues: [{id: V1, emoji: x, colour: red}]\n", "venues[0].colour: unknown key"),
        ("venues: [{id: '../evil'}]\n", "venues[0].id:"),
        ("venues: [{id: V1, source: {type: list}}]\n", "venues[0].source: a 'list' source needs 'path'"),
        # Each source type takes its own keys: another type's key is unknown, named under the source.
        ("venues: [{id: V1, source: {type: cvf, conference: X, volume: 3}}]\n", "venues[0].source.volume: unknown key"),
        ("venues: [{id: V1, source: {type: pmlr}}]\n", "a 'pmlr' source needs 'volume' (e.g. 267) or 'url'"),
        ("venues: [{id: V1, source: {type: rss}}]\n", "venues[0].source:"),
    ],
)
def test_config_errors_name_file_and_key(tmp_path: Path, yaml_text: str, expected: str) -> None:
    path = tmp_path / "config.yaml"
    base = "fields: [{id: f1}]\n"
    if "venues" not in yaml_text:
        base += "venues: [{id: V1}]\n"
    path.write_text(base + yaml_text, "utf-8")
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_a_missing_venue_list_is_a_config_problem_for_every_command(cli: RunCli, project: Project) -> None:
    project.config["venues"] = [
        {"id": "ICML2026", "source": {"type": "list", "path": "lists/nowhere.txt"}},
        {"id": "ICLR2026"},
    ]
    project.write_config()
    missing = f"venues[0].source.path: venue list not found: {project.root.resolve() / 'lists' / 'nowhere.txt'}"
    for command in (["fetch", "ICML2026"], ["status"], ["status", "ICLR2026"], ["review", "list", "ICLR2026"]):
        result = cli(*command)
        assert result.code == 2, command
        assert f"{project.config_path.resolve()}: {missing}" in result.err, command


def test_a_missing_file_is_listed_with_the_other_problems(cli: RunCli, project: Project) -> None:
    project.config["venues"] = [{"id": "ICML2026", "source": {"type": "list", "path": "nowhere.txt"}}]
    project.config["paths"] = {"prompts": "no-prompts"}
    project.config["llm"]["max_concurency"] = 4
    project.write_config()
    result = cli("status")
    assert result.code == 2 and "3 problems: " in result.err
    for problem in ("llm.max_concurency: unknown key", "venue list not found", "prompts folder not found"):
        assert problem in result.err


def test_an_unknown_key_is_named_before_what_it_hides(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("venues: [{id: V1}]\nfieldz: [{id: f1}]\n", "utf-8")
    with pytest.raises(ConfigError, match=r"2 problems: fieldz: unknown key; fields: missing \(required\)"):
        load_settings(path)


def test_missing_sections_and_files(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("venues: []\n", "utf-8")
    with pytest.raises(ConfigError, match="fields: missing"):
        load_settings(path)
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "absent.yaml")
    path.write_text("venues: [\n", "utf-8")
    with pytest.raises(ConfigError, match="not valid YAML at line"):
        load_settings(path)


def test_cli_config_error_is_one_line_exit_2(cli: RunCli, project: Project) -> None:
    project.config["llm"] = {"max_concurency": 4}
    project.write_config()
    result = cli("status")
    assert result.code == 2
    assert "llm.max_concurency: unknown key" in result.err
    assert "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_config_env_var_and_flag(
    cli: RunCli, project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUMMARIZER_CONFIG", str(project.config_path))
    from summarizer.apps.cli import main

    assert main(["status", "--json"]) == 0
    monkeypatch.setenv("SUMMARIZER_CONFIG", str(tmp_path / "nope.yaml"))
    assert main(["status"]) == 2


def test_api_key_read_only_from_env_and_named_when_missing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.config["llm"] = {"api_key_env": "MY_PROVIDER_KEY"}
    project.write_config()
    settings = project.settings()
    with pytest.raises(MissingAPIKeyError) as info:
        settings.llm.api_key()
    assert "MY_PROVIDER_KEY" in str(info.value)
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-test-123")
    assert settings.llm.api_key() == "sk-test-123"
    assert "sk-test-123" not in settings.model_dump_json()


def test_moved_keys_are_still_read_and_said_once_each(cli: RunCli, project: Project) -> None:
    venues = [dict(v) for v in project.config["venues"]]
    venues[1]["source"] = {"type": "openreview", "venue_id": "ICLR.cc/2026/Conference"}
    project.write_config(venues=venues, arxiv={"delay_s": 0, "timeout_s": 7, "max_pdf_mb": 3})

    settings = project.settings()

    assert (settings.http.timeout_s, settings.http.max_pdf_mb) == (7, 3)
    assert (
        settings.venues[1].source is not None
        and settings.venues[1].source.openreview_venue == "ICLR.cc/2026/Conference"
    )
    assert settings.deprecations == [
        "arxiv.timeout_s is now http.timeout_s: move it (the old key goes in the next release)",
        "arxiv.max_pdf_mb is now http.max_pdf_mb: move it (the old key goes in the next release)",
        "venues[1].source.venue_id is now openreview_venue: rename it (the old key goes in the next release)",
    ]
    result = cli("status")
    assert result.code == 0
    assert result.err.count("config.yaml: arxiv.timeout_s is now http.timeout_s") == 1
