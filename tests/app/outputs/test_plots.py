"""Static figures: the asinh colour bar's ticks."""

import numpy as np
import pytest
from matplotlib.colors import AsinhNorm

from uvlab.app.outputs.plots import show_image, spread_ticks
from uvlab.gpu.image_spec import ImageSpec


@pytest.mark.parametrize("vmin, vmax", [(-0.011, 0.9999), (-3.0, 40.0), (0.0, 2e-4)])
def test_spread_ticks_are_apart_once_stretched(vmin, vmax):
    norm = AsinhNorm(linear_width=0.02 * vmax, vmin=vmin, vmax=vmax)
    ticks = spread_ticks(norm, vmin, vmax)
    assert ticks == sorted(ticks) and 0.0 in ticks and len(ticks) >= 3
    assert all(vmin <= t <= vmax for t in ticks)
    pos = np.array([float(norm(t)) for t in ticks])
    assert np.diff(pos).min() >= 0.08
    # the pair matplotlib's own locator labelled on top of each other stays apart
    assert not ({0.0, 1e-3} <= set(ticks) and abs(norm(1e-3) - norm(0.0)) < 0.08)


def test_show_image_labels_the_bar_with_spread_ticks():
    plt = pytest.importorskip("matplotlib.pyplot")
    fig, ax = plt.subplots()
    img = np.zeros((16, 16))
    img[8, 8], img[2, 3] = 1.0, -0.01
    im = show_image(ax, img, ImageSpec(16, 1e-5), "t")
    bar = im.colorbar
    ticks = list(bar.get_ticks())
    assert ticks == spread_ticks(im.norm, im.norm.vmin, im.norm.vmax)
    assert [t.get_text() for t in bar.ax.get_yticklabels()] == [f"{t:g}" for t in ticks]
    plt.close(fig)


def test_uv_panel_counts_every_sample_of_both_halves():
    from types import SimpleNamespace

    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from uvlab.app.outputs.plots import uv_density_panel

    rng = np.random.default_rng(3)
    u_m, v_m = rng.normal(0, 300, 5000), rng.normal(0, 200, 5000)
    freq = np.array([1.4e9])
    out = SimpleNamespace(uv=SimpleNamespace(u_m=u_m, v_m=v_m), freq_hz=freq)
    fig, ax = plt.subplots()
    try:
        uv_density_panel(ax, out, nbins=64)
        counts = np.nan_to_num(ax.images[0].get_array().filled(np.nan))
        assert counts.sum() == 2 * u_m.size  # every sample, and its mirror
        np.testing.assert_array_equal(counts, counts[::-1, ::-1])  # Hermitian symmetry
        k = 1.4e9 / 299792458.0 / 1e3
        j = np.argmax(np.abs(u_m))  # the outermost sample sits in an edge cell, in kλ
        x0, x1, _, _ = ax.images[0].get_extent()
        assert x1 == pytest.approx(np.abs(np.concatenate([u_m, v_m])).max() * k * 1.02)
        col = int((u_m[j] * k - x0) / (x1 - x0) * 64)
        assert col in (0, 63)
    finally:
        plt.close(fig)
