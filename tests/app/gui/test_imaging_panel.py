"""The Imaging panel and the compare entries list the algorithm catalogue.

Names, order, tooltips and the parameter widgets each algorithm enables all
come from :mod:`uvlab.gpu.gridders.registry`.
"""

import pytest
from PyQt6.QtCore import Qt

from uvlab.app.gui.compare_entry import EntryEditor
from uvlab.app.gui.compare_panel import ComparePanel
from uvlab.app.gui.panels.gridder_fields import enabled_params
from uvlab.app.gui.panels.imaging_panel import ImagingPanel
from uvlab.app.lab.imaging import ALGORITHMS as JOB_ALGORITHMS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.gpu.gridders.registry import ALGORITHMS, CATALOGUE, COMPARED, NAMES

#: The parameter widgets each algorithm reads, as the panel listed them before the catalogue.
WIDGETS = {
    "dft": set(),
    "conv": {"kernel", "kernel_size", "oversample", "sigma"},
    "nn": set(),
    "nn-oversampled": {"oversample"},
    "hybrid": {"kernel", "kernel_size", "oversample", "sigma"},
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
@pytest.mark.parametrize("kernel_size", ["eps", "support"])
def test_panel_and_entry_enable_the_same_widgets(qtbot, name, kernel_size):
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    panel.set_options(ImagingOptions(algorithm=name, kernel_size=kernel_size))
    want = enabled_params(name, kernel_size == "eps")
    shown = {
        "kernel": panel.kernel_combo,
        "kernel_size": panel.kernel_size_combo,
        "oversample": panel.oversample_spin,
        "sigma": panel.sigma_spin,
    }
    assert {k for k, w in shown.items() if w.isEnabled()} == want
    assert panel.eps_edit.isEnabled() == ("kernel_size" in want and kernel_size == "eps")
    if name == "dft":
        return
    editor = EntryEditor()
    qtbot.addWidget(editor)
    editor.set_options(ImagingOptions(algorithm=name, kernel_size=kernel_size))
    shown = {
        "kernel": editor.kernel_combo,
        "kernel_size": editor.kernel_size_combo,
        "oversample": editor.oversample_spin,
        "sigma": editor.sigma_spin,
    }
    assert {k for k, w in shown.items() if w.isEnabled()} == want


@pytest.mark.parametrize("make", [ImagingPanel, EntryEditor])
def test_widgets_are_named_for_the_record_fields(qtbot, make):
    """Each field shown has a widget ``<field>_{spin,combo,edit}`` (units dropped from the name)."""
    from dataclasses import fields

    from uvlab.app.gui.compare_entry import ENTRY_FIELDS

    widget = make()
    qtbot.addWidget(widget)
    names = [f.name for f in fields(ImagingOptions)] if make is ImagingPanel else ENTRY_FIELDS
    for name in names:
        stem = name.removesuffix("_arcsec")
        found = [s for s in ("spin", "combo", "edit") if hasattr(widget, f"{stem}_{s}")]
        assert len(found) == 1, name
    for old in ("accuracy_combo", "padding_spin"):
        assert not hasattr(widget, old)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kernel_size", ["eps", "support"])
def test_table_lookup_is_offered_for_a_kernel_table_only(qtbot, name, kernel_size):
    """conv and hybrid read a table when the support is given; ε evaluates the kernel exactly."""
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    panel.set_options(ImagingOptions(algorithm=name, kernel_size=kernel_size, lookup="linear"))
    want = name in ("conv", "hybrid") and kernel_size == "support"
    assert panel.lookup_combo.isEnabled() == want
    assert panel.options().lookup == "linear"
    with qtbot.waitSignal(panel.changed, timeout=1000):
        panel.lookup_combo.setCurrentText("nearest")
    assert panel.options().lookup == "nearest"


@pytest.mark.parametrize("scale", [1.000023457, 0.999981, 1.05])  # LSRK-like, and the record's
def test_density_scale_edits_the_record_and_shows_it(qtbot, scale):
    """``ImagingOptions.density_scale``'s spin box (every record field has its widget)."""
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.changed):
        panel.density_scale_spin.setValue(scale)
    assert panel.options().density_scale == scale
    assert panel.options().weighting_spec().density_scale == scale  # what the gridder reads
    panel.set_options(ImagingOptions(weighting="uniform", density_scale=1.0))
    assert panel.options().density_scale == 1.0
    shown = ImagingOptions(weighting="briggs", density_scale=scale)
    panel.set_options(shown)  # a session's value, shown and given back
    assert panel.options() == shown


def test_density_cells_and_padding_edit_the_record_and_show_it(qtbot):
    """``density_cells`` and ``density_padding``: WSClean's cells from the window, the
    padding offered only with them."""
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    assert panel.options().density_cells == "casa" and not panel.density_padding_spin.isEnabled()
    with qtbot.waitSignal(panel.changed):
        panel.density_cells_combo.setCurrentText("WSClean cells")
    assert panel.density_padding_spin.isEnabled()
    with qtbot.waitSignal(panel.changed):
        panel.density_padding_spin.setValue(1.5)
    spec = panel.options().weighting_spec()  # what the gridder reads
    assert (spec.density_cells, spec.density_padding) == ("wsclean", 1.5)
    shown = ImagingOptions(weighting="uniform", density_cells="wsclean", density_padding=2.0)
    panel.set_options(shown)  # a session's value, shown and given back
    assert panel.options() == shown
    panel.set_options(ImagingOptions())
    assert panel.options().density_cells == "casa" and not panel.density_padding_spin.isEnabled()


def test_super_weight_and_rank_filter_edit_the_record_and_show_it(qtbot):
    """WSClean's super weight and rank filter from the window (the filter off, its window
    not offered, by default); a level below 1 is refused with the spin box marked."""
    panel = ImagingPanel()
    qtbot.addWidget(panel)
    wt = panel.options().weighting_spec()
    assert (wt.super_weight, wt.rank_filter) == (1.0, 0.0)
    assert not panel.rank_filter_size_spin.isEnabled()
    with qtbot.waitSignal(panel.changed):
        panel.rank_filter_spin.setValue(3.0)
    assert panel.rank_filter_size_spin.isEnabled()
    with qtbot.waitSignal(panel.changed):
        panel.rank_filter_size_spin.setValue(9)
    with qtbot.waitSignal(panel.changed):
        panel.super_weight_spin.setValue(2.0)
    spec = panel.options().weighting_spec()  # what the gridder reads
    assert (spec.super_weight, spec.rank_filter, spec.rank_filter_size) == (2.0, 3.0, 9)
    shown = ImagingOptions(weighting="briggs", super_weight=1.5, rank_filter=2.0,
                           rank_filter_size=5)  # fmt: skip
    panel.set_options(shown)  # a session's value, shown and given back
    assert panel.options() == shown
    with qtbot.waitSignal(panel.error):
        panel.rank_filter_spin.setValue(0.5)
    assert "rank filter level" in panel.message.text()
