"""Never a stale picture unmarked: a failed run veils the image views until one succeeds."""

from __future__ import annotations

import numpy as np
from PyQt6 import QtGui

from uvlab.app.gui.stale import MARKED_VIEWS


def test_failed_run_marks_the_views_and_a_good_run_clears_them(
    make_window, small_state, wait_result, qtbot, tmp_path
):
    w = make_window(small_state)
    first = wait_result(w).output
    assert all(w.stale.level(name) is None for name in MARKED_VIEWS)
    shown = w.views.dirty_view.image().copy()
    w.obs_panel.dec.spin.setValue(60.0)  # the array never sees Dec +60°: the run fails
    with qtbot.waitSignal(w.controller.job_failed, timeout=30_000) as blocker:
        pass
    reason = blocker.args[0].splitlines()[0]
    for name in MARKED_VIEWS:
        assert w.stale.level(name) == "stale"
        assert "Out of date: the run failed" in w.stale.text(name)
        assert reason.rstrip(".") in w.stale.text(name)
        assert not w.stale.overlays[name].isHidden()  # (shown with its tab)
    # the old picture is still there, under the veil ...
    np.testing.assert_array_equal(w.views.dirty_view.image(), shown)
    # ... and its export says so: the banner's amber fill across its top rows
    png = QtGui.QImage(str(w.views.dirty_view.export_png(tmp_path / "stale.png")))
    top = [QtGui.QColor(png.pixel(x, 2)) for x in range(5, png.width() - 5, 5)]
    assert sum(c.red() > c.green() > c.blue() + 40 for c in top) > 0.9 * len(top)
    w.obs_panel.dec.spin.setValue(small_state.observation.dec_deg)  # back where it sees the sky
    out = wait_result(w).output
    np.testing.assert_allclose(out.dirty, first.dirty, rtol=0, atol=1e-12)  # the same sky again
    assert all(w.stale.level(name) is None for name in MARKED_VIEWS)
    assert all(w.stale.overlays[name].isHidden() for name in MARKED_VIEWS)
