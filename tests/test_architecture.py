"""The shape of the house: import graph, module sizes, folder widths, layering, the map.

Walks every module under interpreter/ (import name ``rulecraft``) and tools/
(``rulecraft.tools``) with ``ast``. Imports at any depth count (module level and
inside functions); relative imports are resolved; ``from pkg import name`` where
``name`` is a submodule counts as importing that submodule, and importing a
submodule counts as importing its package's ``__init__`` too (Python runs it).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = {"interpreter": "rulecraft", "tools": "rulecraft.tools"}
MAX_LINES = 400
MAX_FLAT = 12


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, prefix in TREES.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([prefix, *parts]) if parts else prefix] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not _is_package(module):
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _with_parents(name: str, importer: str) -> set[str]:
    """A module and the packages above it that we own (importing runs them).

    The packages above the importer itself are left out: they are already
    running when the importer runs, so naming them implicitly is no edge.
    """
    out = set()
    parts = name.split(".")
    for i in range(1, len(parts)):
        candidate = ".".join(parts[:i])
        if candidate in MODULES and not importer.startswith(candidate + "."):
            out.add(candidate)
    if name in MODULES:
        out.add(name)
    return out


def _imports(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                targets |= _with_parents(alias.name, module)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            names_only_submodules = True
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in MODULES:
                    targets |= _with_parents(sub, module)
                else:
                    names_only_submodules = False
            if not names_only_submodules:
                # `from pkg import name` runs pkg/__init__ and reads a name from it.
                targets |= _with_parents(source, module)
    targets.discard(module)
    return targets


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Every module's imports, walked once per test process (four tests read it; none changes it)."""
    return {name: _imports(name) for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    item = stack.pop()
                    on_stack.discard(item)
                    component.append(item)
                    if item == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_walker_sees_function_level_and_relative_imports():
    graph = _graph()
    assert "rulecraft.tools.cli.main" in graph
    # Every module is found and parsed; the engine imports something of its own.
    assert any(targets for name, targets in graph.items() if name.startswith("rulecraft.runtime"))


def test_no_import_cycles():
    cycles = _cycles(_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_no_module_over_400_lines():
    big = {
        str(path.relative_to(ROOT)): n
        for path in MODULES.values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert big == {}, f"modules over {MAX_LINES} lines: {big}"


def test_no_folder_over_12_modules_flat():
    wide = {}
    for folder in TREES:
        for directory in [ROOT / folder, *[p for p in (ROOT / folder).rglob("*") if p.is_dir()]]:
            count = len([p for p in directory.glob("*.py") if p.name != "__init__.py"])
            if count > MAX_FLAT:
                wide[str(directory.relative_to(ROOT))] = count
    assert wide == {}, f"folders with more than {MAX_FLAT} modules flat: {wide}"


def test_the_engine_never_imports_the_tools():
    graph = _graph()
    bad = {
        name: sorted(t for t in targets if t.startswith("rulecraft.tools"))
        for name, targets in graph.items()
        if not name.startswith("rulecraft.tools")
    }
    bad = {k: v for k, v in bad.items() if v}
    assert bad == {}, f"engine modules importing tools: {bad}"


def test_the_architecture_page_names_every_package():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = sorted(name for name in MODULES if _is_package(name))
    missing = [name for name in packages if f"`{name}`" not in text]
    assert missing == [], f"docs/architecture.md does not name: {missing}"


def test_the_installed_package_holds_every_package():
    """pyproject.toml lists the packages `pip install .` ships: a package missing there works in the editable
    checkout and is absent from an installed one."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    missing = sorted(name for name in MODULES if _is_package(name) and name not in listed)
    assert missing == [], f"pyproject.toml's packages leave out: {missing}"


def test_the_studio_stands_apart():
    """The studio (tools/studio) sits on top: no module outside it imports it (the command line reaches it by
    name at run time), and its page ships beside it, built."""
    graph = _graph()
    users = sorted(name for name, targets in graph.items()
                   if not name.startswith("rulecraft.tools.studio") and any(t.startswith("rulecraft.tools.studio")
                                                                            for t in targets))
    assert users == []
    static = ROOT / "tools" / "studio" / "static"
    assert {"index.html", "studio.js", "studio.css", "sources.sha256"} <= {p.name for p in static.iterdir()}


def test_the_architecture_page_names_every_module_in_its_package_row():
    """Each module is named (`module`) in the row of its package in docs/architecture.md's table: the map says
    what every module is, so a newcomer finds it there."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {line.split("`")[1]: line for line in text.splitlines() if line.startswith("| `rulecraft")}
    missing = []
    for name in MODULES:
        if _is_package(name):
            continue
        package, short = name.rsplit(".", 1)
        if f"`{short}`" not in rows.get(package, ""):
            missing.append(name)
    assert missing == [], f"docs/architecture.md's row of each package does not name: {missing}"

