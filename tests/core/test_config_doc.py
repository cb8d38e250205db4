"""docs/config.md is the settings models as documentation: every key, type, default and description, never stale."""

from __future__ import annotations

from pathlib import Path

from summarizer.core.config import LLMSettings
from summarizer.core.config_doc import DOC_PATH, keys, reference_markdown

REPO = Path(__file__).resolve().parents[2]


def test_docs_config_md_is_the_models_as_they_are() -> None:
    written = (REPO / DOC_PATH).read_text(encoding="utf-8")
    assert written == reference_markdown(), f"{DOC_PATH} is stale: run `make docs` and commit it"


def test_every_key_has_a_description_and_the_batch_keys_are_there() -> None:
    every = keys()
    assert [k.path for k in every if not k.description] == []
    paths = {k.path for k in every}
    assert {"llm.batch_poll_s", "llm.batch_price_factor", "venues[].source(list).path", "tags.aliases"} <= paths
    assert len(every) > len(LLMSettings.model_fields)


def test_a_key_shows_its_type_bounds_and_default() -> None:
    by_path = {k.path: k for k in keys()}
    factor = by_path["llm.batch_price_factor"]
    assert (factor.type, factor.default) == ("number (≥ 0, ≤ 1)", "0.5")
    assert by_path["venues[].id"].required and by_path["site.title"].default == "论文解读"
    assert by_path["llm.structured_output"].type == "one of `auto`, `json_schema`, `json_object`"
