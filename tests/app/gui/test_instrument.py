"""The Instrument tab: a primary beam, gain errors and thermal noise seen in the window."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from astropy.io import fits
from scipy.optimize import brentq
from scipy.special import j1

from tests.support.observations import SMALL_OBS
from uvlab.app.instrument.jones import JonesOptions, ObservationJones
from uvlab.app.lab.corruptions import Corruptions
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.session import SessionState
from uvlab.app.observing.observation import simulate_observation
from uvlab.app.observing.predict_obs import predict_integrations
from uvlab.app.skymodel import Component, SkyModel
from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.predict.beams import voltage_pattern

DISH_M = 12.0  # kat-7's dishes


def _half_power_r(freq_hz: float) -> float:
    """sinθ where the Airy power pattern (2·J1(x)/x)² is 1/2 (scipy's J1, not beams.py's)."""
    x = brentq(lambda x: (2 * j1(x) / x) ** 2 - 0.5, 0.5, 3.0)
    return x * C_LIGHT / (math.pi * DISH_M * freq_hz)


def _one_source_state(dm: float, flux: float = 1.0, **changes) -> SessionState:
    """A point source ``dm`` north (direction cosine) of SMALL_OBS's phase centre."""
    dec = SMALL_OBS.dec_deg + math.degrees(math.asin(dm))  # same RA: l = 0, m = sin(Δδ)
    comp = Component("s", "point", SMALL_OBS.ra_deg, dec, (flux, 0.0, 0.0, 0.0), 1.4e9, 0.0)
    return SessionState(
        observation=SMALL_OBS,
        sky=SkyModel((comp,)),
        imaging=ImagingOptions(npix=128, cell_arcsec=40.0),
        device="cpu",
        smearing=False,
        **changes,
    )


def _value_at(out, l: float, m: float) -> float:
    """The dirty image at the pixel nearest (l, m) (l increases to the left: −i)."""
    spec = out.spec
    i = spec.npix // 2 - round(l / spec.cell_rad)
    j = spec.npix // 2 + round(m / spec.cell_rad)
    return float(out.dirty[j, i])


def _result_with(w, wait_result, wanted):
    """The output of the first result whose request's corruptions are ``wanted``."""
    for _ in range(5):
        result = wait_result(w)
        if result.request.corruptions is not None and wanted(result.request.corruptions):
            return result.output
    raise AssertionError("no result with the corruptions asked for")


def test_airy_beam_halves_a_source_at_its_half_power_radius(make_window, wait_result):
    freq = SMALL_OBS.freq_hz + 0.5 * (SMALL_OBS.nchan - 1) * SMALL_OBS.chan_width_hz
    r = _half_power_r(freq)
    w = make_window(_one_source_state(r))
    plain = wait_result(w).output
    assert _value_at(plain, 0.0, r) == pytest.approx(1.0, rel=0.1)  # where it is, ~1 Jy
    assert w.views.beam_view.power() is None  # no beam chosen yet
    w.instrument_panel.beam_combo.setCurrentIndex(w.instrument_panel.beam_combo.findData("airy"))
    w.instrument_panel.beam_combo.activated.emit(w.instrument_panel.beam_combo.currentIndex())
    out = wait_result(w).output
    assert _value_at(out, 0.0, r) / _value_at(plain, 0.0, r) == pytest.approx(0.5, rel=0.01)
    np.testing.assert_allclose(out.dirty, 0.5 * plain.dirty, atol=0.01 * plain.dirty.max())
    # the beam view: |E|² of beams.py at its (l, m), the component on it at half power
    w.show_tab("beam")
    view = w.views.beam_view
    power, step = view.power(), view.step()
    n = power.shape[0]
    x = (np.arange(n) - n // 2) * step
    oracle = voltage_pattern("airy", np.hypot(x[None, :], x[:, None]), freq, DISH_M) ** 2
    np.testing.assert_allclose(power, oracle, rtol=1e-12, atol=1e-15)
    assert step * (n // 2) >= 2 * r  # the map reaches well past the half-power radius
    l, m, gain = view.sources()
    np.testing.assert_allclose([l[0], m[0]], [0.0, r], atol=1e-12)
    assert gain[0] == pytest.approx(0.5, rel=1e-6)
    assert "0.50 of its 1 Jy" in view.title.text()
    assert w.panel_tabs.currentWidget().widget() is w.instrument_panel  # its controls shown


def test_gain_errors_enter_the_prediction(make_window, small_state, wait_result):
    w = make_window(small_state)
    plain = wait_result(w).output
    p = w.instrument_panel
    p.gain_seed_spin.setValue(4)
    p.phase_spin.setValue(30.0)
    out = _result_with(w, wait_result, lambda c: c.jones.gain_phase_rms_deg == 30.0)
    assert np.abs(out.dirty - plain.dirty).max() > 0.05 * plain.dirty.max()
    jones = JonesOptions(gain_phase_rms_deg=30.0, gain_seed=4)
    assert w.controller.worker.cache is not None
    cache = w.controller.worker.cache
    held = np.asarray(cache.prediction(cache.prediction_key))
    obs = simulate_observation(small_state.observation)
    src = w.sky_panel.sky_model().sources_for(obs.ra0_rad, obs.dec0_rad)
    direct = predict_integrations(
        obs, src, slice(0, obs.ntime), jones=ObservationJones(obs, src, jones, "scalar"),
        device="cpu",
    )  # fmt: skip
    np.testing.assert_allclose(held, direct, atol=1e-9 * np.abs(direct).max())


def test_sefd_noise_is_reported_and_measured(make_window, wait_result):
    state = replace(_one_source_state(0.0, flux=0.0), sky=SkyModel())  # a blank field
    w = make_window(state)
    wait_result(w)
    w.instrument_panel.sefd_spin.setValue(400.0)
    out = _result_with(w, wait_result, lambda c: c.sefd_jy == 400.0)
    sigma = 400.0 / math.sqrt(2 * SMALL_OBS.chan_width_hz * SMALL_OBS.int_s)  # radiometer
    expected = sigma / math.sqrt(2 * out.nvis)  # Stokes I, natural weighting
    assert out.noise.expected_jy == pytest.approx(expected, rel=1e-12)
    rms = 1.4826 * np.median(np.abs(out.dirty - np.median(out.dirty)))
    assert rms == pytest.approx(expected, rel=0.1)
    status = w.statusBar().currentMessage()
    assert "expected" in status and "measured RMS" in status
    assert "expected" in w.instrument_panel.noise_label.text()
    w.instrument_panel.sefd_spin.setValue(-50.0)  # the spin box cannot go below 0
    assert w.instrument_panel.sefd_spin.value() == 0.0


def test_a_cube_without_wcs_is_one_line_and_changes_nothing(
    make_window, small_state, wait_result, tmp_path
):
    bad = tmp_path / "beam.fits"
    fits.PrimaryHDU(np.ones((2, 4, 4))).writeto(bad)  # no CTYPE: no usable WCS
    w = make_window(small_state, run_on_start=False)
    p = w.instrument_panel
    before = p.corruptions()
    assert not p.set_beam_cube(str(bad))
    message = w.statusBar().currentMessage()
    assert str(bad) in message and "\n" not in message and "WCS" in message
    assert p.corruptions() == before and p.beam_combo.currentData() == "none"
    w.controller.submit()
    assert wait_result(w).output.dirty.max() > 0  # the window goes on


def test_a_file_of_a_polarised_set_selects_the_set(make_window, small_state, wait_result, tmp_path):
    """Picking beam_xx_re.fits uses the whole pattern; a diagonal Jones beam e·𝟙 images as
    the scalar cube e does (the Stokes-I prediction is ½(XX + YY))."""
    from uvlab.app.instrument.beam_cube import write_beam_cube
    from uvlab.app.instrument.beam_pattern import write_beam_pattern

    ax = (-0.06, 0.003, 41)
    ll, mm = np.meshgrid(np.linspace(-0.06, 0.06, 41), np.linspace(-0.06, 0.06, 41))
    e = np.exp(-(ll**2 + mm**2) / (2 * 0.01**2))[None]  # (1, m, l)
    jones = np.zeros((*e.shape, 2, 2), dtype=complex)
    jones[..., 0, 0] = jones[..., 1, 1] = e
    write_beam_cube(tmp_path / "scalar.fits", e, ax, ax, (1.4e9, 1.0, 1))
    write_beam_pattern(str(tmp_path / "pb_$(corr)_$(reim).fits"), jones, ax, ax, (1.4e9, 1.0, 1))
    state = _one_source_state(0.008)
    w = make_window(state, run_on_start=False)
    p = w.instrument_panel
    assert p.set_beam_cube(str(tmp_path / "pb_xx_re.fits"))
    pattern = str(tmp_path / "pb_$(corr)_$(reim).fits")
    assert p.corruptions().jones.primary_beam == pattern
    assert p.beam_combo.currentText().startswith("Jones: pb_")
    polarised = _result_with(w, wait_result, lambda c: c.jones.primary_beam == pattern)
    assert p.set_beam_cube(str(tmp_path / "scalar.fits"))
    assert p.corruptions().jones.primary_beam == str(tmp_path / "scalar.fits")
    scalar = _result_with(w, wait_result, lambda c: c.jones.primary_beam.endswith("scalar.fits"))
    peak = np.abs(scalar.dirty).max()
    assert np.abs(polarised.dirty - scalar.dirty).max() <= 1e-6 * peak
    # the beam matters: the source at 0.8 σ of the beam is dimmed to e² ≈ 0.53
    assert _value_at(scalar, 0.0, 0.008) == pytest.approx(np.exp(-(0.8**2)), rel=0.05)


def test_session_saves_and_restores_the_instrument(make_window, small_state, wait_result):
    c = Corruptions(
        JonesOptions("gaussian", 15.0, gain_amp_rms=0.02, gain_phase_rms_deg=5.0, gain_seed=9),
        250.0,
        3,
    )
    w = make_window(replace(small_state, corruptions=c), run_on_start=False)
    assert w.instrument_panel.corruptions() == c
    assert w.requests().corruptions == c
    state = SessionState.from_dict(w.model.state.session().to_dict())
    assert state.corruptions == c
    w.apply_session(small_state, run=False)  # an old session: all off
    assert not w.instrument_panel.corruptions().active


def test_instrument_tab_fits_a_laptop_screen_without_scrolling(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.resize(1358, 732)  # the window on a 1366×768 screen (docs/images/*-1366x768.png)
    w.show_tab("beam")
    qtbot.wait(50)
    scroll = w.panel_tabs.currentWidget()
    assert scroll.widget() is w.instrument_panel
    assert not scroll.verticalScrollBar().isVisible()
    assert not scroll.horizontalScrollBar().isVisible()
    assert w.panel_tabs.tabToolTip(w.panel_tabs.currentIndex()) == "Instrument"
