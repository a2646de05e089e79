"""UvCoverageView: both Hermitian halves, all samples, units, colouring, live look, fit."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtWidgets

from uvlab.widgets._pg import PALETTE, pg
from uvlab.widgets.uv_colours import TIME_COLORMAP, colormap_rgb
from uvlab.widgets.uv_coverage_view import UvCoverageView
from uvlab.widgets.uv_density import ALPHA_FLOOR, PLAIN_COLOUR, uv_density, uv_scale

C = 299792458.0


@pytest.fixture
def view(qtbot):
    v = UvCoverageView()
    qtbot.addWidget(v)
    return v


@pytest.fixture
def track(rng):
    n = 500
    return (
        rng.uniform(-3e3, 3e3, n),
        rng.uniform(-3e3, 3e3, n),
        np.arange(n) // 50,
        np.arange(n) % 7,
    )


def sorted_xy(x, y):
    order = np.lexsort((y, x))
    return x[order], y[order]


def histogram_oracle(x, y, nbins):
    """np.histogram2d of both halves on ±max(|x|, |y|): counts[iy, ix]."""
    r = max(np.abs(x).max(), np.abs(y).max())
    h, _, _ = np.histogram2d(np.r_[y, -y], np.r_[x, -x], bins=nbins, range=[[-r, r], [-r, r]])
    return h.astype(np.int64), r


# --------------------------------------------------------------- scatter look
def test_both_halves_in_klambda_and_metres(view, track):
    u, v, t, _ = track
    view.set_uv(u, v, freq_hz=1.4e9, time=t)
    assert view.mode() == "scatter"  # 1 000 points: dots
    x, y = view.points()
    assert x.size == 2 * u.size
    k = 1.4e9 / C / 1e3
    ex, ey = sorted_xy(np.r_[u, -u] * k, np.r_[v, -v] * k)
    np.testing.assert_allclose(np.c_[sorted_xy(x, y)], np.c_[ex, ey], rtol=1e-12)
    drawn = np.concatenate([it.data["x"] for it in view.scatter_items])
    np.testing.assert_allclose(np.sort(drawn), np.sort(ex), rtol=1e-12)
    assert view.plot_item.getAxis("bottom").labelText == "u (kλ)"
    view.set_units("m")
    x, y = view.points()
    np.testing.assert_allclose(np.c_[sorted_xy(x, y)], np.c_[sorted_xy(np.r_[u, -u], np.r_[v, -v])])
    assert view.plot_item.getAxis("left").labelText == "v (m)"
    for item in view.scatter_items:
        assert item.opts["pxMode"] and item.opts["pen"].style().name == "NoPen"
    assert "all 1,000 samples (both halves)" in view.info_label.text()


def test_channels_multiply_points(view, track):
    u, v, _, _ = track
    freqs = np.array([1.0e9, 2.0e9])
    view.set_units("lambda")
    view.set_uv(u, v, freq_hz=freqs)
    x, _ = view.points()
    assert x.size == 4 * u.size
    assert np.abs(x).max() == pytest.approx(np.abs(u).max() * 2.0e9 / C)


def test_color_by_baseline_groups_points(view, track):
    u, v, t, bl = track
    view.set_uv(u, v, freq_hz=1e9, time=t, baseline=bl)
    view.set_color_by("baseline")
    assert len(view.scatter_items) == 7
    scale = 1e9 / C / 1e3
    for item in view.scatter_items:  # each group holds exactly one baseline's rows (both halves)
        xs = np.abs(item.data["x"]) / scale
        rows = np.flatnonzero(np.isin(np.round(np.abs(u), 6), np.round(xs, 6)))
        assert len(set(bl[rows])) == 1 and item.data.size == 2 * np.sum(bl == bl[rows[0]])
    view.set_color_by("time")
    assert len(view.scatter_items) == min(10, view.n_groups)
    assert "time" in view.info_label.text()


# --------------------------------------------------------------- density look
def test_many_samples_become_a_density_of_all_of_them(qtbot, rng):
    view = UvCoverageView(max_points=1000, bins=101)
    qtbot.addWidget(view)
    u, v = rng.normal(size=(2, 20_000)) * 1e3
    freqs = np.array([1.0e9, 1.5e9])
    view.set_uv(u, v, freq_hz=freqs)
    assert view.mode() == "density" and view.scatter_items == [view.density_item]
    text = view.info_label.text()
    assert "all 80,000 samples (both halves)" in text
    assert "subset" not in text and "decimated" not in text
    assert view.points()[0].size == 80_000
    x = np.outer(u, freqs / C / 1e3).ravel()  # one sample per row and channel
    y = np.outer(v, freqs / C / 1e3).ravel()
    expected, r = histogram_oracle(x, y, 101)
    d = view.density()
    assert d.half_width == pytest.approx(r, rel=1e-12)
    assert d.counts.sum() == 2 * x.size == expected.sum()
    # float32 binning: a sample within ~1e-5 of a cell edge may land next door
    assert np.abs(d.counts - expected).sum() <= 2e-3 * x.size
    np.testing.assert_array_equal(d.counts, d.counts[::-1, ::-1])  # Hermitian symmetry
    rgba = view.density_item.image
    assert rgba.shape == (101, 101, 4) and ((rgba[..., 3] > 0) == (d.counts > 0)).all()


def test_a_track_lands_in_its_cells(qtbot):
    view = UvCoverageView(bins=11)
    qtbot.addWidget(view)
    view.set_units("m")
    # cells 1 m wide spanning ±5.5 m (the point at u = 5.5 sets the extent); a track at
    # v = 3 along the cell centres u = −5 … 5, then the extent-setting point
    u = np.r_[np.arange(-5.0, 6.0), 5.5]
    v = np.r_[np.full(11, 3.0), 0.0]
    d = uv_density(u, v, uv_scale("m", 1e9), 11)
    expected = np.zeros((11, 11), np.int64)
    expected[8, :] += 1  # v = 3: (3 + 5.5) / 1 → cell 8
    expected[2, :] += 1  # its mirror at v = −3
    expected[5, 10] += 1  # (5.5, 0): the last edge belongs to the last cell
    expected[5, 0] += 1  # (−5.5, 0)
    np.testing.assert_array_equal(d.counts, expected)
    assert d.half_width == 5.5
    view.max_points = 0  # force the density look on 24 points
    view.set_uv(u, v, freq_hz=1e9)
    np.testing.assert_array_equal(view.density().counts, expected)
    # drawn where it is: the image item covers ±5.5 m, row 0 at v = −5.5
    rect = view.density_item.mapRectToView(view.density_item.boundingRect())
    assert (rect.left(), rect.bottom(), rect.width()) == pytest.approx((-5.5, 5.5, 11.0))


def test_samples_outside_the_extent_are_dropped():
    u = np.array([0.1, 2.0, -9.0])
    v = np.array([0.1, 0.0, 0.0])
    d = uv_density(u, v, np.ones(1), 5, half_width=2.5)
    assert d.counts.sum() == 4  # (−9, 0) and its mirror fall outside ±2.5


def test_colour_is_mean_time_or_baseline_and_brightness_log_count(qtbot):
    view = UvCoverageView(max_points=0, bins=5)
    qtbot.addWidget(view)
    view.set_units("m")
    # cells (in m, 2 m wide over ±5): rows at u = −4 (early), +4 (late), 0 twice (both times)
    u = np.array([-4.0, 4.0, 0.0, 0.0, 5.0])
    v = np.array([-4.0, -4.0, 4.0, 4.0, 0.0])
    t = np.array([0.0, 10.0, 0.0, 10.0, 5.0])
    bl = np.array([3, 8, 8, 8, 3])
    view.set_uv(u, v, freq_hz=1e9, time=t, baseline=bl)
    d = view.density()
    # (u, v) = (−4, −4) → cell (iv 0, iu 0); its mirror (4, 4) → (4, 4); t fraction 0
    assert d.mean_weight[0, 0] == 0.0 and d.mean_weight[4, 4] == 0.0
    assert d.mean_weight[0, 4] == 1.0  # (4, −4), late
    assert d.mean_weight[4, 2] == pytest.approx(0.5)  # two samples at (0, 4): t = 0 and 10
    lut = colormap_rgb(TIME_COLORMAP)
    rgba = view.density_item.image
    assert rgba[0, 0, :3].tolist() == lut[0].tolist()
    assert rgba[0, 4, :3].tolist() == lut[255].tolist()
    # brightness: one sample → the floor; the fullest cell (2 samples) → opaque
    assert d.counts[4, 2] == 2 and rgba[4, 2, 3] == 255
    assert rgba[0, 0, 3] == round(255 * ALPHA_FLOOR)
    assert rgba[1, 1, 3] == 0  # empty
    view.set_color_by("baseline")  # baselines 3 and 8 are the 1st and 2nd ids
    rgba = view.density_item.image
    first, second = (pg.mkColor(PALETTE[k]).getRgb()[:3] for k in (0, 1))
    assert tuple(rgba[0, 0, :3]) == first and tuple(rgba[0, 4, :3]) == second
    view.set_color_by("none")
    rgba = view.density_item.image
    assert (rgba[rgba[..., 3] > 0][:, :3] == PLAIN_COLOUR).all()


def test_bins_follow_the_plot_size(qtbot, rng):
    view = UvCoverageView(max_points=0)
    qtbot.addWidget(view)
    view.resize(400, 440)
    view.show()
    qtbot.waitExposed(view)
    u, v = rng.normal(size=(2, 5000))
    view.set_uv(u, v, freq_hz=1e9)
    vb = view.plot_item.getViewBox()
    px = min(vb.width(), vb.height()) * view.devicePixelRatioF()
    n = view.density().nbins
    assert n % 2 == 1 and 63 <= n <= 1023 and abs(n - px) <= 2
    view.resize(1000, 1040)
    qtbot.waitUntil(lambda: view.density().nbins > 1.2 * n, timeout=3000)


# ------------------------------------------------------------ live look, fit
def test_live_tracks_then_final_result(qtbot, rng):
    view = UvCoverageView(bins=201)  # 20 000 points or fewer: dots, except when live
    qtbot.addWidget(view)
    u, v = rng.normal(size=(2, 3000)) * 1e3
    freqs = np.array([1.0e9, 1.2e9])
    view.set_live_uv(u[:100], v[:100], freqs)
    assert view.is_live() and view.mode() == "density"  # live: density even for few samples
    view.set_live_uv(u, v, freqs[:1])
    d = view.density()
    assert d.counts.sum() == 2 * u.size
    rgba = view.density_item.image
    assert (rgba[rgba[..., 3] > 0][:, :3] == PLAIN_COLOUR).all()  # one colour
    assert "so far: all 6,000 samples" in view.info_label.text()
    assert view.points()[0].size == 2 * u.size
    for item in view.scatter_items:  # what the app does before drawing its own overlay
        item.hide()
    view.set_uv(u, v, freq_hz=freqs, time=np.arange(u.size))
    assert not view.is_live() and view.mode() == "scatter"
    assert sum(len(item.data) for item in view.scatter_items) == 4 * u.size
    assert "so far" not in view.info_label.text()
    view.set_live_uv(u, v, freqs)
    for item in view.scatter_items:
        item.hide()
    view.max_points = 0
    view.set_uv(u, v, freq_hz=freqs)
    assert view.density().counts.sum() == 4 * u.size
    assert view.scatter_items == [view.density_item] and view.density_item.isVisible()


def test_fit_shows_the_whole_coverage(qtbot, rng):
    view = UvCoverageView(max_points=0, bins=201)
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    qtbot.waitExposed(view)
    vb = view.plot_item.getViewBox()

    def shows_all(r):
        QtWidgets.QApplication.processEvents()
        (x0, x1), (y0, y1) = vb.viewRange()
        limiting = min(x1 - x0, y1 - y0) / 2
        return x0 <= -r and x1 >= r and y0 <= -r and y1 >= r and limiting <= 1.05 * r

    u, v = rng.normal(size=(2, 3000)) * 1e3
    view.set_uv(u, v, freq_hz=1.4e9)
    r = view.density().half_width
    assert shows_all(r)
    vb.scaleBy((0.2, 0.2))  # a user zoom
    vb.sigRangeChangedManually.emit([True, True])
    assert view.user_zoomed()
    zoomed = vb.targetRange()
    view.set_live_uv(2 * u, 2 * v, [1.4e9])  # live updates keep the user's zoom
    assert np.allclose(vb.targetRange(), zoomed)
    view.set_uv(2 * u, 2 * v, freq_hz=1.4e9)  # a result: the whole coverage again
    assert shows_all(2 * r) and not view.user_zoomed()
    view.set_units("lambda")
    assert shows_all(view.density().half_width)
    vb.scaleBy((0.2, 0.2))
    view.fit_button.click()
    assert shows_all(view.density().half_width)


def test_deferred_samples_answer_at_once_and_are_drawn_when_shown(qtbot, rng):
    view = UvCoverageView(max_points=0, bins=101)
    qtbot.addWidget(view)
    u, v = rng.normal(size=(2, 3000)) * 1e3
    view.set_live_uv(u[:100], v[:100], [1.4e9], defer=True)
    assert view.is_live() and view.points()[0].size == 200
    assert view.needs_drawing() and not view.density_item.isVisible()
    view.set_uv(u, v, freq_hz=[1.4e9, 1.5e9], defer=True)
    assert not view.is_live() and view.points()[0].size == 4 * u.size
    view.show()
    qtbot.waitExposed(view)
    assert not view.needs_drawing() and view.density_item.isVisible()
    assert view._density.counts.sum() == 4 * u.size
    assert "all 12,000 samples" in view.info_label.text()
    view.set_live_uv(u, v, [1.4e9], defer=True)
    assert view.mode() == "density" and view.density().counts.sum() == 2 * u.size  # drawn
    assert not view.needs_drawing() and "so far" in view.info_label.text()


def test_rejects_mismatched_inputs(view):
    with pytest.raises(ValueError):
        view.set_uv(np.zeros(3), np.zeros(4), freq_hz=1e9)
    with pytest.raises(ValueError):
        view.set_uv(np.zeros(3), np.zeros(3), freq_hz=1e9, time=np.zeros(2))
    with pytest.raises(ValueError):
        view.set_units("parsec")
    with pytest.raises(ValueError):
        view.set_live_uv(np.zeros(3), np.zeros(2), 1e9)


def test_clear_shows_nothing(view, track):
    u, v, t, _ = track
    view.set_uv(u, v, freq_hz=1e9, time=t)
    view.clear()
    assert view.mode() == "empty" and view.points()[0].size == 0 and not view.is_live()
    assert view.scatter_items == [] and not view.density_item.isVisible()
    view.set_live_uv(u, v, 1e9)
    view.clear()
    assert not view.is_live() and view.mode() == "empty"
