"""The library's layers: every import points down (or sideways), and nothing imports in a circle."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib" / "pagelab"

# From the bottom up; a package may import its own layer or any below, never above. The layer of
# a module is that of its top-level package (pagelab.tpcc.driver -> tpcc). The README's
# architecture section describes the same layers.
LAYERS = (
    {"pagelab", "common"},                      # errors, sizes, paths, whole-file writes, locks
    {"parse", "storage", "evidence"},           # pure: text -> rows, the prototype, the statistics
    {"mysql"},                                  # private server instances
    {"tpcc", "machine"},                        # TPC-C schema/data/driver; the machine's facts
    {"monitor", "models"},                      # samplers on the run's clock; block-size model
    {"bundle"},                                 # a sweep's files, read back
    {"report"},                                 # figures, lab report, notebook -> PDF
    {"workloads"},                              # the other references' experiments
    {"sweep"},                                  # the Week 4 lab's sweep: knobs, plan, runs, executors
    {"cli", "__main__"},
)
LAYER_OF = {package: index for index, layer in enumerate(LAYERS) for package in layer}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(LIB.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "pagelab"


def imports(top_level_only: bool) -> dict[str, set[str]]:
    """Module -> the pagelab modules it imports (at load time only, if `top_level_only`)."""
    graph: dict[str, set[str]] = defaultdict(set)
    modules = {module_name(path) for path in LIB.rglob("*.py")}
    for path in LIB.rglob("*.py"):
        tree = ast.parse(path.read_text())
        nodes = tree.body if top_level_only else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pagelab"):
                # `from package import submodule` imports the submodule, not the package's names
                for alias in node.names:
                    submodule = f"{node.module}.{alias.name}"
                    graph[module_name(path)].add(submodule if submodule in modules else node.module)
            elif isinstance(node, ast.Import):
                graph[module_name(path)].update(a.name for a in node.names if a.name.startswith("pagelab"))
    return graph


def test_every_package_has_a_layer():
    packages = {package(module_name(path)) for path in LIB.rglob("*.py")}
    assert packages <= set(LAYER_OF), f"give these a layer: {sorted(packages - set(LAYER_OF))}"


def test_no_import_points_up():
    upward = sorted(f"{source} imports {target}" for source, targets in imports(top_level_only=False).items()
                    for target in targets if LAYER_OF[package(target)] > LAYER_OF[package(source)])
    assert upward == []


def test_no_circle_between_packages():
    graph: dict[str, set[str]] = defaultdict(set)
    for source, targets in imports(top_level_only=False).items():
        graph[package(source)].update(package(t) for t in targets if package(t) != package(source))
    assert _cycle(graph) is None


def test_no_circle_between_modules_at_load_time():
    graph = {source: {t for t in targets if t != source} for source, targets in imports(top_level_only=True).items()}
    assert _cycle(graph) is None


def test_no_circle_between_modules_counting_imports_inside_functions():
    """An import inside a function hides a circle from Python's loader, not from the design."""
    graph = {source: {t for t in targets if t != source and not _is_parent(t, source)}
             for source, targets in imports(top_level_only=False).items()}
    assert _cycle(graph) is None


def _is_parent(package_name: str, module: str) -> bool:
    """`pagelab.tpcc` for `pagelab.tpcc.driver`: a package's __init__ may name its own modules."""
    return module.startswith(package_name + ".")


def test_the_top_level_stays_short():
    """A newcomer reads the library's layout from ≤ 16 entries, each with a docstring saying what it holds."""
    entries = [path for path in LIB.iterdir() if path.suffix == ".py" or (path / "__init__.py").exists()]
    assert len(entries) <= 16, sorted(path.name for path in entries)
    undocumented = [path.name for path in entries
                    if ast.get_docstring(ast.parse((path / "__init__.py" if path.is_dir() else path).read_text())) is None]
    assert undocumented == []


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of nodes, or None (depth-first search, three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for following in sorted(graph.get(node, ())):
            if state.get(following) == 1:
                return stack[stack.index(following):] + [following]
            if following not in state:
                found = visit(following)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_command_line_and_a_run_start_without_the_statistics_libraries():
    """`pagelab`, `pagelab sweep` and every run's kernel import the knobs, the orchestrator and the
    CLI's help, which name constants of pagelab.evidence; scipy.stats and statsmodels (2-4 s to
    import on the 2-core machine) load only where a statistic is computed."""
    import subprocess
    import sys

    code = ("import sys, pagelab.cli, pagelab.sweep.experiment, pagelab.sweep.orchestrator, pagelab.evidence\n"
            "pagelab.evidence.DEFAULT_EQUIVALENCE_PCT\n"
            "print(sorted(m for m in sys.modules if m.startswith(('scipy.stats', 'statsmodels'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
