"""What a command costs besides its requests: imports, the garbage collector, the input cut.

The import and collector tests run the real entry point in a subprocess: in-process, pytest has
long imported everything. Timings themselves live in `make bench` (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import Project

# Heavy modules a command must import only when it uses them.
SITE_ONLY = ("mkdocs", "markdown", "pymdownx")
FETCH_ONLY = ("pymupdf", "arxiv", "requests", "lxml")
BAR_ONLY = ("rich.progress",)
WORK_ONLY = ("openai", "pydantic", "yaml", "filelock", "jinja2")


def _imported(project: Project, *args: str) -> set[str]:
    """The modules ``summarizer ARGS`` imported, from ``-X importtime``."""
    env = {k: v for k, v in os.environ.items() if k not in ("SUMMARIZER_CONFIG", "SUMMARIZER_DEBUG")}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "summarizer", "--config", str(project.config_path), *args],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert len(lines) > 20, done.stderr[-2000:]
    return set(lines)


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_help_imports_nothing_but_the_command_line(project: Project) -> None:
    modules = _imported(project, "--help")
    assert "click" in modules
    assert _loaded(modules, SITE_ONLY + FETCH_ONLY + BAR_ONLY + WORK_ONLY) == []


def test_summarize_imports_neither_the_site_nor_the_fetcher_nor_a_hidden_progress_bar(project: Project) -> None:
    modules = _imported(project, "summarize", "ICML2026")  # no papers yet: a warning, exit 0
    assert "openai" in modules and "summarizer.summarize" in modules
    assert _loaded(modules, SITE_ONLY + FETCH_ONLY + BAR_ONLY) == []  # stderr is a pipe: no bar


def test_a_command_runs_with_the_collector_on_and_start_up_frozen(project: Project) -> None:
    """entry() keeps the garbage collector off through start-up only: during the work it is on again."""
    probe = (
        "import atexit, gc, sys\n"
        "import summarizer.apps.cli as cli\nfrom summarizer.apps.cli import status\n"
        "seen = []\n"
        "real = status.all_status\n"
        "status.all_status = lambda *a: seen.append(f'{gc.isenabled()} {gc.get_freeze_count()}') or real(*a)\n"
        "atexit.register(lambda: print('during the work:', *seen))\n"
        f"sys.argv = ['summarizer', '--config', {str(project.config_path)!r}, 'status']\n"
        "cli.entry()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    enabled, frozen = done.stdout.rsplit("during the work:", 1)[1].split()
    assert enabled == "True" and int(frozen) > 10_000


def test_main_leaves_the_collector_alone() -> None:
    import gc

    from summarizer.apps.cli import main

    before = gc.get_freeze_count()
    assert main(["--help"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == before


def test_cut_sections_are_the_same_as_a_search_over_the_whole_text() -> None:
    """model_input searches only the first 4 × budget characters for a cut: the same cut as over all of it."""
    import random
    import re

    from summarizer.core.paper_text import _cut_to_tokens
    from summarizer.core.tokens import estimate_tokens

    cjk = re.compile(r"[\u3000-\u9fff\uf900-\ufaff]")

    def slow_estimate(text: str) -> int:
        n = len(cjk.findall(text))
        return n + (len(text) - n + 3) // 4

    def slow_cut(text: str, tokens: int) -> str:
        if tokens <= 0:
            return ""
        if slow_estimate(text) <= tokens:
            return text
        room = tokens - slow_estimate(" …")
        if room <= 0:
            return ""
        low, high = 0, len(text)
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if slow_estimate(text[:mid]) <= room else (low, mid - 1)
        return text[:low].rstrip() + " …"

    rng = random.Random(16)
    alphabet = ["a", "b", " ", ".", "\n", "中", "文", "。", "α", "—", "ﬁ", "\uf900", "\u3000"]
    for _ in range(3000):
        share = rng.random()
        text = "".join(
            rng.choice(alphabet) if rng.random() < share else "x" for _ in range(rng.choice([0, 5, 90, 900]))
        )
        tokens = rng.choice([-1, 0, 1, 3, 20, 150, 400])
        assert _cut_to_tokens(text, tokens) == slow_cut(text, tokens), (text, tokens)
        assert estimate_tokens(text) == slow_estimate(text)
