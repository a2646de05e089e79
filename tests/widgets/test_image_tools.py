"""SkyImageView's tools (widgets/image_tools.py): the PNG it saves, the FITS entry."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtGui

from tests.support.sky_views import SPEC, N, shown_view


@pytest.fixture
def view(qtbot):
    return shown_view(qtbot)


def test_export_png_writes_the_plot(tmp_path, view, img):
    view.set_image(img, SPEC, title="noise")
    path = view.export_png(tmp_path / "view.png")
    assert path.stat().st_size > 1000
    png = QtGui.QImage(str(path))
    dpr = view.plot_widget.devicePixelRatioF()
    size = view.plot_widget.size()
    assert (png.width(), png.height()) == (round(size.width() * dpr), round(size.height() * dpr))
    assert len({png.pixel(x, png.height() // 2) for x in range(0, png.width(), 7)}) > 5


def test_export_png_goes_through_the_installed_saver(tmp_path, view, img, monkeypatch):
    from uvlab.widgets import _save, set_image_saver

    monkeypatch.setattr(_save, "_saver", _save._saver)  # restored after the test
    view.set_image(img, SPEC)
    calls = []
    set_image_saver(lambda image, path, fmt: calls.append((image.isNull(), path, fmt)))
    assert view.export_png(tmp_path / "v.png") == tmp_path / "v.png"
    assert calls == [(False, tmp_path / "v.png", "PNG")] and not (tmp_path / "v.png").exists()
    set_image_saver(None)  # back to Qt's own save, which raises naming the file
    with pytest.raises(OSError, match=r"nope/v\.png: could not write the PNG image"):
        view.export_png(tmp_path / "nope" / "v.png")


def test_fits_menu_entry_requests_export(qtbot, view):
    assert view.fits_action in view.menu_button.menu().actions()
    with qtbot.waitSignal(view.export_fits_requested, timeout=1000):
        view.fits_action.trigger()


def test_export_png_leaves_the_crosshair_out(tmp_path, view):
    view.set_image(np.zeros((N, N)), SPEC, title="zero")  # one flat colour: lines stand out
    view.set_crosshair(0.0, 0.0)

    def cyan(image: QtGui.QImage) -> int:
        """Pixels of the crosshair's pen colour (0, 220, 255) over the dark image."""
        count = 0
        for y in range(0, image.height(), 3):
            for x in range(0, image.width(), 3):
                c = QtGui.QColor(image.pixel(x, y))
                count += c.blue() > 150 and c.green() > 120 and c.red() < 80
        return count

    assert cyan(view.plot_widget.grab().toImage()) > 20  # on screen: the lines are there
    exported = QtGui.QImage(str(view.export_png(tmp_path / "v.png")))
    assert cyan(exported) == 0
    assert view.v_line.isVisible() and view.h_line.isVisible()  # back on screen after
