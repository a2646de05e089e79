"""Static figures: the asinh colour bar's ticks."""

import numpy as np
import pytest
from matplotlib.colors import AsinhNorm

from uvlab.app.plots import show_image, spread_ticks
from uvlab.gpu.imaging.spec import ImageSpec


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
