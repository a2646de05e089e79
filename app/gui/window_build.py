"""Build the main window's controls dock and its menu bar.

The dock holds the control panels as tabs standing on its left edge, with the
run panel below them; the menus are File (open and save), Edit (undo, redo, pin and
reset the lab's state), Run, View (show or hide the controls, bring a view tab to the
front: one action a tab of :data:`~uvlab.app.gui.tabs.VIEW_TABS`, Ctrl+1 …) and Help
(lessons and hints).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.app.gui.lessons_menu import add_lessons_menu
from uvlab.app.gui.panels.fields import make_narrow
from uvlab.app.gui.screen_fit import min_dock_width
from uvlab.app.gui.tabs import VIEW_TABS

if TYPE_CHECKING:
    from uvlab.app.gui.main_window import MainWindow


def build_dock(window: MainWindow) -> tuple[QtWidgets.QTabWidget, QtWidgets.QDockWidget]:
    """Put the window's panels in a *Controls* dock on its left; returns (panel tabs, dock)."""
    panel_tabs = QtWidgets.QTabWidget()
    # five titles do not fit across a laptop's narrow dock: the tabs stand on its left edge,
    # where the dock's height holds them whole
    panel_tabs.setTabPosition(QtWidgets.QTabWidget.TabPosition.West)
    panel_tabs.setUsesScrollButtons(False)
    panel_tabs.tabBar().setElideMode(QtCore.Qt.TextElideMode.ElideRight)
    for panel, title in (
        (window.obs_panel, "Observation"),
        (window.instrument_panel, "Instrument"),  # beam, gains, noise
        (window.sky_panel, "Sky model"),
        (window.imaging_panel, "Imaging"),
    ):
        make_narrow(panel)  # the Compare panel's entries narrow themselves
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(panel)
        panel_tabs.addTab(scroll, title)
        # a narrow dock elides the titles: the whole one on hover
        panel_tabs.setTabToolTip(panel_tabs.count() - 1, title)
    box = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(box)
    lay.setContentsMargins(2, 2, 2, 2)
    lay.addWidget(panel_tabs, 1)
    lay.addWidget(window.run_panel)
    dock = QtWidgets.QDockWidget("Controls")
    dock.setObjectName("controls")
    dock.setWidget(box)
    dock.setFeatures(
        QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
        | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
        | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
    )
    box.setMinimumWidth(min_dock_width(box) + panel_tabs.tabBar().sizeHint().width())
    window.addDockWidget(QtCore.Qt.DockWidgetArea.LeftDockWidgetArea, dock)
    return panel_tabs, dock


def add_action(
    menu: QtWidgets.QMenu, text: str, slot, shortcut: str | None = None
) -> QtGui.QAction:
    """Add an action calling ``slot`` to ``menu``, with an optional shortcut."""
    action = menu.addAction(text)
    action.triggered.connect(slot)
    if shortcut:
        action.setShortcut(QtGui.QKeySequence(shortcut))
    return action


def build_menus(window: MainWindow) -> tuple[QtGui.QAction, QtWidgets.QMenu]:
    """Fill the window's menu bar; returns (the Run action, the Lessons menu)."""
    bar = window.menuBar()
    f = bar.addMenu("&File")
    files = window.files
    add_action(f, "Open MeasurementSet…", files.ask_open_ms, "Ctrl+O")
    files.add_recent_menu(f)
    f.addSeparator()
    add_action(f, "Load sky model…", window.sky_panel._ask_load)
    add_action(f, "Save sky model…", window.sky_panel._ask_save)
    f.addSeparator()
    add_action(f, "Open session…", files.ask_load_session)
    add_action(f, "Save session…", files.ask_save_session, "Ctrl+S")
    f.addSeparator()
    add_action(f, "Save dirty image as FITS…", lambda: files.ask_export_fits())
    add_action(f, "Save window as PNG…", files.ask_screenshot)
    f.addSeparator()
    add_action(f, "Quit", window.close, "Ctrl+Q")
    e = bar.addMenu("&Edit")
    model = window.binding
    add_action(e, "Undo", model.undo, "Ctrl+Z")
    add_action(e, "Redo", model.redo, "Ctrl+Shift+Z")
    e.addSeparator()
    add_action(e, "Reset to the default scene", model.reset)
    e.addSeparator()
    add_action(e, "Pin this state", window.pins.pin, "Ctrl+P")
    add_action(e, "Restore the pinned state", window.pins.restore)
    r = bar.addMenu("&Run")
    # lambdas: triggered(bool) must not reach submit()'s ``task`` argument
    run_action = add_action(r, "Run", lambda: window.controller.submit(), "Ctrl+R")
    add_action(r, "Cancel", lambda: window.controller.cancel(), "Esc")
    add_action(r, "Compute aliasing maps", lambda: window.controller.submit("aliasing"))
    add_action(r, "Compare algorithms", lambda: window.controller.submit("compare"))
    add_action(r, "Clean", lambda: window.controller.submit("clean"), "Ctrl+L")
    v = bar.addMenu("&View")
    toggle = window.dock.toggleViewAction()
    toggle.setText("Controls")
    toggle.setShortcut(QtGui.QKeySequence("F9"))
    toggle.setToolTip("Show or hide the controls (F9): more room for the images")
    v.addAction(toggle)
    from uvlab.app.gui.lecture_layout import LectureLayout

    window.lecture = LectureLayout(window, v)  # Lecture layout, F11, Ctrl+= / Ctrl+−
    v.addSeparator()
    for k, tab in enumerate(VIEW_TABS, start=1):  # the tabs, Ctrl+1 … Ctrl+9, Ctrl+0
        shortcut = f"Ctrl+{k % 10}" if k <= 10 else None
        add_action(v, tab.title, lambda _=False, key=tab.key: window.show_tab(key), shortcut)
    h = bar.addMenu("&Help")
    lessons_menu = add_lessons_menu(h, window.session.load_lesson)
    add_action(h, "Show hints", window.tips.show)
    return run_action, lessons_menu
