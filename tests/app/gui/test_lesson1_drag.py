"""Lesson 1, step 5, walked in the window: drag an outer antenna in, then out, then Reset.

Help → Lessons → Lesson 1 → "MeerKAT (the default scene)" (one channel of 600 s
integrations, so that the CPU gets there quickly), then a real mouse drag of the
antenna farthest from the array's centre, in the Array layout view, to a fifth of its
distance. The new result's request has the antenna where it was dropped; the uv view
shows the new samples, of which those beyond 80 % of the longest baseline are fewer;
the PSF's main lobe is wider, measured on the uv samples by a direct float64 DFT
(independent of the gridder); no view is marked out of date. Dragged out to 1.5 times its
distance, the main lobe narrows again, though not below the first (the lesson's text says
so); **Reset** puts the array back, and its result equals the first.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PyQt6 import QtCore, QtWidgets

from tests.support.mouse import drag
from uvlab.app.gui.stale import MARKED_VIEWS
from uvlab.app.lab.lessons import LESSONS

C = 299792458.0
WAIT_MS = 300_000  # a wait on the result, not a time bound: a busy 2-core machine


def main_lobe_radius(uv, directions: int = 12) -> float:
    """Mean half-power radius of the naturally weighted PSF (radians), by direct DFT.

    Along each of ``directions`` position angles the PSF is ``mean(cos 2π r·(u, v))``
    over the samples (in wavelengths); its first crossing of 0.5, interpolated.
    """
    u = (uv.u_m[:, None] * uv.freq_hz[None, :] / C).ravel()
    v = (uv.v_m[:, None] * uv.freq_hz[None, :] / C).ravel()
    r = np.linspace(0.0, 2.0 / np.hypot(u, v).max(), 200)
    radii = []
    for pa in np.linspace(0.0, np.pi, directions, endpoint=False):
        psf = mean_cos_multiples(2 * np.pi * r[1] * (u * np.cos(pa) + v * np.sin(pa)), r.size)
        k = int(np.argmax(psf < 0.5))
        assert k > 0
        radii.append(np.interp(0.5, psf[k : k - 2 : -1], r[k : k - 2 : -1]))
    return float(np.mean(radii))


def mean_cos_multiples(x, n: int) -> np.ndarray:
    """``mean(cos(k·x))`` over the samples x, for k = 0 … n − 1 (float64).

    By the recurrence ``cos((k+1)x) = 2 cos x · cos(kx) − cos((k−1)x)``: one cosine per
    sample, then products (rounding within 1e-15 of the cosines at n = 200, where a cosine
    of every k·x took most of this test's time).
    """
    out = np.empty(n)
    prev, cur, twice_cos = np.ones_like(x), np.cos(x), 2.0 * np.cos(x)
    out[0], out[1] = 1.0, cur.mean()
    for k in range(2, n):
        prev, cur = cur, twice_cos * cur - prev
        out[k] = cur.mean()
    return out


def far_samples(uv, radius_m: float) -> int:
    return int(np.count_nonzero(np.hypot(uv.u_m, uv.v_m) > radius_m))


def _drag(view, index: int, to_enu) -> None:
    """A real mouse drag of antenna ``index`` to (east, north) in the array view."""
    vb = view.plot_item.getViewBox()
    to_widget = view.plot_widget.mapFromScene
    a = to_widget(vb.mapViewToScene(QtCore.QPointF(*view.positions()[index, :2])))
    b = to_widget(vb.mapViewToScene(QtCore.QPointF(*to_enu)))
    drag(view.plot_widget.viewport(), a, b)


def test_lesson_1_drag_an_outer_antenna_in_and_out_then_reset(make_window, qtbot):
    lesson = LESSONS[1]
    scene = lesson.scenes[0]
    assert scene.title == "MeerKAT (the default scene)"
    make = scene.make

    def quick():  # the lesson's scene, one channel of 600 s integrations
        state = make()
        obs = replace(state.observation, int_s=600.0, nchan=1)
        return replace(state, observation=obs, device="cpu")

    quick_scene = replace(scene, make=quick)
    w = make_window(quick_scene.state(), run_on_start=False)
    w.run_panel.autorun_check.setChecked(True)
    results = []
    w.controller.result_ready.connect(results.append)

    def next_result():
        n = len(results)
        qtbot.waitUntil(
            lambda: (
                len(results) > n
                and results[-1].job_id == w.controller.latest_job_id
                and not w.controller.busy
                and not w.controller.debounce.isActive()
            ),
            timeout=WAIT_MS,
        )
        qtbot.waitUntil(lambda: not w.views.is_drawing(), timeout=WAIT_MS)
        return results[-1].output

    w.session.load_lesson(lesson, quick_scene)
    first = next_result()
    view = w.views.array_view
    QtWidgets.QApplication.processEvents()
    enu = view.positions()
    centre = np.median(enu[:, :2], axis=0)
    k = int(np.argmax(np.hypot(*(enu[:, :2] - centre).T)))
    longest = np.hypot(*(enu[:, None, :2] - enu[None, :, :2]).transpose(2, 0, 1)).max()
    r0, far0 = main_lobe_radius(first.uv), far_samples(first.uv, 0.8 * longest)

    # in: to a fifth of its distance from the centre
    target = centre + 0.2 * (enu[k, :2] - centre)
    _drag(view, k, target)
    inward = next_result()
    moved = w.controller.latest_request.observation.layout.enu()[k, :2]
    px = np.abs(view.plot_item.getViewBox().viewPixelSize())
    assert np.all(np.abs(moved - target) <= 2 * px), (moved, target, px)
    r_in, far_in = main_lobe_radius(inward.uv), far_samples(inward.uv, 0.8 * longest)
    assert far_in < far0  # the longest tracks moved in
    assert r_in > r0  # a wider main lobe
    for name in MARKED_VIEWS:  # the new picture is the current one
        assert w.stale.level(name) is None, (name, w.stale.text(name))

    # out: to 1.5 times its first distance
    target = centre + 1.5 * (enu[k, :2] - centre)
    _drag(view, k, target)
    outward = next_result()
    r_out = main_lobe_radius(outward.uv)
    assert r_out < r_in  # it narrows again
    assert r_out > r0  # but not past the first: one antenna's far baselines add ripples

    # Reset: the array as it was, and its picture
    w.obs_panel.reset_layout_button.click()
    back = next_result()
    np.testing.assert_allclose(view.positions(), enu)
    np.testing.assert_allclose(back.psf, first.psf, rtol=0, atol=1e-12)
    for name in MARKED_VIEWS:
        assert w.stale.level(name) is None, (name, w.stale.text(name))
