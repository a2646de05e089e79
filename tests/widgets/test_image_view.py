"""SkyImageView: what it shows, where, and what its readout and signals say."""

from __future__ import annotations

import numpy as np
import pytest
from astropy import units as u
from astropy.coordinates import Angle
from astropy.wcs import WCS
from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.widgets._pg import get_colormap
from uvlab.widgets.image_links import link_crosshairs, link_views
from uvlab.widgets.image_view import ARCMIN, SkyImageView

N = 64
SPEC = ImageSpec(N, 12 * ARCSEC)
RA0, DEC0 = np.radians(201.365), np.radians(-43.019)


@pytest.fixture
def view(qtbot):
    v = SkyImageView()
    qtbot.addWidget(v)
    v.resize(640, 560)
    v.show()
    qtbot.waitExposed(v)
    return v


@pytest.fixture
def img(rng):
    return rng.normal(size=(N, N))


def pixel_scene_pos(view, j, i) -> QtCore.QPointF:
    """Scene position of pixel (j, i)'s centre, from its (l, m) by the DESIGN §1 formula."""
    QtWidgets.QApplication.processEvents()
    l_arcmin, m_arcmin = -(i - N / 2) * 12 / 60, (j - N / 2) * 12 / 60
    return view.view_box.mapViewToScene(QtCore.QPointF(l_arcmin, m_arcmin))


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


def test_shown_data_is_the_stretched_image(view, img):
    view.set_image(img, SPEC)
    assert view.stretch() == "asinh"  # the default: asinh(x / (0.002·max|x|))
    s = 0.002 * np.abs(img).max()
    np.testing.assert_allclose(view.image_item.image, np.arcsinh(img / s), rtol=1e-6)
    view.set_stretch("linear")
    np.testing.assert_array_equal(view.image_item.image, img.astype(np.float32))
    assert view.image() is not img and np.array_equal(view.image(), img)
    view.set_stretch("log")
    floor = np.abs(img).max() * 1e-5
    np.testing.assert_allclose(view.image_item.image, np.log10(np.maximum(img, floor)), rtol=1e-6)
    np.testing.assert_array_equal(view.image(), img)  # data unchanged
    assert view.levels() == pytest.approx((np.log10(floor), np.log10(img.max())), rel=1e-6)


@pytest.mark.parametrize("stretch", ["log", "asinh"])
def test_stretch_of_nonpositive_values_is_finite(view, stretch):
    img = np.zeros((N, N))
    img[:, : N // 2] = -3.0
    img[5, 7] = 2.0
    for data in (img, -np.abs(img), np.zeros((N, N))):
        view.set_image(data, SPEC)
        view.set_stretch(stretch)
        shown = view.image_item.image
        assert np.isfinite(shown).all()
        lo, hi = view.levels()
        assert np.isfinite([lo, hi]).all() and hi > lo


def test_pixels_sit_at_their_lm_with_east_to_the_left(view, img):
    view.set_image(img, SPEC)
    qtbot_pos = view.image_item.mapToView  # item pixel coords -> (l, m) arcmin
    centre = qtbot_pos(QtCore.QPointF(N / 2 + 0.5, N / 2 + 0.5))
    assert (centre.x(), centre.y()) == pytest.approx((0.0, 0.0), abs=1e-9)
    l_axis, m_axis = SPEC.l_axis() / ARCMIN, SPEC.m_axis() / ARCMIN
    for j, i in [(0, 0), (3, 50), (63, 10)]:
        p = qtbot_pos(QtCore.QPointF(i + 0.5, j + 0.5))
        assert (p.x(), p.y()) == pytest.approx((l_axis[i], m_axis[j]), abs=1e-9)
    # on screen: larger i (smaller l, West) further right; larger j (North) higher up
    a, b = pixel_scene_pos(view, 20, 20), pixel_scene_pos(view, 20, 21)
    assert b.x() > a.x() and l_axis[21] < l_axis[20]
    c = pixel_scene_pos(view, 21, 20)
    assert c.y() < a.y()
    # the item itself, mapped to the scene, agrees
    item_a = view.image_item.mapToScene(QtCore.QPointF(20.5, 20.5))
    assert (item_a.x(), item_a.y()) == pytest.approx((a.x(), a.y()), abs=1e-6)
    # and the bottom axis reads increasing l toward the left of the widget
    vb = view.view_box
    left, right = (
        vb.mapSceneToView(vb.sceneBoundingRect().topLeft()).x(),
        vb.mapSceneToView(vb.sceneBoundingRect().topRight()).x(),
    )
    assert left > right


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


def test_colormap_change_changes_lookup_table(view, img):
    view.set_stretch("linear")
    view.set_image(img, SPEC)
    before = np.array(view.image_item.lut)
    view.set_colormap("gray")
    lut = np.asarray(view.image_item.lut)
    assert not np.array_equal(before, lut)
    assert lut[0, :3].tolist() == [0, 0, 0] and lut[-1, :3].tolist() == [255, 255, 255]
    assert (lut[:, 0] == lut[:, 1]).all() and view.cmap_combo.currentText() == "gray"
    view.set_colormap("blue-red")  # diverging: levels symmetric about zero
    np.testing.assert_array_equal(
        view.image_item.lut, get_colormap("blue-red").getLookupTable(nPts=256)
    )
    lo, hi = view.levels()
    assert lo == pytest.approx(-hi) and hi == pytest.approx(np.abs(img).max(), rel=1e-6)
    with pytest.raises(ValueError):
        view.set_colormap("nope")


def low_level(img) -> float:
    """The 0.5th percentile as a data value (numpy's "lower" method), by sorting."""
    return float(np.sort(img.ravel())[int(np.floor(0.005 * (img.size - 1)))])


def test_keep_levels_and_in_place_update(view, img):
    view.set_stretch("linear")
    view.set_image(img, SPEC)
    assert view.levels() == pytest.approx((low_level(img), img.max()), rel=1e-6)
    view.set_levels(-0.5, 0.5)
    view.set_image(2 * img, SPEC, keep_levels=True)
    assert view.levels() == pytest.approx((-0.5, 0.5))
    assert tuple(view.image_item.getLevels()) == pytest.approx((-0.5, 0.5))
    view.set_image(2 * img, SPEC)
    assert view.levels() == pytest.approx((2 * low_level(img), 2 * img.max()), rel=1e-6)
    with pytest.raises(ValueError, match="npix"):
        view.set_image(img[:, :-2], SPEC)


@pytest.fixture
def other(qtbot):
    """A second shown view, the size of ``view``."""
    v = SkyImageView()
    qtbot.addWidget(v)
    v.resize(640, 560)
    v.show()
    qtbot.waitExposed(v)
    return v


def test_deferred_image_answers_at_once_and_is_drawn_as_without_defer(view, other, img):
    view.set_image(img, SPEC, RA0, DEC0, title="noise")
    other.set_image(img, SPEC, RA0, DEC0, title="noise", defer=True)
    assert np.array_equal(other.image(), img) and other.spec() == SPEC
    assert other.title() == "noise" and other.readout_at(0.0, 0.0)["ra_hms"] is not None
    assert other.needs_drawing() and other.image_item.image is None  # nothing drawn yet
    assert other.flush() and not other.needs_drawing() and not other.flush()
    np.testing.assert_array_equal(other.image_item.image, view.image_item.image)
    assert other.levels() == view.levels() and other.colorbar_ticks() == view.colorbar_ticks()
    assert other.shown_title() == view.shown_title()
    np.testing.assert_allclose(other.view_box.viewRange(), view.view_box.viewRange())


def test_a_hidden_view_draws_its_deferred_image_when_shown(qtbot, img):
    v = SkyImageView()
    qtbot.addWidget(v)
    v.set_image(img, SPEC, defer=True)
    assert v.needs_drawing() and v.image_item.image is None
    v.show()
    qtbot.waitExposed(v)
    assert not v.needs_drawing()
    np.testing.assert_allclose(v.image_item.image, np.arcsinh(img / (0.002 * np.abs(img).max())))


def test_deferred_images_keep_the_levels_only_if_all_asked_to(view, img):
    view.set_stretch("linear")
    view.set_image(img, SPEC)
    view.set_levels(-0.5, 0.5)
    view.set_image(2 * img, SPEC, keep_levels=True, defer=True)
    view.set_image(3 * img, SPEC, keep_levels=True, defer=True)
    assert view.levels() == pytest.approx((-0.5, 0.5))  # levels() draws the waiting image first
    np.testing.assert_array_equal(view.image_item.image, (3 * img).astype(np.float32))
    view.set_image(2 * img, SPEC, defer=True)
    view.set_image(3 * img, SPEC, keep_levels=True, defer=True)  # the 2·img levels were never fit
    assert view.levels() == pytest.approx((3 * low_level(img), 3 * img.max()), rel=1e-6)
    view.set_levels(-0.5, 0.5)
    view.set_image(img, SPEC, keep_levels=True, defer=True)
    view.auto_levels()  # the user's Auto levels: drawn and fitted
    assert view.levels() == pytest.approx((low_level(img), img.max()), rel=1e-6)
    view.set_image(2 * img, SPEC, defer=True)
    view.clear()
    assert not view.needs_drawing() and view.image() is None


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


# ------------------------------------------------------------ default display
def faint_and_bright(rng, n=128):
    """A 1 Jy/beam point, a point at 1 % of it, and noise at 0.1 % (the faint one is 10σ)."""
    img = rng.normal(scale=1e-3, size=(n, n))
    img[n // 2, n // 2] += 1.0
    img[n // 2 + 20, n // 2 - 30] += 0.01
    return img, (n // 2, n // 2), (n // 2 + 20, n // 2 - 30)


def faint_fraction(view, img, faint) -> float:
    """How far up the colour range the faint source sits above the median background."""
    lo, hi = view.levels()
    shown = view.image_item.image
    return (shown[faint] - np.median(shown)) / (hi - lo)


def test_default_display_shows_a_faint_source_and_keeps_the_peak_on_top(qtbot, rng):
    view = SkyImageView()  # all defaults
    qtbot.addWidget(view)
    img, peak, faint = faint_and_bright(rng)
    view.set_image(img, ImageSpec(128, ARCSEC * 60))
    lo, hi = view.levels()
    shown = view.image_item.image
    assert shown[peak] == pytest.approx(hi) and shown.max() == shown[peak]  # peak = top
    assert faint_fraction(view, img, faint) >= 0.10
    # the colour index (256 colours over the levels) of the faint source stands apart too
    index = np.clip((shown - lo) / (hi - lo) * 255, 0, 255).astype(int)
    assert index[faint] - np.median(index) >= 25
    # the same image under a linear stretch: the faint source is lost (why asinh is the default)
    view.set_stretch("linear")
    assert faint_fraction(view, img, faint) < 0.02


def test_colour_bar_names_units_and_stretch_and_ticks_in_data_units(view, rng):
    img, _, _ = faint_and_bright(rng, N)
    view.set_image(img, SPEC, units="mJy/beam")
    label = view.color_bar.getAxis("left").labelText
    assert "mJy/beam" in label and "asinh" in label
    s = 0.002 * np.abs(img).max()
    ticks = view.colorbar_ticks()
    assert any(text == "0" for _, text in ticks) and len(ticks) >= 5
    for pos, text in ticks:  # each label is the data value whose stretched value is its place
        assert pos == pytest.approx(np.arcsinh(float(text) / s), rel=1e-5, abs=1e-6)
    view.set_stretch("log")
    assert "log" in view.color_bar.getAxis("left").labelText
    assert all(float(text) > 0 for _, text in view.colorbar_ticks())
    view.set_stretch("linear")
    assert view.colorbar_ticks() == [] and "mJy/beam" in view.color_bar.getAxis("left").labelText


# ------------------------------------------------------------------- size
def test_long_title_and_readout_do_not_widen_the_view(qtbot, img):
    view = SkyImageView()
    qtbot.addWidget(view)
    title = "Dirty image: " + "very long title " * 19
    assert len(title) >= 300
    view.set_image(img, SPEC, title=title)
    view.readout_label.setText("j=1 i=2   " * 40)
    hint = view.minimumSizeHint()
    assert hint.width() <= 260 and hint.height() <= 260
    view.resize(500, 500)
    view.show()
    qtbot.waitExposed(view)
    QtWidgets.QApplication.processEvents()
    # the plot (view box and colour bar) lies inside the widget; the title is elided
    scene_right = view.color_bar.sceneBoundingRect().right()
    assert scene_right <= view.plot_widget.viewport().width() + 1
    shown = view.shown_title()
    assert shown.endswith("…") and title.startswith(shown[:-1]) and len(shown) < len(title)
    assert view.plot_item.titleLabel.toolTip() == title and view.title() == title
    view.resize(900, 500)  # more room: more of the title
    QtWidgets.QApplication.processEvents()
    assert len(view.shown_title()) > len(shown)
    view.set_image(img, SPEC, title="PSF")
    QtWidgets.QApplication.processEvents()
    assert view.shown_title() == "PSF"


# ------------------------------------------------------------------- zoom
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


def test_the_same_title_set_again_is_still_shown(view, img):
    view.set_image(img, SPEC, title="Model")
    assert view.shown_title() == "Model"
    view.set_image(img * 2, SPEC, title="Model")  # e.g. each CLEAN cycle
    assert view.shown_title() == "Model"
    assert view.plot_item.titleLabel.text.strip() == "Model"
