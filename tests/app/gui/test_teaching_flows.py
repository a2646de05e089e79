"""The flows a lecturer meets first: the sky follows the pointing, arrays that cannot see the
field, sky edits, lessons, views that fit, a uv panel that leaves its live look."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.app.lab.lessons import LESSONS
from uvlab.app.observing.elevation import field_visibility
from uvlab.app.observing.observation import simulate_observation
from uvlab.gpu.geometry import radec_to_lmn
from uvlab.widgets.image_view import ARCMIN


def _offsets(sky, ra0_deg, dec0_deg):
    ra = np.radians([c.ra_deg for c in sky])
    dec = np.radians([c.dec_deg for c in sky])
    return radec_to_lmn(ra, dec, math.radians(ra0_deg), math.radians(dec0_deg))[:, :2]


def _peak_lm(out):
    j, i = np.unravel_index(np.argmax(out.dirty), out.dirty.shape)
    spec = out.spec
    return -(i - spec.npix // 2) * spec.cell_rad, (j - spec.npix // 2) * spec.cell_rad


def test_declination_change_moves_a_demo_sky_with_the_phase_centre(
    make_window, small_state, wait_result
):
    w = make_window(small_state)
    first = wait_result(w).output
    spec0 = w.obs_panel.observation_spec(for_job=False)
    before = _offsets(w.sky_panel.sky_model(), spec0.ra_deg, spec0.dec_deg)
    w.obs_panel.dec.spin.setValue(-20.0)  # as the user types it
    out = wait_result(w).output
    sky = w.sky_panel.sky_model()
    assert sky.centre_deg == pytest.approx((spec0.ra_deg, -20.0))
    np.testing.assert_allclose(_offsets(sky, spec0.ra_deg, -20.0), before, atol=1e-12)
    # the image still shows the sky: its brightest source where it was, about as bright
    assert math.dist(_peak_lm(out), _peak_lm(first)) <= 2 * out.spec.cell_rad
    assert out.dirty.max() == pytest.approx(first.dirty.max(), rel=0.1)


def test_meerkat_to_vla_picks_a_declination_the_vla_sees(make_window, small_state, wait_result):
    w = make_window(small_state, run_on_start=False)
    assert w.obs_panel.observation_spec(for_job=False).dec_deg == pytest.approx(-43.019)
    w.obs_panel.set_layout_name("vla.d")
    out = wait_result(w).output
    spec = w.obs_panel.observation_spec(for_job=False)
    assert spec.dec_deg > -43.0 and field_visibility(spec) is None
    obs = simulate_observation(spec)  # the oracle: the simulation's own elevation flags
    assert not obs.flag.any()
    assert out.nvis > 0 and np.isfinite(out.dirty).all() and out.dirty.max() > 0
    note = [ln for ln in w.views.log_view.lines() if "never rises above" in ln]
    assert len(note) == 1 and "vla.d" in note[0] and f"Dec set to {spec.dec_deg:+g}°" in note[0]
    assert "Dec set to" in w.tips.label.text()  # said where the lecturer looks, too


def test_declination_below_the_limit_offers_a_one_click_fix(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    w.obs_panel.dec.spin.setValue(60.0)  # kat-7 at −30.7°: never above 15°
    assert w.tips.has_fix() and w.tips.fix_button.isVisible()
    assert "never rises above" in w.tips.text()
    w.tips.fix_button.click()
    spec = w.obs_panel.observation_spec(for_job=False)
    assert field_visibility(spec) is None and not w.tips.has_fix()
    assert not simulate_observation(spec).flag.all()


def test_click_adds_a_source_by_predicting_it_alone(make_window, small_state, wait_result):
    w = make_window(small_state)
    wait_result(w)
    cache = w.controller.worker.cache
    obs_before = cache.observation(small_state.observation)[0]
    w.views.dirty_view.clicked.emit(3 * ARCMIN, -2 * ARCMIN)
    out = wait_result(w).output
    assert cache.last_prediction_kind == "incremental"
    assert cache.last_prediction_delta == (1, 0)  # one component added, none removed
    assert cache.observation(small_state.observation)[0] is obs_before  # uvw reused
    assert out.nsrc == len(small_state.sky) + 1


def test_each_lesson_scene_is_in_the_help_menu_and_loads(make_window, small_state, wait_result):
    w = make_window(small_state, run_on_start=False)
    titles = [a.text() for a in w.lessons_menu.actions()]
    assert titles == [lesson.title for lesson in LESSONS]
    lesson = LESSONS[1]
    scene = lesson.scenes[0]
    sub = w.lessons_menu.actions()[1].menu()
    sub.actions()[0].trigger()
    out = wait_result(w, timeout=120_000).output
    state = scene.state()
    assert w.obs_panel.observation_spec(for_job=False).dec_deg == pytest.approx(
        state.observation.dec_deg
    )
    assert np.isfinite(out.dirty).all() and out.dirty.max() > 0
    assert scene.try_this[:20] in w.tips.label.text() and w.tips.isVisible()


def test_views_fit_each_new_result_until_the_user_zooms(make_window, small_state, wait_result):
    w = make_window(small_state)
    wait_result(w)
    view = w.views.dirty_view

    def span():
        (x0, x1), (y0, y1) = view.view_box.viewRange()
        return min(x1 - x0, y1 - y0)

    def width(out):
        return out.spec.npix * out.spec.cell_rad / ARCMIN

    w.imaging_panel.npix_spin.setValue(96)
    out = wait_result(w).output
    assert span() == pytest.approx(width(out), rel=0.02)
    view.set_view_range((-1.0, 1.0), (-1.0, 1.0), by_user=True)  # the user zooms in
    w.imaging_panel.npix_spin.setValue(80)
    wait_result(w)
    assert span() == pytest.approx(2.0, rel=0.02)  # kept
    view.fit_button.click()
    assert span() == pytest.approx(width(w.views.last_image), rel=0.02)


def test_uv_panel_leaves_its_live_look_after_a_comparison(make_window, small_state, wait_result):
    w = make_window(small_state)
    wait_result(w)
    w.compare.panel.set_algorithms(["conv", "nn"], emit=True)
    w.controller.submit("compare")
    wait_result(w, timeout=120_000)
    assert not w.views.uv_view.is_live() and w.views.uv_view.mode() != "empty"


def test_readout_follows_a_new_phase_centre(make_window, small_state, wait_result, qtbot):
    w = make_window(small_state)
    wait_result(w)
    view = w.views.dirty_view
    # the mouse over the image centre, as the scene reports it
    scene_pos = view.view_box.mapViewToScene(view.view_box.viewRect().center())
    view.plot_widget.scene().sigMouseMoved.emit(scene_pos)
    before = view.readout_label.text()
    assert "Dec -43d" in before
    w.obs_panel.dec.spin.setValue(-20.0)
    wait_result(w)

    def follows():  # the views draw one per event-loop turn after the result arrives
        after = view.readout_label.text()
        assert "Dec -19d" in after or "Dec -20d" in after

    qtbot.waitUntil(follows, timeout=5000)


def test_combining_vla_d_with_vla_a_images_both_configurations(
    make_window, small_state, wait_result, qtbot
):
    """The "Combined with" choice: the job observes both configurations; uv = their union."""
    from uvlab.app.observing.layouts import load_layout

    w = make_window(small_state, run_on_start=False)
    w.obs_panel.set_layout_name("vla.d")
    wait_result(w)
    panel = w.obs_panel
    index = panel.combine_combo.findText("vla.a")
    with qtbot.waitSignal(w.controller.result_ready, timeout=30_000) as blocker:
        panel.combine_combo.activated.emit(index)
        panel.combine_combo.setCurrentIndex(index)
    out = blocker.args[0].output
    spec = panel.observation_spec(for_job=False)
    assert spec.layout == "vla.d+vla.a" and panel.layout_combo.currentText() == "vla.d"
    d, a = load_layout("vla.d"), load_layout("vla.a")
    obs = simulate_observation(spec)  # the oracle: both configurations' baselines, no others
    assert obs.nbl == d.nant * (d.nant - 1) // 2 + a.nant * (a.nant - 1) // 2
    assert out.nvis > 0 and np.isfinite(out.dirty).all()
    panel.set_layout_name("vla.c")  # a new array drops the combination
    assert panel.combine_combo.currentText() == "—"
    assert panel.observation_spec(for_job=False).layout == "vla.c"


def test_array_view_counts_only_baselines_within_each_configuration(qtbot):
    from uvlab.app.observing.layouts import load_layout
    from uvlab.widgets.array_layout_view import ArrayLayoutView

    both = load_layout("vla.d+vla.a")
    view = ArrayLayoutView()
    qtbot.addWidget(view)
    view.set_antennas(both.enu(), both.antenna_names, both.dish_diameter, both.subarray)
    assert f"{len(both.baselines()[0])} baselines" in view.info_label.text()
    assert "shortest 0.0 m" not in view.info_label.text()  # the shared pads join no baseline
    brushes = {b.color().name() for b in view.scatter.data["brush"]}
    assert len(brushes) == 2  # one colour per configuration
    view.move_antenna(0, 5.0, 5.0)
    assert len({b.color().name() for b in view.scatter.data["brush"]}) == 2
