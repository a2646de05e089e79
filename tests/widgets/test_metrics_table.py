"""MetricsTable: the numbers appear, formatted, one row per algorithm."""

from __future__ import annotations

import math

from PyQt6 import QtCore

from uvlab.widgets.metrics_table import MetricsTable

METRICS = {
    "conv": {
        "rms_central": 1.234e-6,
        "rms_full": 3.4e-5,
        "max_error": 2e-4,
        "rate_vis_per_s": 6.5e8,
    },
    "nn": {"rms_full": 0.0312, "max_error": 0.2, "rate_vis_per_s": math.nan, "support": 1},
}


def cell(table, r, c):
    return table.item(r, c).text()


def test_cells_show_formatted_numbers(qtbot):
    t = MetricsTable()
    qtbot.addWidget(t)
    t.set_metrics(METRICS)
    assert t.metric_keys() == ["rms_central", "rms_full", "max_error", "rate_vis_per_s", "support"]
    assert t.rowCount() == 2 and t.columnCount() == 6
    assert [cell(t, r, 0) for r in range(2)] == ["conv", "nn"]
    assert [cell(t, 0, c) for c in range(1, 5)] == ["1.23e-06", "3.40e-05", "2.00e-04", "650 M"]
    assert [cell(t, 1, c) for c in range(1, 6)] == ["", "0.0312", "0.2", "—", "1"]
    assert t.horizontalHeaderItem(4).text() == "rate\n(vis/s)"  # two lines: a narrow column
    assert t.item(0, 1).data(QtCore.Qt.ItemDataRole.UserRole) == 1.234e-6


def test_sorting_by_number_not_text(qtbot):
    t = MetricsTable()
    qtbot.addWidget(t)
    t.set_metrics({"a": {"max_error": 2e-3}, "b": {"max_error": 1e-5}, "c": {"max_error": 0.5}})
    assert [cell(t, r, 0) for r in range(3)] == ["a", "b", "c"]  # given order kept
    t.sortItems(1, QtCore.Qt.SortOrder.AscendingOrder)
    assert [cell(t, r, 0) for r in range(3)] == ["b", "a", "c"]
