"""SkyImageView's zoom (widgets/image_zoom.py): fitted to each image until the user zooms."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore, QtGui, QtWidgets

from tests.support.sky_views import DEC0, RA0, SPEC, shown_view
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.widgets.image_links import link_views
from uvlab.widgets.image_view import ARCMIN, SkyImageView


@pytest.fixture
def view(qtbot):
    return shown_view(qtbot)


SPEC128 = ImageSpec(128, ARCSEC * 60)  # 1′ cells: the image spans 128′


def extent_128():
    """Pixel-edge extent in arcmin of a 128-pixel, 1′ image (DESIGN §1: l = −(i − N/2)·cell)."""
    l_centres = -(np.arange(128) - 64) * 1.0
    m_centres = (np.arange(128) - 64) * 1.0
    return (l_centres.min() - 0.5, l_centres.max() + 0.5), (
        m_centres.min() - 0.5,
        m_centres.max() + 0.5,
    )


def assert_fits(view, xr, yr, rel=1e-6):
    """The view shows exactly (xr, yr) along the limiting axis and all of it along the other."""
    QtWidgets.QApplication.processEvents()
    (x0, x1), (y0, y1) = view.view_box.viewRange()
    x_exact = (x0, x1) == pytest.approx(xr, rel=rel, abs=1e-9)
    y_exact = (y0, y1) == pytest.approx(yr, rel=rel, abs=1e-9)
    assert x_exact or y_exact
    eps = 1e-6 * (xr[1] - xr[0])
    assert x0 <= xr[0] + eps and x1 >= xr[1] - eps and y0 <= yr[0] + eps and y1 >= yr[1] - eps


def user_wheel(view, clicks: int = 1) -> None:
    """A real mouse-wheel zoom over the middle of the plot."""
    vp = view.plot_widget.viewport()
    pos = QtCore.QPointF(vp.width() / 2, vp.height() / 2)
    ev = QtGui.QWheelEvent(
        pos,
        QtCore.QPointF(vp.mapToGlobal(pos.toPoint())),
        QtCore.QPoint(),
        QtCore.QPoint(0, 120 * clicks),
        QtCore.Qt.MouseButton.NoButton,
        QtCore.Qt.KeyboardModifier.NoModifier,
        QtCore.Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QtWidgets.QApplication.sendEvent(vp, ev)
    QtWidgets.QApplication.processEvents()


def test_link_views_shares_zoom(qtbot, img):
    a, b = SkyImageView(), SkyImageView()
    for v in (a, b):
        qtbot.addWidget(v)
        v.resize(500, 400)
        v.show()
        v.set_image(img, SPEC)
    link_views(a, b)
    a.view_box.setRange(xRange=(-2.0, 1.0), yRange=(-1.0, 2.0), padding=0)
    QtWidgets.QApplication.processEvents()
    (ax, ay), (bx, by) = a.view_box.viewRange(), b.view_box.viewRange()
    assert bx == pytest.approx(ax) and by == pytest.approx(ay)
    assert np.mean(bx) == pytest.approx(-0.5) and np.mean(by) == pytest.approx(0.5)


@pytest.mark.parametrize("size", [(640, 560), (400, 700)])
def test_new_images_fill_the_view_exactly(qtbot, size):
    view = SkyImageView()
    qtbot.addWidget(view)
    view.set_image(np.zeros((128, 128)), SPEC128)  # before the first show
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    xr, yr = extent_128()
    assert_fits(view, xr, yr)
    (x0, x1), (y0, y1) = view.view_box.viewRange()
    assert min(x1 - x0, y1 - y0) / 2 == pytest.approx(64.0, rel=0.01)  # ±64′, not ±150′
    ratio = view.view_box.viewPixelSize()
    assert ratio[0] == pytest.approx(ratio[1], rel=1e-6)  # square pixels
    view.set_image(np.zeros((64, 64)), SPEC)  # a new geometry is fitted too
    half = 32 * 12 / 60
    assert_fits(view, (-half + 0.1, half + 0.1), (-half - 0.1, half - 0.1))


def test_user_zoom_is_kept_until_fit(qtbot, view, rng):
    view.set_image(rng.normal(size=(128, 128)), SPEC128)
    assert not view.user_zoomed()
    view.view_box.setRange(xRange=(-5, 5), yRange=(-5, 5), padding=0)  # programmatic
    assert not view.user_zoomed()
    view.set_image(rng.normal(size=(128, 128)), SPEC128)  # same geometry: refitted anyway
    assert_fits(view, *extent_128())
    user_wheel(view)
    assert view.user_zoomed()
    zoomed = view.view_box.targetRange()  # what the user chose (the aspect lock may widen it)
    assert zoomed[1][1] - zoomed[1][0] < 120
    view.set_image(rng.normal(size=(128, 128)), SPEC128, title="next result")
    QtWidgets.QApplication.processEvents()
    assert np.allclose(view.view_box.targetRange(), zoomed)
    with qtbot.waitSignal(view.zoom_reset, timeout=1000):
        qtbot.mouseClick(view.fit_button, QtCore.Qt.MouseButton.LeftButton)
    assert not view.user_zoomed()
    assert_fits(view, *extent_128())
    view.view_box.scaleBy((0.5, 0.5))  # what a drag-zoom does, then pyqtgraph's signal
    view.view_box.sigRangeChangedManually.emit([True, True])
    assert view.user_zoomed()
    view.fit_to_image()
    view.set_image(rng.normal(size=(128, 128)), SPEC128)
    assert_fits(view, *extent_128())


def test_default_zoom_and_zoom_to(qtbot, view, rng):
    view.set_image(rng.normal(size=(128, 128)), SPEC128)
    view.zoom_to(10 * ARCMIN)  # e.g. a PSF's inner sidelobes
    assert_fits(view, (-10.0, 10.0), (-10.0, 10.0))
    assert not view.user_zoomed()
    view.set_image(rng.normal(size=(128, 128)), SPEC128)  # each new result: the same zoom
    assert_fits(view, (-10.0, 10.0), (-10.0, 10.0))
    user_wheel(view, -2)
    zoomed = view.view_box.targetRange()
    view.set_image(rng.normal(size=(128, 128)), SPEC128)
    assert np.allclose(view.view_box.targetRange(), zoomed)
    view.fit_to_image()  # the whole image now; the next result gets the default zoom again
    assert_fits(view, *extent_128())
    view.set_default_zoom(0.25)
    assert_fits(view, (-16.0, 16.0), (-16.0, 16.0))
    view.set_default_zoom()
    assert_fits(view, *extent_128())
    with pytest.raises(ValueError):
        view.set_default_zoom(0.5, half_width_rad=1e-3)


def test_set_view_range_by_user_is_kept(view, rng):
    view.set_image(rng.normal(size=(128, 128)), SPEC128)
    view.set_view_range((-3.0, 7.0), (-4.0, 6.0), by_user=True)  # a linked view following
    assert view.user_zoomed()
    view.set_image(rng.normal(size=(128, 128)), SPEC128)
    QtWidgets.QApplication.processEvents()
    assert np.allclose(view.view_box.targetRange(), [(-3.0, 7.0), (-4.0, 6.0)])


def test_clear_forgets_the_image_and_the_zoom(view, img):
    view.set_image(img, SPEC, RA0, DEC0, title="old data")
    user_wheel(view)
    view.clear()
    assert view.image() is None and view.spec() is None and view.image_item.image is None
    assert view.shown_title() == "" and not view.user_zoomed()
    assert view.readout_at(0.0, 0.0)["value"] is None
    view.set_image(np.zeros((128, 128)), SPEC128)  # the next data set is fitted again
    assert_fits(view, *extent_128())
