"""UvCoverageView: both Hermitian halves, units, colouring, decimation."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.widgets.uv_coverage_view import UvCoverageView

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


def test_both_halves_in_klambda_and_metres(view, track):
    u, v, t, _ = track
    view.set_uv(u, v, freq_hz=1.4e9, time=t)
    x, y = view.points()
    assert x.size == 2 * u.size
    k = 1.4e9 / C / 1e3
    ex, ey = sorted_xy(np.r_[u, -u] * k, np.r_[v, -v] * k)
    np.testing.assert_allclose(np.c_[sorted_xy(x, y)], np.c_[ex, ey], rtol=1e-12)
    assert view.plot_item.getAxis("bottom").labelText == "u (kλ)"
    view.set_units("m")
    x, y = view.points()
    np.testing.assert_allclose(np.c_[sorted_xy(x, y)], np.c_[sorted_xy(np.r_[u, -u], np.r_[v, -v])])
    assert view.plot_item.getAxis("left").labelText == "v (m)"
    for item in view.scatter_items:
        assert item.opts["pxMode"] and item.opts["pen"].style().name == "NoPen"


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


def test_decimation_is_labelled(qtbot, rng):
    view = UvCoverageView(max_points=1000)
    qtbot.addWidget(view)
    u, v = rng.normal(size=(2, 20_000))
    view.set_uv(u, v, freq_hz=1e9)
    x, _ = view.points()
    assert 0 < x.size <= 1000
    assert "decimated" in view.info_label.text() and "40,000" in view.info_label.text()


def test_rejects_mismatched_inputs(view):
    with pytest.raises(ValueError):
        view.set_uv(np.zeros(3), np.zeros(4), freq_hz=1e9)
    with pytest.raises(ValueError):
        view.set_uv(np.zeros(3), np.zeros(3), freq_hz=1e9, time=np.zeros(2))
    with pytest.raises(ValueError):
        view.set_units("parsec")
