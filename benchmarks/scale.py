"""The scale section of `make bench`: the editor's commands and the published site at 2,000 and 20,000 papers.

For each size, N synthetic approved papers spread over 54 venues × the fields of the
repository's ``config.yaml`` go in with ``summarizer import``; then ``build``, ``build``
again with nothing changed, ``status --json``, ``review list`` of one venue, and
``mkdocs build --strict`` of the published site (a page per paper; its search made by Pagefind
in the site's hook), each a measured subprocess (wall time and peak RSS, ``Bench.measure``).
Then one venue changes (``ONE_VENUE_NEW`` new approved papers in CONF00) and the site is built
again the incremental way: ``summarizer build`` and ``mkdocs build --strict --dirty``.  The
site's HTML size is summed after mkdocs, and the search page is opened in Chromium to count what
a reader downloads (gzipped) and waits before the first result, for a set of words (``search_payload``).

Targets (the reader's-site issue): ``mkdocs build`` at 20,000 papers at most 12× its time at
2,000 (linear); the rebuild after one venue changed at most a fifth of the full build
(``summarizer build`` + ``mkdocs build`` each time).  The search (the search issue): a cold query at
20,000 papers makes at most 15 requests and downloads at most 1 MB gzipped before its first result, for
each word of ``search_payload.WORDS``; the whole index (Pagefind alone, timed again on the built site)
builds in under a minute.

    .venv/bin/python benchmarks/bench.py --only scale [--scale-sizes 2000,20000]
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import yaml

import sanitiser_cost  # benchmarks/sanitiser_cost.py, beside this file
import search_payload  # benchmarks/search_payload.py, beside this file

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SIZES = (2_000, 20_000)
VENUES = 54
TARGET_SIZE = 20_000
TARGET_LINEAR = 12.0  # mkdocs build at 20,000 papers over its time at 2,000, at most
TARGET_REBUILD = 0.2  # a rebuild after one venue changed, over the full build, at most
ONE_VENUE_NEW = 20
VOCAB = ["LLM", "扩散模型", "推理", "强化学习", "量化", "KV cache", "长上下文", "Transformer", "图神经网络", "优化器"]
HEADING = "## Scale: the editor's commands and the published site"
BEFORE = "every tag a page (tag_min_papers 1, as before)"


class Run(Protocol):
    code: int
    wall_s: float
    max_rss_mb: float
    cpu_s: float
    stderr: str


class Measurer(Protocol):
    env: dict[str, str]

    def cli(self, config: Path, *args: str) -> Run: ...

    def measure(self, argv: list[str], cwd: Path, name: str, args: list[str]) -> Run: ...


def config_fields() -> list[dict[str, Any]]:
    """The fields of the repository's config.yaml: the site a real editor would build."""
    config = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    return [{"id": f["id"], "name": f["name"], "emoji": f.get("emoji", "")} for f in config["fields"]]


def paper_line(i: int, venue: str, field: str) -> dict[str, Any]:
    arxiv_id = f"{25 + i // 100_000}01.{i % 100_000:05d}"
    return {
        "venue": venue,
        "id": arxiv_id,
        "arxiv_id": arxiv_id,
        "title": f"Paper {i}: Efficient Methods for Problem {i % 997}",
        "summary": (
            f"本文（编号 {i}）提出一种面向第 {i % 97} 类问题的新方法，通过把 attention 分解为局部与全局两部分"
            f"并共享 KV cache，结合{VOCAB[i % len(VOCAB)]}在 LLaMA-7B 上把推理延迟降低 \\(2.1\\times\\)，同时在 "
            "LongBench 上保持与全注意力相当的准确率。"
        ),
        # Two common tags, and the long tail a real corpus has (the reference's: 11,740 tags for 3,474 papers,
        # 9,955 of them held by one paper): one tag of this paper alone, one it shares with one other.
        "tags": [VOCAB[i % len(VOCAB)], VOCAB[(i * 7 + 3) % len(VOCAB)], f"方法{i}", f"主题{i // 2}"],
        "field": field,
        "status": "approved",
    }


def write_project(root: Path, n: int) -> tuple[Path, Path]:
    """A config of 54 source-less venues, and an import file of n approved papers over every venue × field."""
    root.mkdir(parents=True, exist_ok=True)
    fields = config_fields()
    venues = [{"id": f"CONF{i:02d}", "name": f"Conference {i:02d}", "emoji": "🧪"} for i in range(VENUES)]
    config = {"paths": {"outputs": "outputs", "cache": "cache"}, "venues": venues, "fields": fields}
    config["tags"] = {"vocabulary": VOCAB}
    config_path = root / "config.yaml"
    config_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    field_ids = [f["id"] for f in fields]
    # every venue gets every field
    lines = [paper_line(i, venues[i % VENUES]["id"], field_ids[(i // VENUES) % len(fields)]) for i in range(n)]
    data = root / "papers.jsonl"
    data.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return config_path, data


def html_megabytes(site: Path) -> float:
    return sum(p.stat().st_size for p in site.rglob("*.html")) / 1e6


def _jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def one_size(bench: Measurer, work: Path, n: int) -> dict[str, Any]:
    """Every command at one size: {command: Run}, plus the HTML size, the pages, the search's download."""
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
    # Not -q: it drops MkDocs' warnings before --strict can count them.
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(site / "mkdocs.yml")]
    runs["mkdocs build --strict"] = bench.measure(argv, site, "mkdocs", ["build", "--strict"])
    html = site / "site"
    sizes = {"html_mb": html_megabytes(html), "pages": sum(1 for _ in html.rglob("*.html"))}
    sizes["search"] = search_payload.measure(html)
    scratch = config.parent / "index-timed"
    sizes["index_run"] = bench.measure(search_payload.index_argv(html, scratch), site, "pagefind", ["--site"])
    sizes["sanitiser"] = sanitiser_cost.sanitise_all(html)
    # One venue changes: new approved papers in CONF00 (fields spread as the others are).
    fields = [f["id"] for f in config_fields()]
    new = [paper_line(n + j, "CONF00", fields[j % len(fields)]) for j in range(ONE_VENUE_NEW)]
    bench.cli(config, "import", str(_jsonl(config.parent / "one-venue.jsonl", new)))
    runs["rebuild after one venue changed: build"] = bench.cli(config, "build")
    dirty = [*argv[:5], "--dirty", *argv[5:]]  # hooks/rebuild.py makes --strict --dirty possible
    runs["rebuild after one venue changed: mkdocs build --strict --dirty"] = bench.measure(
        dirty, site, "mkdocs", ["build", "--strict", "--dirty"]
    )
    sizes["tag_pages"] = _tag_pages(site)
    before = _every_tag_a_page(bench, config, argv)
    runs |= before.pop("runs")
    return {"runs": runs, **sizes, "before": before}


def _tag_pages(site: Path) -> int:
    return sum(1 for _ in (site / "docs" / "tags").glob("*.md"))


def _every_tag_a_page(bench: Measurer, config: Path, argv: list[str]) -> dict[str, Any]:
    """The site as it was before ``site.tag_min_papers``: every tag a page (``1``), built in full again."""
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data.setdefault("site", {})["tag_min_papers"] = 1
    config.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    site = config.parent / "outputs" / "site"
    runs = {f"{BEFORE}: build": bench.cli(config, "build")}
    runs[f"{BEFORE}: mkdocs build --strict"] = bench.measure(argv, site, "mkdocs", ["build", "--strict"])
    pages = sum(1 for _ in (site / "site").rglob("*.html"))
    return {"runs": runs, "tag_pages": _tag_pages(site), "pages": pages}


def _cell(run: Run) -> str:
    return f"{run.wall_s:.1f} s ({run.cpu_s:.1f} s CPU), {run.max_rss_mb:.0f} MB"


def _table(results: dict[int, dict[str, Any]]) -> tuple[str, list[str]]:
    sizes = sorted(results)
    header = "| command | " + " | ".join(f"{n:,} papers" for n in sizes) + " |"
    lines = [header, "|---" * (len(sizes) + 1) + "|"]
    for command in results[sizes[0]]["runs"]:
        cells = [_cell(results[n]["runs"][command]) for n in sizes]
        lines.append(f"| `{command}` | " + " | ".join(cells) + " |")
    lines.append("| site HTML (pages) | " + " | ".join(f"{results[n]['html_mb']:.0f} MB ({results[n]['pages']:,})"
                                                     for n in sizes) + " |")  # fmt: skip
    lines.append("| tag pages (`tag_min_papers` 2, the default / 1) | " + " | ".join(
        f"{results[n]['tag_pages']:,} / {results[n]['before']['tag_pages']:,}" for n in sizes) + " |")  # fmt: skip
    lines.append("| site HTML pages with `tag_min_papers: 1` | " + " | ".join(
        f"{results[n]['before']['pages']:,}" for n in sizes) + " |")  # fmt: skip
    searches = {n: results[n]["search"] for n in sizes}
    index_runs = {n: results[n]["index_run"] for n in sizes}
    lines += ["", *search_payload.rows(searches, index_runs)]
    return "\n".join(lines), _verdicts(results) + search_payload.verdicts(searches, index_runs)


def _full(result: dict[str, Any], cpu: bool = False) -> float:
    runs = [result["runs"]["build"], result["runs"]["mkdocs build --strict"]]
    return float(sum(run.cpu_s if cpu else run.wall_s for run in runs))


def _rebuild(result: dict[str, Any], cpu: bool = False) -> float:
    runs = [run for command, run in result["runs"].items() if command.startswith("rebuild after")]
    return float(sum(run.cpu_s if cpu else run.wall_s for run in runs))


def _rebuild_work(result: dict[str, Any]) -> str:
    """What the rebuild did, from its logs: pages written, pages brought up to date unrendered, search bundles."""
    runs = result["runs"]
    written = re.search(r"(\d+) pages written, (\d+) unchanged", runs["rebuild after one venue changed: build"].stderr)
    mkdocs = runs["rebuild after one venue changed: mkdocs build --strict --dirty"].stderr
    parts = re.search(r"rebuild: (\d+) pages brought up to date", mkdocs)
    index = re.search(r"search: index (made|unchanged)", mkdocs)
    said = []
    if written:
        said.append(f"`build` wrote {written.group(1)} of {int(written.group(1)) + int(written.group(2)):,} files")
    if parts:
        said.append(f"the hook put new parts into {parts.group(1)} built pages without rendering them")
    if index:
        said.append("Pagefind made the whole search index again" if index.group(1) == "made" else "search index kept")
    return "; ".join(said)


def _verdicts(results: dict[int, dict[str, Any]]) -> list[str]:
    def verdict(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    out = []
    sizes = sorted(results)
    if len(sizes) >= 2:
        small, large = sizes[0], sizes[-1]
        mk = [results[n]["runs"]["mkdocs build --strict"].wall_s for n in (small, large)]
        ratio, allowed = mk[1] / mk[0], TARGET_LINEAR * large / small / 10
        out.append(
            f"- `mkdocs build --strict`, {large:,} vs {small:,} papers: {mk[1]:.1f} s / {mk[0]:.1f} s = "
            f"{ratio:.1f}×, target ≤ {allowed:.0f}×: " + verdict(ratio <= allowed)
        )
    for n in sizes:
        full, rebuild = _full(results[n]), _rebuild(results[n])
        cpu_full, cpu_rebuild = _full(results[n], cpu=True), _rebuild(results[n], cpu=True)
        out.append(
            f"- {n:,} papers, rebuild after one venue changed ({ONE_VENUE_NEW} new papers in CONF00: `build` + "
            f"`mkdocs build --strict --dirty`) vs the full build (`build` + `mkdocs build --strict`): "
            f"{rebuild:.1f} s / {full:.1f} s = {rebuild / full:.2f} (CPU {cpu_rebuild:.1f} s / {cpu_full:.1f} s = "
            f"{cpu_rebuild / cpu_full:.2f}), target ≤ {TARGET_REBUILD}: " + verdict(rebuild <= TARGET_REBUILD * full)
        )
        work = _rebuild_work(results[n])
        if work:
            out.append(f"  - what the rebuild did: {work}")
    for n in sizes:
        cpu, pages, mb = results[n]["sanitiser"]
        mkdocs_cpu = results[n]["runs"]["mkdocs build --strict"].cpu_s
        out.append(
            f"- {n:,} papers, the page sanitiser (`hooks/sanitize.py`, nh3) over every page's content: "
            f"{cpu:.1f} s CPU for {pages:,} pages ({mb:.0f} MB), {cpu / mkdocs_cpu:.1%} of `mkdocs build --strict`'s "
            "CPU (included in it)"
        )
    for n in sizes:
        runs, now = results[n]["runs"], results[n]["tag_pages"]
        after, before = runs["mkdocs build --strict"], runs[f"{BEFORE}: mkdocs build --strict"]
        out.append(
            f"- {n:,} papers, tag pages: {now:,} with `site.tag_min_papers: 2` (the default) against "
            f"{results[n]['before']['tag_pages']:,} with every tag a page; `mkdocs build --strict` "
            f"{after.wall_s:.1f} s ({after.cpu_s:.1f} s CPU) against {before.wall_s:.1f} s ({before.cpu_s:.1f} s CPU); "
            f"{results[n]['pages']:,} against {results[n]['before']['pages']:,} HTML pages"
        )
    return out


def section(results: dict[int, dict[str, Any]], when: str) -> str:
    table, verdicts = _table(results)
    return "\n".join(
        [
            HEADING,
            "",
            f"Produced by `benchmarks/scale.py` ({when}): synthetic approved papers over {VENUES} venues × the "
            f"{len(config_fields())} fields of `config.yaml`, each command a subprocess: wall time (user + system "
            "CPU time, which other users of a shared machine do not inflate), peak RSS.",
            "",
            table,
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
