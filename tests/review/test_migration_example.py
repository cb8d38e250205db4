"""docs/import-export.md's migration example, run as an editor would: convert old notes, import, read rejects, build."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO, RunCli


def test_migrating_the_example_site(cli: RunCli, tmp_path: Path) -> None:
    example = tmp_path / "migration"
    shutil.copytree(REPO / "examples" / "migration", example, ignore=shutil.ignore_patterns("outputs"))
    lines = subprocess.run(
        [sys.executable, "convert.py", "old_site/docs"], cwd=example, capture_output=True, text=True, check=True
    ).stdout
    notes = example / "notes.jsonl"
    notes.write_text(lines, "utf-8")
    config = example / "config.yaml"

    result = cli("import", str(notes), "--skip-invalid", config=config)
    assert result.code == 1, result.err
    assert "5 created, 0 updated, 0 unchanged; 3 rejected" in result.err
    rejected = [json.loads(x) for x in (example / "notes.rejected.jsonl").read_text("utf-8").splitlines()]
    reasons = [r["error"] for r in rejected]
    assert "unknown field 'misc'" in reasons[0] and "unsafe TeX \\href" in reasons[1]
    assert "the same paper as line 5 (ICML2025/2505.01234)" in reasons[2]  # the note filed under two fields

    assert "no tags" in cli("review", "show", "ICML2025/2505.02345", config=config).out
    assert "3 lines joined into one paragraph" in cli("review", "show", "ICML2025/2505.04567", config=config).out
    built = cli("build", config=config)
    assert built.code == 0, built.err
    docs = example / "outputs" / "site" / "docs" / "ICML2025"
    pretraining = (docs / "llm_pretraining" / "index.md").read_text("utf-8")
    reasoning = (docs / "llm_reasoning" / "index.md").read_text("utf-8")
    assert "Tiny Tokenizers Make Big Models Cheaper" in pretraining and "Tiny Tokenizers" not in reasoning
    assert "本文用一个小型验证器给多条思维链打分，再按分数加权投票，在 GSM8K" in reasoning
