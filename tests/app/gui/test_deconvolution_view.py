"""The Deconvolution tab end to end: CLEAN live in the worker, the teaching slider, cancel."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clean_scenes import psf_subtracted
from uvlab.app.lab.clean_task import CleanOptions, CleanState


def _clean(w, qtbot, opts: CleanOptions, timeout=30_000):
    w.views.deconv_view.set_options(opts)
    with qtbot.waitSignal(
        w.controller.result_ready, timeout=timeout, check_params_cb=lambda r: r.task == "clean"
    ) as blocker:
        w.controller.submit("clean")
    return blocker.args[0].output


def test_clean_shows_every_cycle_and_the_result(make_window, small_state, wait_result, qtbot):
    w = make_window(small_state)
    image = wait_result(w).output
    view = w.views.deconv_view
    shown = []
    w.controller.partial_ready.connect(lambda p: p.clean is not None and shown.append(p.clean))
    out = _clean(w, qtbot, CleanOptions("hogbom", niter=300, gain=0.1, mgain=0.7))
    assert isinstance(out, CleanState) and out.done and out.iterations == 300
    assert w.views.currentWidget() is w.views.deconv_tab
    # live: the states of the cycles arrived before the result, in order
    its = [s.iterations for s in shown]
    assert len(shown) >= 3 and its == sorted(its) and its[-1] == 300
    np.testing.assert_allclose(out.dirty, image.dirty, atol=1e-12)  # the window's dirty image
    np.testing.assert_array_equal(view.dirty_view.image(), out.dirty)
    np.testing.assert_array_equal(view.residual_view.image(), out.residual)
    np.testing.assert_array_equal(view.restored_view.image(), out.restored)
    x, y = view.curves.curve_data("|peak|")
    np.testing.assert_array_equal(x, np.arange(301))
    np.testing.assert_array_equal(y, out.peak)
    assert view.slider.maximum() == 300 and view.slider.value() == 300
    assert "300 of 300 iterations" in view.note.text()
    assert "CLEAN done" in w.statusBar().currentMessage()


def test_slider_shows_the_state_after_k_components(make_window, small_state, wait_result, qtbot):
    from uvlab.gpu.deconvolution import restore

    w = make_window(small_state)
    wait_result(w)
    out = _clean(w, qtbot, CleanOptions("hogbom", niter=120, gain=0.2, mgain=1.0))
    view = w.views.deconv_view
    n = out.spec.npix
    for k in (0, 1, 37):
        view.set_iteration(k)
        model = np.zeros(n * n)
        np.add.at(model, out.comp_j[:k] * n + out.comp_i[:k], out.comp_flux[:k])
        model = model.reshape(n, n)
        np.testing.assert_allclose(view.model_view.image(), model, atol=1e-7)
        residual = psf_subtracted(out.dirty, out.psf, model)  # dirty − PSF ⊛ model_k
        np.testing.assert_allclose(view.residual_view.image(), residual, atol=1e-6)
        restored = restore(model, residual, out.beam, out.spec.cell_rad)
        np.testing.assert_allclose(view.restored_view.image(), restored, atol=1e-6)
        assert view.k_label.text().startswith(f"iteration {k} / 120")
        assert view.k_line.value() == k
    assert np.abs(view.residual_view.image()).max() == pytest.approx(out.peak[37], rel=1e-6)
    view.set_iteration(120)  # the end: CLEAN's own state
    np.testing.assert_array_equal(view.residual_view.image(), out.residual)


def test_cancel_keeps_the_last_complete_cycle(make_window, small_state, wait_result, qtbot):
    w = make_window(small_state)
    wait_result(w)
    view = w.views.deconv_view
    view.set_options(CleanOptions("hogbom", niter=20_000, gain=0.001, mgain=1.0))
    results = []
    w.controller.result_ready.connect(results.append)
    w.controller.submit("clean")
    started = lambda: view.state() is not None and view.state().iterations > 0  # noqa: E731
    qtbot.waitUntil(started, timeout=20_000)
    with qtbot.waitSignal(w.controller.job_cancelled, timeout=20_000):
        w.controller.cancel()
    qtbot.wait(100)  # anything still queued arrives
    s = view.state()
    assert not s.done and 0 < s.iterations < 20_000 and not results
    np.testing.assert_allclose(s.residual, psf_subtracted(s.dirty, s.psf, s.model), atol=1e-10)
    np.testing.assert_array_equal(view.residual_view.image(), s.residual)
    assert view.note.text().startswith("Cancelled: showing the last complete cycle")
    assert not view.is_running()


def test_cotton_schwab_and_an_edit_marks_it_stale(make_window, small_state, wait_result, qtbot):
    w = make_window(small_state)
    wait_result(w)
    out = _clean(w, qtbot, CleanOptions("cotton-schwab", niter=100, mgain=0.5))
    assert out.deconvolver == "cotton-schwab" and out.cycles >= 2
    assert "Cotton–Schwab" in w.views.deconv_view.note.text()
    w.imaging_panel.set_algorithm("nn")
    assert "Parameters changed" in w.views.deconv_view.note.text()
    wait_result(w)


def test_a_sessions_mask_boxes_and_auto_mask_reach_the_clean(
    make_window, small_state, wait_result, qtbot
):
    """Fields the tab has no control for (issue 26: the window gains masks) are kept."""
    w = make_window(small_state)
    wait_result(w)
    box = (52, 52, 76, 76)  # around the centre of the 128² image
    opts = CleanOptions("hogbom", niter=80, mgain=0.8, auto_threshold=1.0, auto_mask=3.0,
                        mask_boxes=(box,))  # fmt: skip
    out = _clean(w, qtbot, opts)
    assert w.views.deconv_view.options() == opts
    j, i = np.nonzero(out.model)
    assert j.size and ((j >= 52) & (j <= 76) & (i >= 52) & (i <= 76)).all()


def test_the_rms_curve_joins_the_points_where_it_was_measured(
    make_window, small_state, wait_result, qtbot
):
    """The sub-minor loop measures the RMS where its loops start: drawn as one line through them."""
    w = make_window(small_state)
    wait_result(w)
    w.controller.submit("clean")
    state = wait_result(w, timeout=120_000).output
    x, y = w.views.deconv_view.curves.curve_data("RMS")
    known = np.isfinite(state.rms)
    assert known.sum() >= 2 and np.array_equal(x, np.flatnonzero(known))
    assert np.all(np.isfinite(y)) and np.allclose(y, state.rms[known])


def test_the_multiscale_checkbox_reaches_the_clean(make_window, small_state, wait_result, qtbot):
    """Issue 29: the tab's checkbox runs multiscale CLEAN; its model holds the components' flux."""
    w = make_window(small_state)
    wait_result(w)
    view = w.views.deconv_view
    opts = CleanOptions("hogbom", niter=60, mgain=0.8, multiscale=True)
    out = _clean(w, qtbot, opts)
    assert view.clean_controls.multiscale_check.isChecked() and view.options() == opts
    assert out.iterations > 0
    assert float(np.sum(out.model)) == pytest.approx(float(np.sum(out.comp_flux)), rel=1e-9)
    assert not view.slider.isEnabled()  # the replay is of point components
    # the model's bright pixels ringed, its scales' faint footprints not counted
    rings = len(view._marks.data)
    assert 0 < rings <= np.count_nonzero(np.abs(out.model) >= 0.01 * np.abs(out.model).max())
    view.clean_controls.multiscale_check.setChecked(False)
    assert not view.options().multiscale


def test_rings_mark_bright_components_and_leave_extended_models_bare():
    """A few bright pixels among many faint ones (multiscale's footprints): the bright are
    ringed; Högbom's few components: all; an extended model: none; an empty one: none."""
    from uvlab.app.gui.deconvolution_view import MAX_RINGS, ringed_pixels

    model = np.zeros((64, 64))
    model[20:44, 20:44] = 1e-4  # 576 faint pixels: a scale's footprint
    model[32, 32], model[10, 50], model[50, 12] = 1.0, -0.3, 0.05
    j, i = ringed_pixels(model)
    assert sorted(zip(j.tolist(), i.tolist())) == [(10, 50), (32, 32), (50, 12)]
    few = np.zeros((64, 64))
    few[5, 5], few[6, 9] = 0.5, 1e-3  # Högbom: every component pixel above 1 % is ringed
    assert len(ringed_pixels(few)[0]) == 1
    extended = np.ones((64, 64))  # a disc, not points: rings would hide it
    assert len(ringed_pixels(extended)[0]) == 0 and MAX_RINGS < extended.size
    assert len(ringed_pixels(np.zeros((8, 8)))[0]) == 0
