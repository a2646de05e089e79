"""The Imaging panel and the compare entries list the algorithm catalogue.

Names, order, tooltips and the parameter widgets each algorithm enables all
come from :mod:`uvlab.gpu.gridders.registry`.
"""

import pytest
from PyQt6.QtCore import Qt

from uvlab.app.gui.compare_entry import EntryEditor
from uvlab.app.gui.compare_panel import ComparePanel
from uvlab.app.gui.panels.imaging_panel import ImagingPanel, enabled_params
from uvlab.app.lab.imaging import ALGORITHMS as JOB_ALGORITHMS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.gpu.gridders.registry import ALGORITHMS, CATALOGUE, COMPARED, NAMES

#: The parameter widgets each algorithm reads, as the panel listed them before the catalogue.
WIDGETS = {
    "dft": set(),
    "conv": {"kernel", "accuracy", "oversample", "padding"},
    "nn": set(),
    "nn-oversampled": {"oversample"},
    "hybrid": {"kernel", "accuracy", "oversample", "padding"},
    "pruned-nn": {"oversample"},
}


def items(combo) -> tuple[str, ...]:
    return tuple(combo.itemData(k) for k in range(combo.count()))


def test_panel_lists_the_catalogue_with_its_summaries(qtbot):
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    assert items(panel.algorithm_combo) == NAMES
    for k, name in enumerate(NAMES):
        tip = panel.algorithm_combo.itemData(k, Qt.ItemDataRole.ToolTipRole)
        assert tip == CATALOGUE[name].summary


def test_compare_entries_list_the_gridders(qtbot):
    editor = EntryEditor()
    qtbot.addWidget(editor)
    assert items(editor.algorithm_combo) == ALGORITHMS
    panel = ComparePanel()
    qtbot.addWidget(panel)
    assert tuple(ed.algorithm() for ed in panel.editors) == COMPARED


def test_the_jobs_accept_every_catalogue_name():
    assert JOB_ALGORITHMS == NAMES
    for name in NAMES:
        assert ImagingOptions(algorithm=name).algorithm == name


@pytest.mark.parametrize("name", WIDGETS)
def test_enabled_params_are_those_of_before_the_catalogue(name):
    assert enabled_params(name, by_eps=False) == WIDGETS[name]
    # an ε-chosen kernel is evaluated exactly: β counts only where it sizes a grid
    want = WIDGETS[name] - ({"oversample"} if name == "conv" else set())
    assert enabled_params(name, by_eps=True) == want


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("accuracy", ["eps", "support"])
def test_panel_and_entry_enable_the_same_widgets(qtbot, name, accuracy):
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    panel.set_options(ImagingOptions(algorithm=name, kernel_size=accuracy))
    want = enabled_params(name, accuracy == "eps")
    shown = {
        "kernel": panel.kernel_combo,
        "accuracy": panel.accuracy_combo,
        "oversample": panel.oversample_spin,
        "padding": panel.padding_spin,
    }
    assert {k for k, w in shown.items() if w.isEnabled()} == want
    assert panel.eps_edit.isEnabled() == ("accuracy" in want and accuracy == "eps")
    if name == "dft":
        return
    editor = EntryEditor()
    qtbot.addWidget(editor)
    editor.set_options(ImagingOptions(algorithm=name, kernel_size=accuracy))
    shown = {
        "kernel": editor.kernel_combo,
        "accuracy": editor.accuracy_combo,
        "oversample": editor.oversample_spin,
        "padding": editor.padding_spin,
    }
    assert {k for k, w in shown.items() if w.isEnabled()} == want
