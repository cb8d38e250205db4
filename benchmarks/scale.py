"""The scale section of `make bench`: the editor's commands and the published site at 3k, 20k and 50k papers.

For each size, N synthetic approved papers spread over 54 venues × the fields of the
repository's ``config.yaml`` go in with ``summarizer import``; then ``build``, ``build``
again with nothing changed, ``status --json``, ``review list`` of one venue, and
``mkdocs build --strict`` of the published site, each a measured subprocess (wall time
and peak RSS, ``Bench.measure``).  The site's HTML size is summed after mkdocs.  A cost
that grows with the square of the papers shows as a jump between the rows.

Targets (a site fit for 50,000 papers): at 20,000 papers, ``mkdocs build --strict``
under 20 s and under 250 MB of HTML.

    .venv/bin/python benchmarks/bench.py --only scale [--scale-sizes 3000,20000,50000]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SIZES = (3_000, 20_000, 50_000)
VENUES = 54
TARGET_SIZE = 20_000
TARGET_MKDOCS_S = 20.0
TARGET_HTML_MB = 250.0
VOCAB = ["LLM", "扩散模型", "推理", "强化学习", "量化", "KV cache", "长上下文", "Transformer", "图神经网络", "优化器"]
HEADING = "## Scale: the editor's commands and the published site"


class Run(Protocol):
    code: int
    wall_s: float
    max_rss_mb: float
    cpu_s: float


class Measurer(Protocol):
    env: dict[str, str]

    def cli(self, config: Path, *args: str) -> Run: ...

    def measure(self, argv: list[str], cwd: Path, name: str, args: list[str]) -> Run: ...


def config_fields() -> list[dict[str, Any]]:
    """The fields of the repository's config.yaml: the site a real editor would build."""
    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    return [{"id": f["id"], "name": f["name"], "emoji": f.get("emoji", "")} for f in config["fields"]]


def write_project(root: Path, n: int) -> tuple[Path, Path]:
    """A config of 54 source-less venues, and an import file of n approved papers over every venue × field."""
    root.mkdir(parents=True, exist_ok=True)
    fields = config_fields()
    venues = [{"id": f"CONF{i:02d}", "name": f"Conference {i:02d}", "emoji": "🧪"} for i in range(VENUES)]
    config = {"paths": {"outputs": "outputs", "cache": "cache"}, "venues": venues, "fields": fields}
    config["tags"] = {"vocabulary": VOCAB}
    config_path = root / "config.yaml"
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    lines = []
    for i in range(n):
        arxiv_id = f"{25 + i // 100_000}01.{i % 100_000:05d}"
        lines.append(
            {
                "venue": venues[i % VENUES]["id"],
                "id": arxiv_id,
                "arxiv_id": arxiv_id,
                "title": f"Paper {i}: Efficient Methods for Problem {i % 997}",
                "summary": (
                    f"本文（编号 {i}）提出一种面向第 {i % 97} 类问题的新方法，通过把 attention 分解为局部与全局两部分"
                    "并共享 KV cache，在 LLaMA-7B 上把推理延迟降低 \\(2.1\\times\\)，同时在 LongBench 上保持与全注意力"
                    "相当的准确率。"
                ),
                "tags": [VOCAB[i % len(VOCAB)], VOCAB[(i * 7 + 3) % len(VOCAB)]],
                "field": fields[(i // VENUES) % len(fields)]["id"],  # every venue gets every field
                "status": "approved",
            }
        )
    data = root / "papers.jsonl"
    data.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return config_path, data


def html_megabytes(site: Path) -> float:
    return sum(p.stat().st_size for p in site.rglob("*.html")) / 1e6


def one_size(bench: Measurer, work: Path, n: int) -> dict[str, Any]:
    """Every command at one size: {command: Run}, plus the HTML size and the page count."""
    print(f"scale: {n} papers in {VENUES} venues", flush=True)
    config, data = write_project(work / f"scale-{n}", n)
    runs: dict[str, Any] = {
        "import": bench.cli(config, "import", str(data)),
        "build": bench.cli(config, "build"),
        "build, nothing changed": bench.cli(config, "build"),
        "status --json": bench.cli(config, "status", "--json"),
        "review list (one venue)": bench.cli(config, "review", "list", "CONF00"),
    }
    site = config.parent / "outputs" / "site"
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(site / "mkdocs.yml")]
    runs["mkdocs build --strict"] = bench.measure(argv, site, "mkdocs", ["build", "--strict"])
    html = site / "site"
    return {
        "runs": runs,
        "html_mb": html_megabytes(html),
        "pages": sum(1 for _ in html.rglob("*.html")),
        "search_mb": (html / "search" / "search_index.json").stat().st_size / 1e6,
    }


def _cell(run: Run) -> str:
    return f"{run.wall_s:.1f} s ({run.cpu_s:.1f} s CPU), {run.max_rss_mb:.0f} MB"


def section(results: dict[int, dict[str, Any]], when: str) -> str:
    sizes = sorted(results)
    header = "| command | " + " | ".join(f"{n:,} papers" for n in sizes) + " |"
    lines = [header, "|---" * (len(sizes) + 1) + "|"]
    for command in results[sizes[0]]["runs"]:
        cells = [_cell(results[n]["runs"][command]) for n in sizes]
        lines.append(f"| `{command}` | " + " | ".join(cells) + " |")
    lines.append("| site HTML (pages) | " + " | ".join(f"{results[n]['html_mb']:.0f} MB ({results[n]['pages']:,})"
                                                     for n in sizes) + " |")  # fmt: skip
    lines.append("| search index | " + " | ".join(f"{results[n]['search_mb']:.0f} MB" for n in sizes) + " |")
    verdicts = []
    if TARGET_SIZE in results:
        at = results[TARGET_SIZE]
        mkdocs = at["runs"]["mkdocs build --strict"]
        mk = mkdocs.wall_s
        verdicts = [
            f"- `mkdocs build --strict` of {TARGET_SIZE:,} papers: {mk:.1f} s wall ({mkdocs.cpu_s:.1f} s CPU), "
            f"target < {TARGET_MKDOCS_S:.0f} s: " + ("PASS" if mk < TARGET_MKDOCS_S else "FAIL"),
            f"- HTML of {TARGET_SIZE:,} papers: {at['html_mb']:.0f} MB, target < {TARGET_HTML_MB:.0f} MB: "
            + ("PASS" if at["html_mb"] < TARGET_HTML_MB else "FAIL"),
        ]
    return "\n".join(
        [
            HEADING,
            "",
            f"Produced by `benchmarks/scale.py` ({when}): synthetic approved papers over {VENUES} venues × the "
            f"{len(config_fields())} fields of `config.yaml`, each command a subprocess: wall time (user + system "
            "CPU time, which other users of a shared machine do not inflate), peak RSS.",
            "",
            *lines,
            "",
            *verdicts,
            "",
        ]
    )


def write_section(results_md: Path, text: str) -> None:
    """Replace this section in RESULTS.md (or add it at the end), leaving the rest as it is."""
    old = results_md.read_text(encoding="utf-8") if results_md.exists() else ""
    head = old.split(HEADING, 1)[0].rstrip("\n")
    results_md.write_text((head + "\n\n" if head else "") + text, encoding="utf-8")


def run_scale(bench: Measurer, work: Path, sizes: tuple[int, ...] = SIZES) -> str:
    """Measure every size and return the markdown section."""
    bench.env.setdefault("NO_MKDOCS_2_WARNING", "1")
    results = {n: one_size(bench, work, n) for n in sizes}
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) + f", {os.cpu_count()} cores, load {load} at the end"
    return section(results, when)


def main(make_bench: Any, results_md: Path, sizes: tuple[int, ...], *, keep: bool, write: bool) -> int:
    """Run the section in its own scratch folder under benchmarks/work/; write it into RESULTS.md."""
    import shutil
    import tempfile

    (HERE / "work").mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="scale-", dir=HERE / "work"))
    try:
        text = run_scale(make_bench(work), work, sizes)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\n" + text)
    if write:
        write_section(results_md, text)
        print(f"written: {results_md.relative_to(REPO)}")
    return 0
