"""The File menu reaches the window's FileActions: dialogs, recent MeasurementSets, sessions."""

from __future__ import annotations

from dataclasses import replace

from PyQt6 import QtWidgets

from uvlab.app.lab.imaging import ImagingOptions


def menu_action(menu, text):
    (action,) = [a for a in menu.actions() if a.text() == text]
    return action


def file_menu(window):
    (action,) = [a for a in window.menuBar().actions() if a.text() == "&File"]
    return action.menu()


def test_session_and_png_through_the_file_menu(make_window, small_state, tmp_path, monkeypatch):
    w = make_window(small_state, run_on_start=False)
    session, png = tmp_path / "lab.uvlab.json", tmp_path / "window.png"
    answers = iter([(str(session), ""), (str(png), "")])
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a: next(answers))
    menu = file_menu(w)
    menu_action(menu, "Save session…").trigger()
    assert session.is_file() and "Session saved" in w.statusBar().currentMessage()
    menu_action(menu, "Save window as PNG…").trigger()
    assert png.stat().st_size > 1000

    other = make_window(replace(small_state, imaging=ImagingOptions(npix=64)), run_on_start=False)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a: (str(session), ""))
    menu_action(file_menu(other), "Open session…").trigger()
    assert other.imaging_panel.options().npix == 128
    assert other.settings.recent("session")[0] == str(session)


def test_fits_export_of_an_empty_view_is_refused(make_window, small_state, monkeypatch):
    w = make_window(small_state, run_on_start=False)
    errors = []
    w.report_error = errors.append
    asked = []
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", lambda *a: asked.append(a))
    menu_action(file_menu(w), "Save dirty image as FITS…").trigger()
    assert asked == [] and errors == ["nothing to save: the dirty view is empty"]


def test_recent_menu_and_open_dialog_select_the_ms(make_window, small_state, monkeypatch, tmp_path):
    for name in ("a.ms", "b.ms"):  # folders that look like MeasurementSets (a table.dat)
        (tmp_path / name).mkdir()
        (tmp_path / name / "table.dat").write_bytes(b"")
    w = make_window(small_state, run_on_start=False)
    selected = []
    w.select_ms = selected.append  # the window's part: panel, Play off, run
    monkeypatch.setattr(
        QtWidgets.QFileDialog, "getExistingDirectory", lambda *a: str(tmp_path / "a.ms")
    )
    menu_action(file_menu(w), "Open MeasurementSet…").trigger()
    w.obs_panel.open_ms_requested.emit()  # the panel's button asks the same
    recent = w.files.recent_menu
    assert recent.isEnabled() and [a.text() for a in recent.actions()] == [str(tmp_path / "a.ms")]
    w.files.open_ms(str(tmp_path / "b.ms"))
    assert [a.text() for a in recent.actions()] == [str(tmp_path / n) for n in ("b.ms", "a.ms")]
    recent.actions()[1].trigger()
    assert [s.path for s in selected] == [
        str(tmp_path / n) for n in ("a.ms", "a.ms", "b.ms", "a.ms")
    ]
    assert w.settings.last_dir("ms") == str(tmp_path)
