"""No import cycles inside uvlab.gpu, function-level imports included; ducc0 in one module.

A cycle held off by an import inside a function still ties the two modules
together (each needs the other loaded to run); uvlab.gpu passes plans and
functions down instead (the catalogue binds its CUDA path to its record,
conv hands wstack its plans). The graph is :mod:`tests.support.import_graph`'s;
tests/test_import_cycles.py checks all of uvlab and the packages of uvlab.gpu.
"""

from __future__ import annotations

import ast

from tests.support.import_graph import cycles, import_graph, imported, modules

PACKAGE = "uvlab.gpu"


def test_the_graph_sees_function_level_and_package_imports():
    graph = import_graph(PACKAGE)
    assert "uvlab.gpu.gridders.conv" in graph["uvlab.gpu.gridders.registry"]
    assert "uvlab.gpu.gridders.dft" in graph["uvlab.gpu.gridders.registry"]
    # imager imports the catalogue inside a function
    assert "uvlab.gpu.gridders.registry" in graph["uvlab.gpu.imaging.imager"]
    assert "uvlab.gpu.ducc_engine" in graph["uvlab.gpu.gridders.ducc"]


def test_a_function_level_import_back_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    tree = ast.parse("def f():\n    from uvlab.gpu.gridders import registry\n")
    known = {"uvlab.gpu.gridders.registry", "uvlab.gpu.gridders.cuda_rules"}
    found = imported(tree, "uvlab.gpu.gridders.cuda_rules", False, known)
    assert found == {"uvlab.gpu.gridders.registry"}


def test_no_module_of_uvlab_gpu_imports_back_a_module_that_imports_it():
    found = cycles(import_graph(PACKAGE))
    assert not found, "import cycles: " + "; ".join(" ↔ ".join(c) for c in found)


def test_only_the_ducc_engine_imports_ducc0():
    users = []
    for name, path in modules(PACKAGE).items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n.split(".")[0] == "ducc0" for n in names):
                users.append(name)
    assert set(users) == {"uvlab.gpu.ducc_engine"}
