"""SkyImageView's cursor (widgets/image_cursor.py): the readout, the crosshair, clicks."""

from __future__ import annotations

import numpy as np
import pytest
from astropy import units as u
from astropy.coordinates import Angle
from astropy.wcs import WCS
from PyQt6 import QtCore, QtGui, QtWidgets

from tests.support.sky_views import DEC0, RA0, SPEC, N, pixel_scene_pos, shown_view
from uvlab.widgets.image_links import link_crosshairs
from uvlab.widgets.image_view import ARCMIN, SkyImageView


@pytest.fixture
def view(qtbot):
    return shown_view(qtbot)


def send_mouse_move(widget, pos: QtCore.QPoint) -> None:
    """Deliver a real (button-less) mouse move event, which QTest.mouseMove does not."""
    local = QtCore.QPointF(pos)
    ev = QtGui.QMouseEvent(
        QtCore.QEvent.Type.MouseMove,
        local,
        QtCore.QPointF(widget.mapToGlobal(pos)),
        QtCore.Qt.MouseButton.NoButton,
        QtCore.Qt.MouseButton.NoButton,
        QtCore.Qt.KeyboardModifier.NoModifier,
    )
    QtWidgets.QApplication.sendEvent(widget, ev)


def test_cursor_readout_matches_fits_wcs(qtbot, view, img):
    view.set_image(img, SPEC, RA0, DEC0)
    j, i = 10, 47
    pos = view.plot_widget.mapFromScene(pixel_scene_pos(view, j, i))
    with qtbot.waitSignal(view.cursor_moved, timeout=2000) as blocker:
        send_mouse_move(view.plot_widget.viewport(), pos)
    r = blocker.args[0]
    assert (r["j"], r["i"]) == (j, i)
    assert r["value"] == pytest.approx(img[j, i])
    cell = SPEC.cell_rad
    tol = 0.6 * cell  # the mouse lands on an integer screen pixel inside the image pixel
    assert r["l"] == pytest.approx(-(i - N / 2) * cell, abs=tol)
    assert r["m"] == pytest.approx((j - N / 2) * cell, abs=tol)
    # independent oracle: the DESIGN §1 FITS WCS of this image
    w = WCS(naxis=2)
    w.wcs.ctype = ["RA---SIN", "DEC--SIN"]
    w.wcs.cdelt = [-np.degrees(cell), np.degrees(cell)]
    w.wcs.crpix = [N / 2 + 1, N / 2 + 1]
    w.wcs.crval = [np.degrees(RA0), np.degrees(DEC0)]
    ra, dec = w.wcs_pix2world([[N / 2 - r["l"] / cell, N / 2 + r["m"] / cell]], 0)[0]
    assert np.degrees(r["ra_rad"]) == pytest.approx(ra, abs=1e-9)
    assert np.degrees(r["dec_rad"]) == pytest.approx(dec, abs=1e-9)
    assert r["ra_hms"] == Angle(ra, u.deg).to_string(u.hour, sep="hms", precision=2, pad=True)
    assert r["dec_dms"] == Angle(dec, u.deg).to_string(
        u.deg, sep="dms", precision=1, pad=True, alwayssign=True
    )
    assert f"j={j} i={i}" in view.readout_label.text()
    assert r["ra_hms"] in view.readout_label.text()


def test_readout_at_pixel_centre_and_outside(view, img):
    view.set_image(img, SPEC)
    l, m = SPEC.l_axis()[5], SPEC.m_axis()[60]
    r = view.readout_at(l, m)
    assert (r["j"], r["i"], r["value"]) == (60, 5, pytest.approx(img[60, 5]))
    assert r["ra_hms"] is None  # no phase centre given
    r = view.readout_at(SPEC.l_axis()[0] + 2 * SPEC.cell_rad, 0.0)
    assert r["i"] is None and r["value"] is None


def test_crosshair_linking(qtbot, img):
    views = [SkyImageView() for _ in range(3)]
    for v in views:
        qtbot.addWidget(v)
        v.set_image(img, SPEC)
    link_crosshairs(*views)
    views[0].set_crosshair(1e-4, -2e-4)  # programmatic: no emission, no echo
    assert views[1].crosshair() == pytest.approx((0.0, 0.0))
    with qtbot.waitSignal(views[1].crosshair_moved) as blocker:
        views[1].v_line.setValue(3.0)  # what dragging the line does, in arcmin
    assert blocker.args == pytest.approx([3.0 * ARCMIN, 0.0])
    for v in (views[0], views[2]):
        assert v.crosshair() == pytest.approx((3.0 * ARCMIN, 0.0))


def test_click_emits_lm_and_moves_crosshair(qtbot, view, img):
    view.set_image(img, SPEC)
    j, i = 40, 12
    pos = view.plot_widget.mapFromScene(pixel_scene_pos(view, j, i))
    with qtbot.waitSignal(view.clicked, timeout=2000) as blocker:
        qtbot.mouseClick(view.plot_widget.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    l, m = blocker.args
    assert l == pytest.approx(SPEC.l_axis()[i], abs=0.6 * SPEC.cell_rad)
    assert m == pytest.approx(SPEC.m_axis()[j], abs=0.6 * SPEC.cell_rad)
    assert view.crosshair() == pytest.approx((l, m))
