"""summarizer's name on the package index is its own: every `pip install` the README and the tool print names it.

(``summarizer`` on the index is an unrelated project: a reader who typed ``pip install summarizer`` got that one.)
"""

from __future__ import annotations

import re
import tomllib

from conftest import REPO
from summarizer.core.errors import DISTRIBUTION, MissingExtra

WHEEL = DISTRIBUTION.replace("-", "_")


def test_the_project_is_published_under_its_own_name() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == DISTRIBUTION != "summarizer"
    assert project["scripts"] == {"summarizer": "summarizer.apps.cli:entry"}  # the command keeps its name
    extras = project["optional-dependencies"]
    assert all(not dep.startswith("summarizer[") for deps in extras.values() for dep in deps)


def test_every_pip_install_in_the_readme_names_it() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    installs = re.findall(r"pip install '?\"?([^\s'\"`]+)", readme)
    # Another project's package: the server of "A local model", installed in a venv of its own.
    installs = [target for target in installs if not target.startswith("llama-cpp-python[")]
    assert len(installs) >= 5
    for target in installs:
        assert target.startswith((f"{DISTRIBUTION}[", f"{WHEEL}-")), target
    assert "summarizer[" not in readme


def test_a_missing_extra_names_it_too() -> None:
    assert str(MissingExtra("the review desk", "desk")).endswith(f"pip install '{DISTRIBUTION}[desk]'")
