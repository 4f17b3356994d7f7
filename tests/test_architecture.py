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


README = LIB.parents[1] / "README.md"


def _architecture_rows() -> list[tuple[str, str]]:
    """(entry, what it holds) of each row of the README's Architecture table: `common/`, `bundle.py`."""
    text = README.read_text()
    section = text[text.index("\n## Architecture"):]
    section = section[:section.index("\n## ", 1)]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 2:
            rows.append((cells[0].strip("`"), cells[1]))
    return rows


def _defined_names(tree: ast.Module) -> set[str]:
    """The names a module defines: its functions, classes and constants, and its classes' methods
    (`init` is a method of the instance)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                names |= {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def _knob_names() -> set[str]:
    import re

    return set(re.findall(r'Knob\("(\w+)"', (LIB / "sweep" / "knobs.py").read_text()))


def _unknown_names(entry: str, holds: str) -> list[str]:
    """The names in backticks in one row that are not of its package: a name with no path or space
    must be a module (or subpackage, or source file) of the package, or a name one of its modules
    defines, or a knob; `module.NAME` a name that module defines; a path must exist."""
    import re

    where = LIB / entry.rstrip("/")
    files = [where] if where.suffix == ".py" else sorted(where.rglob("*.py"))
    modules = {path.stem for path in files} | {path.name for path in where.rglob("*") if where.is_dir()}
    defined_in = {path.stem: _defined_names(ast.parse(path.read_text())) for path in files}
    defined = set().union(*defined_in.values())
    unknown = []
    for name in re.findall(r"`([^`]+)`", holds):
        if " " in name or name == "pagelab" or name.startswith("-") or name.endswith((".json", ".md", ".csv")):
            continue  # a command, an option, a file a sweep writes
        if "/" in name:
            if "<" not in name and not (LIB.parents[1] / name).exists():
                unknown.append(name)
            continue
        module, _, attribute = name.rpartition(".")
        if module and not name.endswith((".py", ".c")):
            if attribute not in defined_in.get(module, ()):
                unknown.append(name)
        elif name not in modules and name not in defined and name not in _knob_names():
            unknown.append(name)
    return unknown


def test_the_readmes_architecture_table_names_what_exists():
    """Each row of the README's Architecture table is an entry of the library's top level, every
    entry has a row, and every module the row names in backticks is one of that package's modules
    (or a name it defines): a module renamed or split shows here until the README says so."""
    rows = _architecture_rows()
    entries = {path.name + ("/" if path.is_dir() else "") for path in LIB.iterdir()
               if (path.suffix == ".py" and path.stem not in ("__init__", "__main__")) or (path / "__init__.py").exists()}
    assert {entry for entry, _ in rows} == entries
    unknown = {entry: names for entry, holds in rows if (names := _unknown_names(entry, holds))}
    assert unknown == {}, f"README.md's Architecture table names what its package lacks: {unknown}"



def test_each_packages_docstring_names_what_exists():
    """A package's docstring lists its modules, as `runs.py` in a column or, in a top-level package,
    in parentheses after what they hold, "(`answer`, `claims`)": each it names so is one of that
    package's (or a name it defines), as in the README's table. Other backticked words (a subpackage's
    arguments and columns) are not read."""
    import re

    unknown = {}
    for init in sorted(LIB.rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        files = re.findall(r"(?<![\w./])(\w+\.py)\b", doc)
        top_level = init.parent.parent == LIB
        listed = [] if not top_level else [name for group in re.findall(r"\(((?:`\w+`(?:,\s+)?)+)[);:]", doc) for name in re.findall(r"`(\w+)`", group)]
        entry = str(init.parent.relative_to(LIB)) + "/"
        named = " ".join(f"`{name}`" for name in files + listed)
        if entry != "./" and (names := _unknown_names(entry, named)):
            unknown[entry] = names
    assert unknown == {}, f"package docstrings name what their package lacks: {unknown}"
