"""The Deconvolution tab's joined-channel CLEAN: its controls, its views, its session fields.

*Channels out* and *spectral terms* are the CLI's ``--channels-out N --join-channels``
and ``--fit-spectral-pol K`` (the one :class:`CleanOptions` record); the window's joined
CLEAN is the lab's (tests/app/lab/test_joined_task.py compares it with ``uvlab image``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from tests.support.observations import SMALL_OBS
from uvlab.app.cli import build_parser
from uvlab.app.commands.clean_args import clean_options
from uvlab.app.gui.clean_controls import CleanControls
from uvlab.app.lab.clean_task import CleanOptions, CleanState
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.session import SessionState, load_session, save_session

NCHAN = 4


def _state(nchan: int) -> SessionState:
    obs = replace(SMALL_OBS, nchan=nchan, chan_width_hz=5.0e7)
    imaging = ImagingOptions(npix=64)
    return SessionState(obs, sky=demo_sky_for("teaching", obs, imaging), imaging=imaging,
                        device="cpu")  # fmt: skip


def _channel_controls(c: CleanControls) -> tuple[bool, bool]:
    return c.channels_spin.isEnabled(), c.terms_spin.isEnabled()


def test_the_controls_make_the_cli_s_record_and_are_off_for_one_channel(qtbot):
    c = CleanControls()
    qtbot.addWidget(c)
    c.set_channels(1)
    assert _channel_controls(c) == (False, False)
    assert c.options().channels_out == 1 and c.options().fit_spectral_pol is None
    c.set_channels(NCHAN)
    assert _channel_controls(c) == (True, False)  # one channel out: no terms to fit
    assert c.channels_spin.maximum() == NCHAN
    with qtbot.waitSignal(c.changed):
        c.channels_spin.setValue(3)
    with qtbot.waitSignal(c.changed):
        c.terms_spin.setValue(2)
    assert _channel_controls(c) == (True, True) and c.terms_spin.maximum() == 3
    argv = ["image", "--ms", "x.ms", "--out", "x", "--niter", "500", "--mgain", "0.8",
            "--channels-out", "3", "--join-channels", "--fit-spectral-pol", "2"]  # fmt: skip
    assert c.options() == clean_options(build_parser(argv).parse_args(argv))
    c.set_channels(1)  # an observation of one channel: MFS CLEAN whatever the box holds
    assert _channel_controls(c) == (False, False) and c.options().channels_out == 1


def test_the_window_disables_the_controls_for_one_channel(make_window, qtbot):
    w = make_window(_state(1), run_on_start=False)
    assert _channel_controls(w.views.deconv_view.clean_controls) == (False, False)
    w2 = make_window(_state(NCHAN), run_on_start=False)
    controls = w2.views.deconv_view.clean_controls
    assert controls.channels_spin.isEnabled() and controls.channels_spin.maximum() == NCHAN


def test_the_session_round_trips_the_fields(tmp_path):
    opts = CleanOptions("cotton-schwab", niter=40, channels_out=3, fit_spectral_pol=2)
    state = replace(_state(NCHAN), clean=opts)
    again = load_session(save_session(state, tmp_path / "s.json"))
    assert again == state and again.clean.channels_out == 3 and again.clean.fit_spectral_pol == 2


def test_window_joined_clean_shows_the_mfs_and_each_channel(make_window, qtbot, tmp_path):
    w = make_window(_state(NCHAN), run_on_start=False)
    view = w.views.deconv_view
    controls = view.clean_controls
    controls.niter_spin.setValue(30)
    controls.channels_spin.setValue(NCHAN)
    controls.terms_spin.setValue(2)
    stages = []
    w.controller.progress_changed.connect(lambda _f, stage: stages.append(stage))
    with qtbot.waitSignal(w.controller.result_ready, timeout=60_000,
                          check_params_cb=lambda r: r.task == "clean") as blocker:  # fmt: skip
        w.controller.submit("clean")
    out = blocker.args[0].output
    assert isinstance(out, CleanState) and out.done and out.iterations == 30
    assert out.channel_restored.shape == (NCHAN, 64, 64)
    assert any(f"channel {NCHAN} of {NCHAN}" in s for s in stages), stages
    qtbot.waitUntil(lambda: not w.views.is_drawing(), timeout=30_000)
    np.testing.assert_array_equal(view.restored_view.image(), out.restored)  # the MFS image
    np.testing.assert_array_equal(view.model_view.image(), out.model)
    assert view.channel_spin.isEnabled() and view.channel_spin.maximum() == NCHAN - 1
    assert not view.slider.isEnabled()  # the replay is one PSF's: off for joined CLEAN
    view.show_channel(2)
    np.testing.assert_array_equal(view.restored_view.image(), out.channel_restored[2])
    assert "channel 2" in view.restored_view.title()
    view.show_channel(-1)
    np.testing.assert_array_equal(view.restored_view.image(), out.restored)
    # the session keeps the fields and shows them again
    assert w.files.save_session(tmp_path / "lab.json")
    other = make_window(_state(NCHAN), run_on_start=False)
    assert other.files.load_session(tmp_path / "lab.json")
    assert other.model.state.session().clean == w.model.state.session().clean
    shown = other.views.deconv_view.clean_controls
    assert shown.channels_spin.value() == NCHAN and shown.terms_spin.value() == 2
