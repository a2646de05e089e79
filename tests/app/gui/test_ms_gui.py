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
        algorithm=small_state.imaging.algorithm,
        params=small_state.imaging.grid_params(),
    )
    np.testing.assert_allclose(w.views.dirty_view.image(), ref.dirty, rtol=0, atol=1e-12)
    assert "LWASV" in w.obs_panel.ms.summary.toPlainText()
    assert w.obs_panel.ms.stokes_combo.currentData() == "I"
    assert len(w.views.array_view.positions()) == 4
    assert w.settings.recent_ms() == [str(path)]


def test_paper_xy_images_xy_and_clears_the_old_views_then_stokes_i_errors(
    make_window, small_state, wait_result, qtbot, ms_copy
):
    from uvlab.app.ms import read_visibilities

    path = ms_copy("paper_xy.ms")
    w = make_window(small_state)
    wait_result(w)  # a synthetic result first
    seen = []

    def on_partial(p):  # the window's own slot ran first: the old views are gone
        if p.info is not None:
            seen.append((w.views.dirty_view.image(), w.views.uv_view.mode()))

    w.controller.partial_ready.connect(on_partial)
    w.files.open_ms(str(path))
    out = wait_result(w).output  # an XY-only MS images XY without being asked
    assert seen and seen[0] == (None, "empty")
    assert out.source == "ms" and " XY," in out.description
    combo = w.obs_panel.ms.stokes_combo
    assert combo.currentData() == "XY"
    raw = read_visibilities(path, stokes="XY")
    assert out.nvis == int((~raw.flag).sum())
    good = w.views.dirty_view.image().copy()
    with qtbot.waitSignal(w.controller.job_failed, timeout=30_000) as blocker:
        w.obs_panel.ms.set_stokes("I")
    assert "cannot form Stokes I: this MS holds XY only; choose Stokes XY" in blocker.args[0]
    assert "--stokes" not in blocker.args[0]  # nothing a GUI user cannot do
    assert "cannot form Stokes I" in w.statusBar().currentMessage()
    assert any("cannot form Stokes I" in line for line in w.views.log_view.lines())
    np.testing.assert_array_equal(w.views.dirty_view.image(), good)  # last result stays
    assert w.obs_panel.source() == "ms"  # an error after the open: the MS stays selected


def test_not_an_ms_is_refused_and_nothing_changes(
    make_window, small_state, wait_result, qtbot, tmp_path
):
    w = make_window(small_state)
    good = wait_result(w).output
    submitted = []
    w.controller.submitted.connect(submitted.append)
    assert w.files.open_ms(str(tmp_path)) is False
    assert w.settings.recent_ms() == []
    message = w.statusBar().currentMessage()
    assert "not a MeasurementSet" in message and str(tmp_path) in message
    assert "\n" not in message
    assert submitted == []  # no job: the previous state is intact
    assert w.obs_panel.source() == "synthetic"
    np.testing.assert_array_equal(w.views.dirty_view.image(), good.dirty)


def test_corrupt_ms_restores_the_previous_selection(
    make_window, small_state, wait_result, qtbot, ms_copy
):
    good_path = ms_copy("lwasv_4ant.ms")
    bad_path = ms_copy("paper_xy.ms")
    (bad_path / "table.dat").write_bytes(b"this is not a casacore table")
    w = make_window(small_state, run_on_start=False)
    w.files.open_ms(str(good_path))
    good = wait_result(w).output
    with qtbot.waitSignal(w.controller.job_failed, timeout=30_000) as blocker:
        w.files.open_ms(str(bad_path))
    assert "paper_xy.ms" in blocker.args[0]
    assert w.obs_panel.ms.path() == str(good_path)  # the previous MS is selected again
    assert "LWASV" in w.obs_panel.ms.summary.toPlainText()  # not stuck on "Reading …"
    assert w.obs_panel.ms.stokes_combo.count() > 0
    np.testing.assert_array_equal(w.views.dirty_view.image(), good.dirty)
    w.controller.submit()  # and it still images
    assert wait_result(w).output.description == good.description


def test_ms_source_without_ms_is_refused(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    with qtbot.waitSignal(w.controller.job_failed, timeout=2000) as blocker:
        w.obs_panel.source_combo.setCurrentIndex(1)  # MeasurementSet, as a user picks it
        w.controller.submit()
    assert "no MeasurementSet opened" in blocker.args[0]
