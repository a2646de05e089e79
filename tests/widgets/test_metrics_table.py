"""MetricsTable: the numbers appear, formatted, one row per algorithm."""

from __future__ import annotations

import math

from PyQt6 import QtCore

from uvlab.widgets.metrics_table import MetricsTable, fit_widths

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


def test_fit_widths_fill_the_room_the_widest_giving_way_first():
    want, floor = [100, 50, 60, 120], [40, 50, 60, 110]
    assert fit_widths(want, floor, 400) == [100, 50, 60, 190]  # roomy: surplus to the last
    cramped = fit_widths(want, floor, 300)
    assert sum(cramped) <= 300 and all(w >= f for w, f in zip(cramped, floor))
    assert cramped == [80, 50, 60, 110]  # the widest cut to one cap, none below its floor
    tight = fit_widths(want, floor, 200)  # the floors alone too wide: scaled from them
    assert tight == [30, 38, 46, 86] and sum(tight) == 200


def test_columns_fit_a_narrow_table_names_elided_with_tooltips(qtbot):
    t = MetricsTable()
    qtbot.addWidget(t)
    long = "nn-oversampled (ES, ε=1e-05) #2"
    t.set_metrics({"conv": {"rms_full": 1.5e-5, "backend": "NumPy"}, long: {"rms_full": 0.2}})
    natural = t.natural_widths()
    t.resize(sum(natural) - 60 + 2 * t.frameWidth(), 120)
    t.show()
    qtbot.waitUntil(lambda: t.horizontalHeader().length() <= t.viewport().width())
    widths = [t.columnWidth(c) for c in range(t.columnCount())]
    assert widths[2] >= natural[2]  # the numbers whole: the name gave way
    assert widths[0] < natural[0] and t.item(1, 0).toolTip() == long
    assert t.item(0, 2).toolTip().startswith("1.50e-05")
    assert not t.horizontalScrollBar().isVisible()
