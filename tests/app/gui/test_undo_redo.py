"""Edit → Undo, Redo and Reset over the window's lab state (issues 26 and 28)."""

from __future__ import annotations

import math

import pytest
from astropy.io import fits
from PyQt6 import QtGui

from uvlab.app.gui.compare_panel import DEFAULT_ALGORITHMS
from uvlab.app.lab.session import default_session
from uvlab.app.lab.state import job_request


def _action(w, text: str) -> QtGui.QAction:
    """The Edit menu's action ``text``."""
    edit = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Edit")
    return next(a for a in edit.actions() if a.text() == text)


def _edits(w):
    """Edits in four panels, as a user makes them (each emits its panel's signal)."""
    assert w.views.deconv_view.clean_controls.rule_combo.itemData(1) == "tclean"
    d = w.views.deconv_view
    return [
        lambda: w.imaging_panel.npix_spin.setValue(256),
        lambda: w.obs_panel.nchan_spin.setValue(3),
        lambda: w.obs_panel.smearing_check.setChecked(False),
        lambda: d.clean_controls.niter_spin.setValue(77),
        lambda: d.clean_controls.auto_mask_spin.setValue(4.0),
        lambda: d.clean_controls.multiscale_check.setChecked(True),
        lambda: d.clean_controls.rule_combo.setCurrentIndex(1),  # tclean's rule
        lambda: d.clean_controls.small_bias_spin.setValue(-0.3),
        lambda: w.compare.panel.add_entry(),
        lambda: w.compare.panel.repeats_box.setValue(5),
    ]


def test_undo_redo_round_trips_the_state_through_the_window(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    start = w.model.state
    assert start == w.lab_state()
    for edit in _edits(w):
        edit()
    end = w.lab_state()
    assert w.model.state == end != start
    assert end.clean.options.niter == 77 and end.clean.options.auto_mask == 4.0
    assert end.clean.options.multiscale and end.clean.options.multiscale_small_scale_bias == -0.3
    assert end.imaging.options.npix == 256 and len(end.imaging.compare) == 4
    assert end.imaging.compare_repeats == 5
    undo, redo = _action(w, "Undo"), _action(w, "Redo")
    assert undo.shortcut().toString() == "Ctrl+Z" and redo.shortcut().toString() == "Ctrl+Shift+Z"
    for _ in _edits(w):
        undo.trigger()
    assert w.model.state == start and w.lab_state() == start  # the panels followed
    c = w.views.deconv_view.clean_controls
    assert w.imaging_panel.npix_spin.value() == 128 and c.niter_spin.value() == 500
    assert not c.multiscale_check.isChecked() and c.rule_combo.currentData() == "wsclean"
    assert not c.rule_combo.isEnabled() and not c.small_bias_spin.isEnabled()
    assert w.compare.panel.repeats() == 3
    for _ in _edits(w):
        redo.trigger()
    assert w.model.state == end and w.lab_state() == end
    assert w.imaging_panel.npix_spin.value() == 256 and len(w.compare.panel.editors) == 4
    assert w.compare.panel.repeats() == 5
    assert c.rule_combo.currentData() == "tclean" and c.small_bias_spin.value() == -0.3
    assert c.small_bias_spin.isEnabled() and not c.scale_bias_spin.isEnabled()


def test_reset_loads_the_default_scene_and_its_compare_entries(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    w.compare.panel.set_algorithms(["conv", "nn"], emit=True)
    w.views.deconv_view.clean_controls.niter_spin.setValue(33)
    _action(w, "Reset to the default scene").trigger()
    state = w.lab_state()
    default = default_session()
    assert state.observation.spec == default.observation and state.clean.options.niter == 500
    assert [e.algorithm for e in state.imaging.compare] == list(DEFAULT_ALGORITHMS)
    _action(w, "Undo").trigger()  # Reset is undoable
    assert [e.algorithm for e in w.lab_state().imaging.compare] == ["conv", "nn"]
    assert w.views.deconv_view.clean_controls.niter_spin.value() == 33


def test_the_deconvolution_tab_carries_a_fits_mask(make_window, small_state, qtbot, tmp_path):
    import numpy as np

    w = make_window(small_state, run_on_start=False)
    d = w.views.deconv_view
    mask = np.zeros((128, 128), np.float32)
    mask[40:60, 50:70] = 1
    fits.PrimaryHDU(mask).writeto(tmp_path / "m.fits")
    d.clean_controls.mask_edit.setText(str(tmp_path / "m.fits"))
    d.clean_controls.mask_edit.editingFinished.emit()
    assert w.model.state.clean.fits_mask == str(tmp_path / "m.fits")
    req = w.requests("clean")  # what the controller submits: the model's state
    np.testing.assert_array_equal(req.clean_mask, mask != 0)
    assert req == job_request(w.model.state, "clean", job_id=req.job_id, image_sky=None)
    d.clean_controls.mask_edit.setText(str(tmp_path / "missing.fits"))
    d.clean_controls.mask_edit.editingFinished.emit()
    with pytest.raises(ValueError, match=r"missing\.fits"):
        w.requests("clean")


def test_the_request_is_the_models_and_equals_the_panels(make_window, small_state, qtbot):
    """Each panel's edit is applied to the model; the job is made from it, not the panels."""
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    for edit in _edits(w):
        edit()
    w.instrument_panel.sefd_spin.setValue(420.0)
    obs = small_state.observation
    assert w.sky_panel.add_point_at(
        2e-3, -1e-3, math.radians(obs.ra_deg), math.radians(obs.dec_deg)
    )
    shown = w.lab_state()  # what the panels show, read back
    assert w.model.state == shown
    for task in ("image", "clean", "compare"):
        req = w.requests(task)
        assert req == job_request(shown, task, job_id=req.job_id, image_sky=None)
    assert req.imaging.npix == 256 and req.observation.nchan == 3 and not req.smearing
    assert req.corruptions.sefd_jy == 420.0 and len(req.compare) == 4
    assert len(req.sky) == len(small_state.sky) + 1
    with qtbot.waitSignal(w.controller.submitted) as blocker:
        w.controller.submit("clean")  # the controller's request: the model's, no panel read
    got = blocker.args[0]
    assert got == job_request(w.model.state, "clean", job_id=got.job_id, image_sky=None)
    assert got.clean.niter == 77 and got.clean.auto_mask == 4.0
    assert got.clean.multiscale and got.clean.multiscale_small_scale_bias == -0.3
    w.controller.cancel()
    cell = w.imaging_panel.cell_edit.text()
    w.imaging_panel.cell_edit.setText("abc")  # not accepted: no edit, and a run says why
    assert w.model.state == shown
    with pytest.raises(ValueError, match="imaging options not accepted"):
        w.requests()
    w.imaging_panel.cell_edit.setText(cell)  # put right: the model's state runs again
    assert w.model.state == shown and w.requests().imaging.npix == 256
    w.compare.panel.editors[1].oversample_spin.setValue(5)  # refused: a run says why
    with pytest.raises(ValueError, match="compare entry 2"):
        w.requests("image")
    w.compare.panel.editors[1].oversample_spin.setValue(8)  # put right: accepted
    assert w.requests("compare").compare[1].oversample == 8
