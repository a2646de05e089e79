"""The sky table editor: units, invalid rows, files, and the app surviving a bad file."""

from __future__ import annotations

import pytest

from uvlab.app.gui.panels.sky_cells import COLUMNS, component_cells
from uvlab.app.gui.panels.sky_panel import SkyPanel
from uvlab.app.skymodel import Component, SkyModel, read_sky


@pytest.fixture
def panel(qtbot):
    p = SkyPanel()
    qtbot.addWidget(p)
    p.set_sky_model(SkyModel((Component("a", "point", 10.0, -30.0, (1.0, 0, 0, 0), 1.4e9),)))
    return p


def test_headers_carry_units_and_cells_round_trip(panel):
    headers = [panel.table.horizontalHeaderItem(k).text() for k in range(len(COLUMNS))]
    assert "I (Jy)" in headers and "ν₀ (MHz)" in headers and "Major (″)" in headers
    c = Component("g", "gaussian", 1.25, -2.5, (2.0, 0.1, -0.1, 0.0), 1.5e8, -0.8, 30.0, 10.0, 45)
    assert component_cells(c)[9] == "150"  # MHz
    from uvlab.app.gui.panels.sky_cells import component_from_cells

    assert component_from_cells(component_cells(c)) == c


def test_invalid_edit_is_marked_and_not_accepted(panel, qtbot):
    errors = []
    panel.error.connect(errors.append)
    before = panel.sky_model()
    panel.table.item(0, 11).setText("5")  # minor 5″ > major 0″ of a point
    assert panel.row_is_invalid(0) and panel.sky_model() == before
    assert errors and "row 1" in errors[-1]
    panel.table.item(0, 11).setText("0")
    with qtbot.waitSignal(panel.changed, timeout=1000):
        panel.table.item(0, 4).setText("2.5")
    assert not panel.row_is_invalid(0) and panel.sky_model()[0].stokes[0] == 2.5


def test_save_and_load(panel, tmp_path):
    path = tmp_path / "sky.txt"
    assert panel.save_file(path)
    assert read_sky(path) == panel.sky_model()
    panel.remove_selected()
    assert len(panel.sky_model()) == 0
    assert panel.load_file(path) and len(panel.sky_model()) == 1


def test_bad_sky_file_gives_an_error_and_the_app_keeps_working(
    make_window, small_state, wait_result, tmp_path
):
    w = make_window(small_state)
    wait_result(w)
    bad = tmp_path / "bad.txt"
    bad.write_text("# uvlab sky model v1\nsrc point 10 -30 1 0 0 0 0 1.4e9 0 0\n")
    before = w.sky_panel.sky_model()
    assert not w.sky_panel.load_file(bad)
    message = w.statusBar().currentMessage()
    assert "cannot load sky model" in message and "bad.txt, line 2" in message
    assert w.sky_panel.sky_model() == before
    w.sky_panel.demo_combo.setCurrentText("pair")
    w.sky_panel.demo_button.click()  # the next edit still runs
    out = wait_result(w).output
    assert out.nsrc == 2 and "Done" in w.statusBar().currentMessage()


def test_narrow_table_shows_the_brief_columns_until_asked(qtbot):
    from uvlab.app.gui.panels.sky_cells import BRIEF_COLUMNS, COLUMNS
    from uvlab.app.gui.panels.sky_panel import SkyPanel

    panel = SkyPanel()
    qtbot.addWidget(panel)
    shown = [f for k, (f, _, _) in enumerate(COLUMNS) if not panel.table.isColumnHidden(k)]
    assert shown == list(BRIEF_COLUMNS)
    panel.all_columns_check.setChecked(True)
    assert not any(panel.table.isColumnHidden(k) for k in range(len(COLUMNS)))
    panel.show_all_columns(False)
    assert not panel.all_columns_check.isChecked()
