"""Save figure…: captioned PNG/SVG/PDF of the views, drawn from their data."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtGui

from uvlab.app.gui.figure_export import PANEL_IN, PNG_DPI, fourier_panel, image_panel, uv_panel
from uvlab.widgets.fourier_plane_view import FLOOR_DEX
from uvlab.widgets.image_view import ARCMIN


def test_figure_of_the_dirty_image_has_its_axes_data_and_caption(
    make_window, small_state, wait_result, tmp_path
):
    w = make_window(small_state)
    out = wait_result(w).output
    view = w.views.dirty_view
    view.set_stretch("linear")
    panel = image_panel(view)
    # the data as shown (linear: the image itself), on the DESIGN §1 axes: l = −(i − N/2)·cell
    np.testing.assert_array_equal(panel.image, out.dirty.astype(np.float32))
    n, cell = out.spec.npix, out.spec.cell_rad / ARCMIN
    left, right, bottom, top = panel.extent
    assert left == pytest.approx((n // 2 + 0.5) * cell)  # East (l > 0) on the left
    assert right == pytest.approx(-(n - 1 - n // 2 + 0.5) * cell)
    assert (bottom, top) == pytest.approx((-(n // 2 + 0.5) * cell, (n - 1 - n // 2 + 0.5) * cell))
    assert panel.levels == view.levels() and "Jy/beam" in panel.units

    png = w.figures.save([panel], tmp_path / "dirty.png")
    image = QtGui.QImage(str(png))
    assert image.width() == round(PANEL_IN[0] * PNG_DPI)  # 840 px for one panel at 200 dpi
    svg = w.figures.save([panel], tmp_path / "dirty.svg").read_text()
    obs, imaging = small_state.observation, small_state.imaging
    for text in (
        f"Dec {obs.dec_deg:+.2f}°",
        f"{obs.freq_hz / 1e6:g} MHz",
        f"{imaging.weighting} weighting",
        f"{imaging.algorithm} {imaging.npix}²",
        "l (arcmin), East ←",
        "m (arcmin), North ↑",
        "units Jy/beam;",
    ):
        assert text in svg, text
    assert "crosshair" not in svg
    assert w.figures.save([panel], tmp_path / "dirty.pdf").read_bytes().startswith(b"%PDF")


def test_six_panel_figure_and_bad_paths(make_window, small_state, wait_result, tmp_path):
    w = make_window(small_state)
    wait_result(w)
    v = w.views
    panels = [
        image_panel(v.sky_view),
        fourier_panel(v.fourier_view),
        uv_panel(v.uv_view),
        image_panel(v.psf_view),
        image_panel(v.dirty_view),
        image_panel(v.deconv_view.restored_view),  # no CLEAN yet: left out
    ]
    assert panels[-1] is None and all(p is not None for p in panels[:-1])
    x, y = v.uv_view.points()
    np.testing.assert_array_equal(panels[2].points[0], x)
    np.testing.assert_array_equal(panels[2].points[1], y)
    assert panels[1].levels == (-10.0 * FLOOR_DEX, 0.0)  # dB below the peak
    png = QtGui.QImage(str(w.figures.save(panels, tmp_path / "six.png")))
    assert png.width() == round(3 * PANEL_IN[0] * PNG_DPI)  # 3 columns, 2 rows
    with pytest.raises(ValueError, match=r"six\.jpg: a figure is saved as \.png, \.svg or \.pdf"):
        w.figures.save(panels, tmp_path / "six.jpg")
    with pytest.raises(OSError, match="nowhere"):
        w.figures.save(panels, tmp_path / "nowhere" / "six.png")
    with pytest.raises(ValueError, match="no picture to save yet"):
        w.figures.save([None], tmp_path / "empty.png")


def test_figure_of_a_stale_picture_says_so(make_window, small_state, wait_result, qtbot, tmp_path):
    w = make_window(small_state)
    wait_result(w)
    w.obs_panel.dec.spin.setValue(60.0)  # never seen by the array: the run fails
    with qtbot.waitSignal(w.controller.job_failed, timeout=30_000):
        pass
    caption = w.figures.caption()
    assert caption.startswith("Out of date: the run failed")
    # the rest of the caption is the shown result's, not the failed settings'
    assert f"Dec {small_state.observation.dec_deg:+.2f}°" in caption and "+60.00" not in caption
    svg = w.figures.save([image_panel(w.views.dirty_view)], tmp_path / "stale.svg").read_text()
    assert "Out of date: the run failed" in svg
