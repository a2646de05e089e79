"""Compare mode from ``uvlab gui``: ``--compare`` and ``--tab``, the View menu's one tab list,
and a screenshot that waits for the comparison."""

from __future__ import annotations

import argparse

import pytest
from PyQt6 import QtCore, QtGui

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions


def parse(*argv):
    from uvlab.app.commands import gui

    parser = argparse.ArgumentParser()
    gui.register(parser.add_subparsers())
    return parser.parse_args(["gui", *argv])


def test_the_view_tabs_menu_and_show_tab_follow_one_list(make_window, small_state):
    """The tab list in one place: the tabs, the View menu, show_tab and ``gui --tab``."""
    from uvlab.app.gui.tabs import VIEW_TABS

    w = make_window(small_state, run_on_start=False)
    titles = [w.views.tabText(k) for k in range(w.views.count())]
    assert titles == [t.title for t in VIEW_TABS]  # Compare inserted by compare mode
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    actions = {a.text(): a for a in view.actions()}
    for k, tab in enumerate(VIEW_TABS, start=1):
        w.show_tab("log")
        actions[tab.title].trigger()
        assert w.views.tabText(w.views.currentIndex()) == tab.title
        assert actions[tab.title].shortcut().toString() == f"Ctrl+{k % 10}"
        w.show_tab("log")
        w.show_tab(tab.key)
        assert w.views.tabText(w.views.currentIndex()) == tab.title
        assert parse("--tab", tab.key).tab == tab.key
    with pytest.raises(SystemExit):
        parse("--tab", "nowhere")


def test_gui_command_tab_and_compare_options(capsys):
    args = parse("--compare", "conv, hybrid,conv", "--tab", "timing")
    assert args.compare == ["conv", "hybrid"] and args.tab == "timing"
    assert parse().compare is None and parse().tab is None
    for bad in ("conv", "conv,dft", "conv,warp"):
        with pytest.raises(SystemExit) as exc:
            parse("--compare", bad)
        assert exc.value.code == 2
    assert "two or more of conv" in capsys.readouterr().err


@pytest.fixture
def private_settings(tmp_path):
    """Point the default QSettings store at tmp_path (launch() uses the default)."""
    for fmt in (QtCore.QSettings.Format.NativeFormat, QtCore.QSettings.Format.IniFormat):
        QtCore.QSettings.setPath(fmt, QtCore.QSettings.Scope.UserScope, str(tmp_path / "conf"))


def test_screenshot_waits_for_the_comparison(qapp, tmp_path, private_settings, capsys):
    from uvlab.app.lab.session import NamedSky, SessionState

    scene = tmp_path / "scene.json"
    state = SessionState(SMALL_OBS, sky=NamedSky("pair"), imaging=ImagingOptions(npix=64))
    scene.write_text(state.to_json())
    png = tmp_path / "compare.png"
    args = parse(
        "--scene",
        str(scene),
        "--screenshot",
        str(png),
        "--device",
        "cpu",
        "--compare",
        "conv,nn",
        "--tab",
        "compare",
        "--timeout",
        "60",
    )
    assert args.func(args) == 0
    assert f"wrote {png}" in capsys.readouterr().out
    image = QtGui.QImage(str(png))
    assert image.width() >= 1000 and image.height() >= 700
