"""What navigation tabs would cost: `mkdocs build --strict` of the same site without and with `navigation.tabs`.

The reference site shows its venues as tabs; this site keeps them off unless they cost at most a tenth of
`mkdocs build` at 20,000 papers.  The site is the scale section's (``scale.write_project``: 54 venues ×
the fields of ``config.yaml``), imported and built with the CLI; then MkDocs builds it twice into two
folders, the generated ``mkdocs.yml`` as it is and with ``navigation.tabs`` added to the theme's features.
Each build is a subprocess: wall time, CPU time (user + system, which other users of the machine do not
inflate), and the HTML written.  The search hook runs in both.

    .venv/bin/python benchmarks/tabs_cost.py [--papers 20000] [--keep]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scale import html_megabytes, write_project  # benchmarks/scale.py, beside this file

HERE = Path(__file__).resolve().parent
TARGET = 0.10  # tabs may add at most this share of the build without them
FEATURES = "  features:\n"


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of a subprocess that must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:4])} failed:\n{done.stderr[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def with_tabs(config: str) -> str:
    if FEATURES not in config:
        sys.exit("the generated mkdocs.yml has no theme features list: this script needs updating")
    return config.replace(FEATURES, FEATURES + "    - navigation.tabs\n", 1)


def mkdocs(site: Path, config: Path, out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, HTML MB) of `mkdocs build --strict` of ``config`` into ``out``."""
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(out)]
    wall, cpu = timed(argv, site)
    return wall, cpu, html_megabytes(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tabs-", dir=HERE / "work" if (HERE / "work").is_dir() else None))
    try:
        config, data = write_project(work, args.papers)
        cli = [sys.executable, "-m", "summarizer", "--config", str(config)]
        for command in (["import", str(data)], ["build"]):
            timed([*cli, *command], work)
        site = work / "outputs" / "site"
        tabs_config = site / "mkdocs-tabs.yml"
        tabs_config.write_text(with_tabs((site / "mkdocs.yml").read_text("utf-8")), "utf-8")
        off = mkdocs(site, site / "mkdocs.yml", work / "site-off")
        on = mkdocs(site, tabs_config, work / "site-on")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    extra = (on[1] - off[1]) / off[1]
    print(f"{args.papers:,} papers, `mkdocs build --strict`:")
    print(f"  without tabs: {off[0]:.1f} s wall, {off[1]:.1f} s CPU, {off[2]:.0f} MB of HTML")
    print(f"  with tabs:    {on[0]:.1f} s wall, {on[1]:.1f} s CPU, {on[2]:.0f} MB of HTML")
    print(f"  tabs add {extra:+.0%} of CPU time (target ≤ {TARGET:.0%}): {'PASS' if extra <= TARGET else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
