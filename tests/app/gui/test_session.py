"""The window's whole state as a session: saved, opened, and run again."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from uvlab.app.lab.imaging import ImagingOptions


def test_window_session_round_trip(make_window, small_state, wait_result, tmp_path, qtbot):
    w = make_window(small_state)
    wait_result(w)
    w.imaging_panel.weighting_combo.setCurrentText("briggs")
    w.imaging_panel.robust_spin.setValue(0.5)
    w.imaging_panel.npix_spin.setValue(96)
    w.imaging_panel.set_algorithm("nn-oversampled")
    w.obs_panel.dec.set_value(-50.25)
    enu = w.views.array_view.positions()
    w.views.array_view.finish_drag(2, enu[2, 0] + 120.0, enu[2, 1] - 40.0)
    w.views.dirty_view.clicked.emit(3e-3, -2e-3)
    entries = (
        ImagingOptions(algorithm="hybrid", oversample=8),
        ImagingOptions(algorithm="conv", kernel="kb", kernel_size="support", support=5),
        ImagingOptions(algorithm="nn"),
    )
    w.compare.panel.set_entries(entries, emit=True)  # as an edit there does
    clean = w.views.deconv_view.clean_controls
    clean.multiscale_check.setChecked(True)
    clean.rule_combo.setCurrentIndex(clean.rule_combo.findData("tclean"))
    clean.small_bias_spin.setValue(0.25)
    wait_result(w)
    state = w.model.state.session()
    assert [e.algorithm for e in state.compare] == ["hybrid", "conv", "nn"]
    assert w.files.save_session(tmp_path / "lab.json")
    other = make_window(replace(small_state, imaging=ImagingOptions(npix=64)), run_on_start=False)
    assert other.files.load_session(tmp_path / "lab.json")
    again = other.model.state.session()
    assert again == state
    assert again.imaging.algorithm == "nn-oversampled" and again.imaging.robust == 0.5
    assert [(e.algorithm, e.kernel, e.support, e.oversample) for e in again.compare] == [
        (e.algorithm, e.kernel, e.support, e.oversample) for e in state.compare
    ]
    assert again.compare[1].kernel == "kb" and again.compare[1].support == 5
    assert again.clean.multiscale and again.clean.multiscale_small_scale_bias == 0.25
    shown = other.views.deconv_view.clean_controls
    assert shown.rule_combo.currentData() == "tclean" and shown.small_bias_spin.value() == 0.25
    assert again.observation.dec_deg == -50.25 and len(again.sky) == len(small_state.sky) + 1
    np.testing.assert_allclose(
        np.array(again.modified_antennas_enu)[2, :2], enu[2, :2] + [120.0, -40.0], atol=1e-6
    )
    out = wait_result(other).output  # loading runs it
    assert out.spec.npix == 96 and out.algorithm == "nn-oversampled"
