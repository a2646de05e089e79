"""No import cycles inside uvlab.gpu, function-level imports included.

A cycle held off by an import inside a function still ties the two modules
together (each needs the other loaded to run); uvlab.gpu passes plans and
functions down instead (the catalogue binds its CUDA path to its record,
conv hands wstack its plans). The graph is read from the source with
:mod:`ast`: every ``import`` and ``from … import`` anywhere in a module
(functions and ``TYPE_CHECKING`` blocks too) is an edge to the module it
names; the parent packages an import loads implicitly are not edges.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

GPU = REPO / "gpu"
PACKAGE = "uvlab.gpu"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(GPU).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(GPU.rglob("*.py"))}


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The uvlab.gpu modules a module's source imports, at any depth."""
    out: set[str] = set()
    here = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = here.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # ``from pkg import sub`` imports the submodule; ``from mod import f`` the module
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {
        name: imported(ast.parse(path.read_text()), name, path.name == "__init__.py", known)
        for name, path in mods.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a closed path of module names, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_graph_sees_function_level_and_package_imports():
    graph = import_graph()
    assert "uvlab.gpu.gridders.conv" in graph["uvlab.gpu.gridders.registry"]
    assert "uvlab.gpu.imaging.dft" in graph["uvlab.gpu.gridders.registry"]
    # imager imports the catalogue inside a function
    assert "uvlab.gpu.gridders.registry" in graph["uvlab.gpu.imaging.imager"]
    assert "uvlab.gpu.ducc_engine" in graph["uvlab.gpu.gridders.conv"]


def test_a_function_level_import_back_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    tree = ast.parse("def f():\n    from uvlab.gpu.gridders import registry\n")
    known = {"uvlab.gpu.gridders.registry", "uvlab.gpu.gridders.cuda_rules"}
    found = imported(tree, "uvlab.gpu.gridders.cuda_rules", False, known)
    assert found == {"uvlab.gpu.gridders.registry"}


def test_no_module_of_uvlab_gpu_imports_back_a_module_that_imports_it():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])


def test_only_the_ducc_engine_imports_ducc0():
    users = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n.split(".")[0] == "ducc0" for n in names):
                users.append(name)
    assert set(users) == {"uvlab.gpu.ducc_engine"}
