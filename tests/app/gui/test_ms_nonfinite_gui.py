"""The lab shows the reader's non-finite-values warning once, and images without NaN."""

from __future__ import annotations

import numpy as np

from tests.support.nonfinite import pick, spoil
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection, Partial
from uvlab.app.lab.live import iter_job
from uvlab.app.lab.samples import WorkCache


def test_ms_job_carries_the_warning(ms_copy):
    path = ms_copy("paper_xy.ms")
    spoil(path, *pick(path))
    req = JobRequest("ms", ImagingOptions(npix=64), "cpu", ms=MSSelection(str(path), stokes="XY"))
    events = list(iter_job(req, WorkCache()))
    warned = [e for e in events if isinstance(e, Partial) and e.warning]
    assert len(warned) == 1 and warned[0].urgent
    assert warned[0].warning.startswith(f"{path}: flagged 3 rows with non-finite UVW")
    assert np.isfinite(events[-1].output.dirty).all()


def test_window_logs_the_warning_once(make_window, small_state, wait_result, qtbot, ms_copy):
    path = ms_copy("paper_xy.ms")
    spoil(path, *pick(path))
    w = make_window(small_state, run_on_start=False)
    w.files.open_ms(str(path))  # an XY-only MS: XY is imaged without being asked
    out = wait_result(w).output
    assert w.obs_panel.ms.stokes_combo.currentData() == "XY"
    assert np.isfinite(out.dirty).all()
    w.imaging_panel.npix_spin.setValue(96)
    w.controller.submit()
    assert wait_result(w).output.spec.npix == 96
    warnings = [ln for ln in w.views.log_view.lines() if "non-finite UVW" in ln]
    assert len(warnings) == 1 and "WARNING" in warnings[0] and str(path) in warnings[0]


def test_dragging_an_antenna_off_the_earth_is_refused(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    before = w.obs_panel.layout().ecef.copy()
    with qtbot.waitSignal(w.obs_panel.error, timeout=5_000) as blocker:
        w.obs_panel.move_antenna(0, 5.0e6, 0.0)
    assert blocker.args[0].startswith("antenna not moved: ") and "\n" not in blocker.args[0]
    assert not w.obs_panel.is_modified()
    np.testing.assert_array_equal(w.obs_panel.layout().ecef, before)
    assert "antenna not moved" in w.statusBar().currentMessage()
