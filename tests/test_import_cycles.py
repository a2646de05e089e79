"""No import cycles in uvlab: none between modules, none between uvlab.gpu's packages.

The graph is :mod:`tests.support.import_graph`'s, read from the source: an import
inside a function or a ``TYPE_CHECKING`` block is an edge too. The cycles in
:data:`KNOWN` are being taken apart elsewhere; a cycle found must lie inside one
of them (so none may grow), and a known one that is gone must leave the list.
"""

from __future__ import annotations

from tests.support.import_graph import cycles, import_graph, package_graph

#: Cycles being removed in other branches (each a set of modules or packages).
KNOWN = [
    # the window's helpers name MainWindow for typing only (TYPE_CHECKING): they go with
    # the mixins when the window's model (app/lab/state.LabModel) takes their state
    {
        "uvlab.app.gui.main_window",
        "uvlab.app.gui.window_build",
        "uvlab.app.gui.lecture_layout",
        "uvlab.app.gui.figure_actions",
    },
]


def _unexpected(found: list[list[str]]) -> list[list[str]]:
    return [c for c in found if not any(set(c) <= known for known in KNOWN)]


def _all_cycles() -> list[list[str]]:
    graph = import_graph()
    return cycles(graph) + cycles(package_graph(graph, "uvlab.gpu"))


def test_cycles_are_found_in_a_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    modules = {"p.x.m": {"p.y.n"}, "p.y.n": {"p.x.k"}, "p.x.k": set(), "p.z": {"p.x.m"}}
    assert package_graph(modules, "p") == {"p.x": {"p.y"}, "p.y": {"p.x"}, "p.z": {"p.x"}}
    assert cycles(package_graph(modules, "p")) == [["p.x", "p.y"]]


def test_the_graph_holds_function_level_and_type_checking_imports():
    graph = import_graph()
    # imager imports the catalogue inside a function; jobs names CleanOptions for typing only
    assert "uvlab.gpu.gridders.registry" in graph["uvlab.gpu.imaging.imager"]
    assert "uvlab.gpu.deconvolution.options" in graph["uvlab.app.lab.jobs"]
    assert "uvlab.widgets.image_view" in graph["uvlab.widgets.image_links"]


def test_no_module_imports_back_a_module_that_imports_it():
    unexpected = _unexpected(_all_cycles())
    assert not unexpected, "import cycles: " + "; ".join(" ↔ ".join(c) for c in unexpected)


def test_every_known_cycle_is_still_there():
    found = _all_cycles()
    gone = [sorted(k) for k in KNOWN if not any(set(c) <= k for c in found)]
    assert not gone, f"no longer cycles, remove them from KNOWN: {gone}"
