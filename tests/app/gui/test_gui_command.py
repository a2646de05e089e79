"""``uvlab gui``: the command's options and screenshot mode (offscreen)."""

from __future__ import annotations

import argparse

import pytest
from PyQt6 import QtCore, QtGui

from tests.support.observations import SMALL_OBS


@pytest.fixture
def private_settings(tmp_path):
    """Point the default QSettings store at tmp_path (launch() uses the default)."""
    fmt = QtCore.QSettings.Format.NativeFormat
    QtCore.QSettings.setPath(fmt, QtCore.QSettings.Scope.UserScope, str(tmp_path / "conf"))
    QtCore.QSettings.setPath(
        QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope, str(tmp_path / "conf")
    )
    return tmp_path / "conf"


def parse(*argv):
    from uvlab.app.commands import gui

    parser = argparse.ArgumentParser()
    gui.register(parser.add_subparsers())
    return parser.parse_args(["gui", *argv])


def test_screenshot_of_a_scene(qapp, tmp_path, private_settings, capsys):
    import json
    from dataclasses import asdict

    # a scene file as uvlab demo wrote them before sessions replaced them
    scene = tmp_path / "scene.json"
    old = {"observation": asdict(SMALL_OBS), "sky": "pair", "imaging": {"npix": 128}}
    scene.write_text(json.dumps(old, indent=2))
    png = tmp_path / "shot.png"
    args = parse("--scene", str(scene), "--screenshot", str(png), "--device", "cpu")
    assert args.func(args) == 0
    assert f"wrote {png}" in capsys.readouterr().out
    image = QtGui.QImage(str(png))
    assert image.width() >= 1000 and image.height() >= 700


def test_screenshot_timeout_exits_1(qapp, tmp_path, private_settings, capsys):
    args = parse("--screenshot", str(tmp_path / "never.png"), "--timeout", "0.05")
    assert args.func(args) == 1
    assert "no result within 0.05 s" in capsys.readouterr().err
    assert not (tmp_path / "never.png").exists()
