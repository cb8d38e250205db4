"""The package's shape holds: imports run one way (apps → pipeline → stages → core), no cycle anywhere,
stages print nothing.

Every ``import`` and ``from … import`` of the package's own modules counts, inside functions too.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "summarizer"
STAGES = ("fetch", "summarize", "review", "site")
# Each layer imports only the layers after it (and itself); ``testing`` (the demo's stand-ins) only the core.
LAYERS = ("apps", "pipeline", "stages", "core")


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(module: str) -> set[str]:
    """The package's own modules ``module`` imports (a package counts when its ``__init__`` is named)."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = module.split(".")
            if node.level:
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module:
                out.add(name)
    return out


GRAPH = {module: _imports(module) for module in MODULES}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (module → what it imports), or [] when there is none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return list(error.args[1])
    return []


def test_no_import_cycle_between_modules() -> None:
    assert _cycle(GRAPH) == []


def test_no_import_cycle_between_packages() -> None:
    packages: dict[str, set[str]] = {}
    for module, imported in GRAPH.items():
        packages.setdefault(_top(module), set()).update(
            _top(other) for other in imported if _top(other) != _top(module)
        )
    assert _cycle(packages) == []


def _layer(module: str) -> str:
    top = _top(module)
    if top == "__main__":  # ``python -m summarizer`` is the command line
        return "apps"
    return "stages" if top in STAGES else top


def test_imports_run_from_the_apps_through_the_pipeline_and_the_stages_to_the_core() -> None:
    wrong = []
    for module, imported in GRAPH.items():
        here = _layer(module)
        for other in imported:
            there = _layer(other)
            if here == "testing" or there == "testing":
                if here == "testing" and there not in ("testing", "core", ""):
                    wrong.append(f"{module} (a stand-in) imports {other}")
                elif there == "testing" and here not in ("testing", "apps"):
                    wrong.append(f"{module} imports a stand-in ({other})")
            elif here in LAYERS and there in LAYERS and LAYERS.index(there) < LAYERS.index(here):
                wrong.append(f"{module} ({here}) imports {other} ({there}), a layer above it")
            elif here == "stages" and there == "stages" and _top(module) != _top(other):
                wrong.append(f"{module} imports another stage's {other}")
    assert wrong == []


def test_every_module_belongs_to_a_layer() -> None:
    assert {_layer(m) for m in MODULES} <= {*LAYERS, "testing", ""}


def test_stages_and_the_core_print_nothing() -> None:
    printing = []
    for module, path in MODULES.items():
        if _layer(module) not in ("stages", "pipeline", "core"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                printing.append(f"{module}:{node.lineno}")
        if any(other.startswith("summarizer.apps.cli") for other in GRAPH[module]):
            printing.append(f"{module} imports the terminal module")
        if _imports_a_terminal_library(path):
            printing.append(f"{module} imports click or rich")
    assert printing == []


def _imports_a_terminal_library(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in ("click", "rich") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("click", "rich"):
            return True
    return False


def test_the_layout_stays_small_enough_to_read() -> None:
    top = sorted(p.name for p in PACKAGE.iterdir() if p.name not in ("__pycache__", "__init__.py", "__main__.py"))
    assert len(top) <= 8, top
    long_modules = [f"{m} ({n})" for m, p in MODULES.items() if (n := len(p.read_text("utf-8").splitlines())) > 400]
    assert long_modules == []
    long_functions = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 50:
                long_functions.append(f"{module}.{node.name}")
    assert long_functions == []
