"""The main window end to end: first result, edits, newest wins, cancel, teaching touches."""

from __future__ import annotations

import gc
import time
from dataclasses import replace

import numpy as np
import pytest

from uvlab.app.gui.panels.fields import is_marked_invalid
from uvlab.app.lab.imaging import lab_default_algorithm
from uvlab.app.lab.jobs import ImageOutput
from uvlab.app.lab.placement import demo_sky_for


def test_first_result_matches_engine(make_window, small_state, wait_result, engine_image):
    w = make_window(small_state)
    out = wait_result(w).output
    assert isinstance(out, ImageOutput) and out.spec.npix == 128
    ref = engine_image(small_state.observation, small_state.sky, out.spec, small_state.imaging)
    shown = w.views.dirty_view.image()
    np.testing.assert_allclose(shown, ref.dirty, rtol=0, atol=1e-12)
    assert shown.max() == pytest.approx(ref.dirty.max(), rel=1e-12)
    np.testing.assert_allclose(w.views.psf_view.image(), ref.psf, rtol=0, atol=1e-12)
    assert w.views.psf_view.image().max() == pytest.approx(1.0, abs=1e-5)  # ε = 1e-5
    total = small_state.sky.total_flux(float(out.freq_hz.mean()))
    assert w.views.sky_view.image().sum() == pytest.approx(total, rel=1e-9)
    assert "Done" in w.statusBar().currentMessage()
    assert w.views.uv_view.points()[0].size == 2 * out.uv.nrow * 2  # both halves, 2 channels
    assert len(w.views.array_view.positions()) == 7
    # the start-up clock (process start → first image, first complete image), logged once
    from uvlab.app.runtime.process_clock import process_age_s

    assert 0.0 < w.jobs.first_image_s <= w.jobs.first_result_s <= process_age_s()
    logged = [line for line in w.views.log_view.lines() if "first image on screen" in line]
    assert len(logged) == 1 and f"{w.jobs.first_image_s:.2f} s after uvlab started" in logged[0]


def test_algorithm_change_updates_timing_and_image(make_window, small_state, wait_result):
    w = make_window(small_state)
    first = wait_result(w).output
    conv_stages = set(w.views.timing_view.bars)
    w.imaging_panel.set_algorithm("nn")
    second = wait_result(w).output
    assert second.algorithm == "nn"
    assert list(w.views.timing_runs()) == ["CPU nn 128²"]
    assert set(w.views.timing_view.bars) != conv_stages  # nn has FFT/correct stages
    assert "FFT" in w.views.timing_view.bars and "display" in w.views.timing_view.bars
    assert np.abs(w.views.dirty_view.image() - first.dirty).max() > 1e-3


def test_results_are_drawn_in_stages_and_hidden_tabs_when_shown(
    make_window, small_state, wait_result, qtbot
):
    from uvlab.widgets import SkyImageView

    w = make_window(small_state)
    result = wait_result(w)
    out, v = result.output, w.views
    label = f"CPU {out.algorithm} {out.spec.npix}²"
    handed_over = v.show_result(result)  # again, to look between the stages
    assert v.is_drawing() and v.timing_runs()[label]["display"] == handed_over
    np.testing.assert_array_equal(v.sky_view.image(), out.model)  # the data at once
    qtbot.waitUntil(lambda: not v.is_drawing(), timeout=5_000)
    assert not any(view.needs_drawing() for view in (v.dirty_view, v.psf_view, v.uv_view))
    assert v.sky_view.needs_drawing() and v.timing_view.needs_drawing()  # hidden tabs wait
    assert v.timing_runs()[label]["display"] > handed_over  # the stages' drawing time
    w.show_tab("sky")
    assert not v.sky_view.needs_drawing()
    ref = SkyImageView(stretch="asinh")  # what drawing at once shows
    qtbot.addWidget(ref)
    ref.set_image(out.model, out.spec, units="Jy/pixel")
    np.testing.assert_array_equal(v.sky_view.image_item.image, ref.image_item.image)
    assert v.sky_view.levels() == ref.levels()
    w.show_tab("timing")
    assert not v.timing_view.needs_drawing() and "display" in v.timing_view.bars


def test_rapid_changes_end_with_the_last(make_window, small_state, wait_result, qtbot):
    w = make_window(small_state)
    wait_result(w)
    shown = []

    def record(result):
        shown.append((result.job_id, w.controller.latest_job_id, result.output.spec.npix))

    w.controller.result_ready.connect(record)
    sizes = (64, 96, 160, 80, 192, 112)
    for npix in sizes[:3]:  # forced submissions: each cancels the one before
        w.imaging_panel.npix_spin.setValue(npix)
        w.controller.submit()
        qtbot.wait(5)
    for npix in sizes[3:]:  # edits faster than the debounce: one job at the end
        w.imaging_panel.npix_spin.setValue(npix)
        qtbot.wait(30)
    qtbot.waitUntil(
        lambda: bool(shown) and shown[-1][2] == sizes[-1] and not w.controller.busy, timeout=20_000
    )
    assert all(job == latest for job, latest, _ in shown)  # nothing stale was shown
    assert w.views.dirty_view.image().shape == (sizes[-1], sizes[-1])
    assert w.views.last_image.spec.npix == sizes[-1]


def test_cancel_long_run_gui_stays_responsive(make_window, small_state, qtbot):
    from uvlab.app.observing.observation import simulate_observation
    from uvlab.app.skymodel import demo_sky

    simulate_observation(small_state.observation)  # astropy warmed up outside the timing
    gc.collect()  # earlier tests' garbage is not collected inside the timing either
    obs = replace(
        small_state.observation, layout="meerkat", ha_start_h=-4.0, ha_stop_h=4.0, int_s=30.0
    )
    sky = demo_sky("random", obs.ra_deg, obs.dec_deg, fov_deg=1.0, n=30)
    state = replace(
        small_state, observation=obs, sky=sky, imaging=replace(small_state.imaging, npix=256)
    )
    w = make_window(state, run_on_start=False)
    qtbot.waitExposed(w)
    qtbot.wait(300)  # first paint of the new window done
    results, finished = [], []
    w.controller.result_ready.connect(results.append)
    w.controller.worker.finished.connect(lambda j, r: finished.append(j))
    ticks = []
    timer = w.startTimer(10)  # QObject timer on the window: its ticks show GUI stalls
    w.timerEvent = lambda ev: ticks.append(time.perf_counter())
    request = w.controller.submit()
    t_submit = time.perf_counter()
    qtbot.waitUntil(lambda: w.run_panel.progress.value() > 100, timeout=20_000)
    qtbot.wait(500)
    t_cancel = time.perf_counter()
    with qtbot.waitSignal(w.controller.job_cancelled, timeout=10_000) as blocker:
        w.run_panel.cancel_button.click()
    qtbot.wait(300)
    w.killTimer(timer)
    assert blocker.args == [request.job_id]
    assert results == [] and finished == []  # the cancelled result never appears
    assert w.views.last_image is None and w.run_panel.status.text() == "Cancelled"
    # the event loop kept turning while the job ran (its stall and the cancel latency are
    # timed by `uvlab bench gui`, not here: a busy machine would fail a bound)
    assert sum(t_submit < t < t_cancel for t in ticks) >= 5


def test_the_event_loop_turns_while_a_job_runs_and_draws(make_window, small_state, qtbot):
    """Issue 13: the event loop turns while a job runs and while its result is drawn."""
    obs = replace(small_state.observation, layout="meerkat", int_s=120.0, nchan=4)
    imaging = replace(small_state.imaging, npix=512)
    sky = demo_sky_for("teaching", obs, imaging)
    state = replace(small_state, observation=obs, sky=sky, imaging=imaging)
    w = make_window(state)  # the default scene's size: 1.45e6 visibilities, 512² images
    qtbot.waitExposed(w)
    # warm-up outside the timing: the first job, its first drawing of every view
    qtbot.waitUntil(lambda: w.views.last_image is not None, timeout=180_000)
    qtbot.waitUntil(lambda: not w.views.is_drawing(), timeout=60_000)
    qtbot.wait(300)
    gc.collect()  # earlier tests' garbage is not collected inside the timing either
    results = []
    w.controller.result_ready.connect(results.append)
    ticks = []
    timer = w.startTimer(10)  # QObject timer on the window: its ticks show GUI stalls
    w.timerEvent = lambda ev: ticks.append(time.perf_counter())
    w.obs_panel.set_ha_range(-2.5, 3.0)  # a new prediction: partials, then the result
    w.binding.commit("observation")
    w.controller.submit()
    t_submit = time.perf_counter()
    qtbot.waitUntil(lambda: bool(results), timeout=180_000)
    t_result = time.perf_counter()
    qtbot.waitUntil(lambda: not w.views.is_drawing(), timeout=60_000)
    qtbot.wait(300)  # the last repaint
    w.killTimer(timer)
    assert results[0].output.nvis == 165 * 2016 * 4 and w.views.last_image is results[0].output
    # the event loop turned while the job ran and while its result was drawn; the worst
    # stall (target < 0.1 s) is timed by `uvlab bench gui`, where a busy machine fails no test
    assert sum(t_submit < t < t_result for t in ticks) >= 5
    assert sum(t > t_result for t in ticks) >= 5


def test_invalid_input_is_marked_and_not_accepted(make_window, small_state, wait_result, qtbot):
    w = make_window(small_state)
    wait_result(w)
    submitted = []
    w.controller.submitted.connect(submitted.append)
    w.imaging_panel.cell_edit.setText("abc")
    assert is_marked_invalid(w.imaging_panel.cell_edit)
    w.obs_panel.ha_start.spin.setValue(5.0)  # after the stop hour angle
    assert is_marked_invalid(w.obs_panel.ha_start.spin)
    assert "observation not accepted" in w.statusBar().currentMessage()
    qtbot.wait(300)
    assert submitted == [] and not w.controller.debounce.isActive()
    w.obs_panel.ha_start.spin.setValue(-2.0)
    w.imaging_panel.cell_edit.setText("40")
    assert not is_marked_invalid(w.imaging_panel.cell_edit)
    out = wait_result(w).output
    assert len(submitted) == 1 and out.spec.cell_arcsec == pytest.approx(40.0)


def test_drag_antenna_changes_layout_and_reruns(make_window, small_state, wait_result):
    w = make_window(small_state)
    before = wait_result(w).output
    enu = w.views.array_view.positions()
    w.views.array_view.finish_drag(0, enu[0, 0] + 400.0, enu[0, 1] + 300.0)
    after = wait_result(w).output
    layout = w.controller.latest_request.observation.layout
    assert layout.name == "kat-7 (modified)"
    np.testing.assert_allclose(layout.enu()[0, :2], enu[0, :2] + [400.0, 300.0], atol=1e-6)
    uv_max = [np.hypot(o.uv.u_m, o.uv.v_m).max() for o in (before, after)]
    assert uv_max[1] > uv_max[0] + 300.0  # a longer baseline now
    state = w.model.state.session()
    assert state.modified_antennas_enu is not None and state.observation.layout == "kat-7"


def test_click_on_dirty_image_adds_a_source(make_window, small_state, wait_result):
    from uvlab.gpu.geometry import radec_to_lmn

    w = make_window(small_state)
    out = wait_result(w).output
    n = len(w.sky_panel.sky_model())
    l, m = -10 * out.spec.cell_rad, 20 * out.spec.cell_rad
    w.views.dirty_view.clicked.emit(l, m)
    comp = w.sky_panel.sky_model()[-1]
    assert len(w.sky_panel.sky_model()) == n + 1 and comp.stokes[0] == 0.5
    lmn = radec_to_lmn(np.radians(comp.ra_deg), np.radians(comp.dec_deg), out.ra0_rad, out.dec0_rad)
    np.testing.assert_allclose(np.ravel(lmn)[:2], [l, m], atol=1e-12)
    again = wait_result(w).output
    assert again.nsrc == n + 1
    assert again.model[64 + 20, 64 + 10] == pytest.approx(0.5, rel=1e-9)


def test_aliasing_tab_computes_on_request(make_window, small_state, wait_result):
    state = replace(small_state, imaging=replace(small_state.imaging, npix=64))
    w = make_window(state)
    wait_result(w)
    assert not w.views.aliasing_view.is_computed()
    w.views.aliasing_view.compute_button.click()
    out = wait_result(w).output
    assert out.metrics["rms_central"] < 1e-4
    assert w.views.aliasing_view.metrics.rowCount() == 1
    assert w.views.aliasing_view.error_view.image().shape == (64, 64)
    # the window says which algorithm ran: the device's default (ducc without a GPU)
    assert f"Aliasing of {lab_default_algorithm()}" in w.views.aliasing_view.note.text()


def test_the_aliasing_tab_fits_a_laptop_screen_after_compute(make_window, small_state, wait_result):
    """Issue 28: both maps and R(X) on a 1366×768 screen, no scroll bar, each map ≥ 300 px."""
    from PyQt6 import QtWidgets

    state = replace(small_state, imaging=replace(small_state.imaging, npix=64))
    w = make_window(state)
    wait_result(w)
    w.show_tab("aliasing")
    w.resize(1358, 732)  # the window's frame on a 1366×768 screen (tests.support.window_probe)
    view = w.views.aliasing_view
    view.compute_button.click()
    wait_result(w)
    QtWidgets.QApplication.processEvents()
    assert w.views.currentWidget() is view  # the tab itself: no scroll area around it
    assert not any(bar.isVisible() for bar in view.findChildren(QtWidgets.QScrollBar))
    for v in (view.error_view, view.analytic_view):
        assert min(v.width(), v.height()) >= 300, (v.width(), v.height())
    assert view.scan_view.isVisible() and view.scan_view.height() >= 300


def test_menu_run_action_and_linked_zoom(make_window, small_state, wait_result):
    w = make_window(small_state, run_on_start=False)
    w.run_action.trigger()  # triggered(bool) must not become submit()'s task
    out = wait_result(w).output
    assert out.algorithm == lab_default_algorithm()
    assert w.controller.latest_request.task == "image"
    vb = w.views.dirty_view.view_box
    vb.setRange(xRange=(-5.0, 3.0), yRange=(-2.0, 6.0), padding=0)
    vb.sigRangeChangedManually.emit([True, True])  # as a mouse zoom does
    for other in (w.views.psf_view, w.views.sky_view):
        (x0, x1), (y0, y1) = other.view_box.viewRange()
        assert x0 <= -5.0 + 1e-9 and x1 >= 3.0 - 1e-9 and y0 <= -2.0 + 1e-9 and y1 >= 6.0 - 1e-9
        assert (x0 + x1) / 2 == pytest.approx(-1.0) and (y0 + y1) / 2 == pytest.approx(2.0)


def test_gpu_request_without_gpu_is_a_clear_error(make_window, small_state, qtbot):
    from tests.support.device import HAS_GPU

    if HAS_GPU:
        pytest.skip("a GPU is present")
    w = make_window(small_state, run_on_start=False)
    w.imaging_panel.device_combo.setCurrentText("gpu")
    with qtbot.waitSignal(w.controller.job_failed, timeout=10_000) as blocker:
        w.controller.submit()
    assert "GPU was requested but none is usable" in blocker.args[0]
    assert "GPU was requested" in w.statusBar().currentMessage()
