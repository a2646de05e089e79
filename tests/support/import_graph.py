"""uvlab's import graph read from the source with :mod:`ast`, and its cycles.

Every ``import`` and ``from … import`` anywhere in a module (functions and
``TYPE_CHECKING`` blocks too) is an edge to the module it names: a cycle held
off by an import inside a function still ties the two modules together (each
needs the other loaded to run). The parent packages an import loads
implicitly are not edges.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.support.paths import REPO

#: Top-level packages: dotted name → folder (pyproject's package-dir).
PACKAGES = {"uvlab.app": REPO / "app", "uvlab.gpu": REPO / "gpu", "uvlab.widgets": REPO / "widgets"}


def modules(package: str | None = None) -> dict[str, Path]:
    """Module name → source file, of one top-level package or of all of :data:`PACKAGES`."""
    out = {}
    for name, root in PACKAGES.items():
        if package not in (None, name):
            continue
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([name, *parts])] = path
    return out


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that a module's source imports, at any depth."""
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


def import_graph(package: str | None = None) -> dict[str, set[str]]:
    """Module → the modules it imports (within ``package``, or all of uvlab).

    The sources are parsed once per process (the tests do not change them), a
    package's graph being the whole graph's restriction to it; each call gets its own
    copy.
    """
    graph = _graph()
    if package is None:
        return {name: set(targets) for name, targets in graph.items()}
    inside = set(modules(package))
    return {name: set(graph[name] & inside) for name in graph if name in inside}


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    mods = modules()
    known = set(mods)
    return {
        name: frozenset(
            imported(ast.parse(path.read_text()), name, path.name == "__init__.py", known)
        )
        for name, path in mods.items()
    }


def package_graph(graph: dict[str, set[str]], parent: str) -> dict[str, set[str]]:
    """The imports between the subpackages (and modules) directly under ``parent``."""

    def child(module: str) -> str | None:
        if not module.startswith(parent + "."):
            return None
        return ".".join(module.split(".")[: parent.count(".") + 2])

    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        if (src := child(module)) is None:
            continue
        out.setdefault(src, set())
        for target in targets:
            if (dst := child(target)) is not None and dst != src:
                out[src].add(dst)
                out.setdefault(dst, set())
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node, each sorted (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)
