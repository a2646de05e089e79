"""Opening real MeasurementSets in the window (read in the worker thread only)."""

from __future__ import annotations

import threading

import numpy as np


def test_lwasv_stokes_i_image_appears(make_window, small_state, wait_result, ms_copy, monkeypatch):
    import uvlab.app.ms as ms_pkg
    from uvlab.app.ms import read_visibilities
    from uvlab.gpu.imaging.imager import make_image

    threads = []
    real_open = ms_pkg.open_ms

    def spy_open(path):
        threads.append(threading.current_thread())
        return real_open(path)

    monkeypatch.setattr(ms_pkg, "open_ms", spy_open)
    path = ms_copy("lwasv_4ant.ms")
    w = make_window(small_state, run_on_start=False)
    w.files.open_ms(str(path))
    out = wait_result(w).output
    assert out.source == "ms" and "lwasv_4ant.ms" in out.description
    assert threads and all(t is not threading.main_thread() for t in threads)  # casacore: worker
    vis = read_visibilities(path, stokes="I")
    ref = make_image(
        vis.uvw,
        vis.freq_hz,
        vis.vis,
        vis.weight,
        out.spec,
        flag=vis.flag,
        algorithm="conv",
        params=small_state.imaging.grid_params(),
    )
    np.testing.assert_allclose(w.views.dirty_view.image(), ref.dirty, rtol=0, atol=1e-12)
    assert "LWASV" in w.obs_panel.ms.summary.toPlainText()
    assert w.obs_panel.ms.stokes_combo.currentData() == "I"
    assert len(w.views.array_view.positions()) == 4
    assert w.settings.recent_ms() == [str(path)]


def test_paper_xy_stokes_i_errors_then_xy_works(
    make_window, small_state, wait_result, qtbot, ms_copy
):
    path = ms_copy("paper_xy.ms")
    w = make_window(small_state)
    good = wait_result(w).output  # a valid synthetic result first
    with qtbot.waitSignal(w.controller.job_failed, timeout=30_000) as blocker:
        w.files.open_ms(str(path))
    assert "cannot form Stokes I" in blocker.args[0]
    assert "cannot form Stokes I" in w.statusBar().currentMessage()
    assert any("cannot form Stokes I" in line for line in w.views.log_view.lines())
    np.testing.assert_array_equal(w.views.dirty_view.image(), good.dirty)  # last result stays
    combo = w.obs_panel.ms.stokes_combo
    assert combo.findData("XY") >= 0  # the summary filled the combos before the error
    w.obs_panel.ms.set_stokes("XY")
    out = wait_result(w).output
    assert out.source == "ms" and "XY" in out.description
    assert w.views.dirty_view.image().shape == (128, 128)
    assert "Done" in w.statusBar().currentMessage()


def test_not_an_ms_is_a_clear_error(make_window, small_state, qtbot, tmp_path):
    w = make_window(small_state, run_on_start=False)
    with qtbot.waitSignal(w.controller.job_failed, timeout=10_000) as blocker:
        w.files.open_ms(str(tmp_path))
    assert "not a MeasurementSet" in blocker.args[0]


def test_ms_source_without_ms_is_refused(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.obs_panel.set_source("ms")
    with qtbot.waitSignal(w.controller.job_failed, timeout=2000) as blocker:
        w.controller.submit()
    assert "no MeasurementSet opened" in blocker.args[0]
