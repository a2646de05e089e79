"""SkyImageView: what it shows and where: stretch, colours, levels, deferred drawing, title."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore, QtWidgets

from tests.support.sky_views import DEC0, RA0, SPEC, N, pixel_scene_pos, shown_view
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.widgets._pg import get_colormap
from uvlab.widgets.image_view import ARCMIN, SkyImageView


@pytest.fixture
def view(qtbot):
    return shown_view(qtbot)


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
    return shown_view(qtbot)


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


def test_the_same_title_set_again_is_still_shown(view, img):
    view.set_image(img, SPEC, title="Model")
    assert view.shown_title() == "Model"
    view.set_image(img * 2, SPEC, title="Model")  # e.g. each CLEAN cycle
    assert view.shown_title() == "Model"
    assert view.plot_item.titleLabel.text.strip() == "Model"
