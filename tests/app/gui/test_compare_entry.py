"""EntryEditor: one compare entry's algorithm and parameters, table lookup included."""

from __future__ import annotations

import pytest

from uvlab.app.gui.compare_entry import EntryEditor
from uvlab.app.gui.compare_panel import ComparePanel
from uvlab.app.lab.compare_task import entry_summary
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.gpu.gridders.registry import ALGORITHMS as GRIDDERS


@pytest.mark.parametrize("name", GRIDDERS)
@pytest.mark.parametrize("kernel_size", ["eps", "support"])
def test_lookup_is_enabled_where_a_kernel_table_is_read(qtbot, name, kernel_size):
    editor = EntryEditor()
    qtbot.addWidget(editor)
    editor.set_options(ImagingOptions(algorithm=name, kernel_size=kernel_size, lookup="linear"))
    want = name in ("conv", "hybrid") and kernel_size == "support"
    assert editor.lookup_combo.isEnabled() == want
    assert editor.options(ImagingOptions()).lookup == "linear"


def test_lookup_round_trips_into_imaging_options(qtbot):
    editor = EntryEditor()
    qtbot.addWidget(editor)
    base = ImagingOptions(npix=64, lookup="nearest")  # the Imaging panel's choice
    editor.set_options(ImagingOptions(algorithm="hybrid", kernel_size="support", support=4))
    assert editor.options(base).lookup == "nearest"
    with qtbot.waitSignal(editor.changed, timeout=1000):
        editor.lookup_combo.setCurrentText("linear")
    got = editor.options(base)
    assert got.lookup == "linear" and got.grid_params().lookup == "linear"
    assert (got.algorithm, got.support, got.npix) == ("hybrid", 4, 64)
    assert "linear" in entry_summary(got)
    # and back: an entry set from options shows their lookup; editing another field keeps it
    editor.set_options(got)
    with qtbot.waitSignal(editor.changed, timeout=1000):
        editor.oversample_spin.setValue(32)
    again = editor.options(base)
    assert again.lookup == "linear" and again.oversample == 32


def test_panel_entries_keep_each_entrys_lookup(qtbot):
    panel = ComparePanel()
    qtbot.addWidget(panel)
    table = dict(algorithm="conv", kernel="es", kernel_size="support", support=5)
    panel.set_entries(
        [ImagingOptions(**table, lookup="nearest"), ImagingOptions(**table, lookup="linear")]
    )
    entries = panel.entries(ImagingOptions(npix=64))
    assert [e.lookup for e in entries] == ["nearest", "linear"]
    assert [e.grid_params().lookup for e in entries] == ["nearest", "linear"]


def test_replaced_entries_are_not_drawn_before_they_are_deleted(qtbot):
    """Entries replaced (a session, Undo) leave the panel's view at once, not when Qt gets
    round to deleting them: the old editors were drawn over the new ones meanwhile."""
    panel = ComparePanel()
    qtbot.addWidget(panel)
    panel.show()
    old = list(panel.editors)
    assert old and all(e.isVisible() for e in old)
    panel.set_algorithms(["conv", "nn"])
    assert not any(e.isVisible() for e in old)  # still there, not yet deleted
    qtbot.waitUntil(lambda: all(e.isVisible() for e in panel.editors))  # the layout shows them
    gone = panel.editors[0]
    panel.add_entry()
    panel.remove_entry(gone)
    assert not gone.isVisible() and gone not in panel.editors
