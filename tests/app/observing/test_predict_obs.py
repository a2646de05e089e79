"""``uvlab simulate`` writes what the lab predicts: one predict from simulation to visibilities."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest
from uvlab.app.lab.sources import read_samples
from uvlab.app.observing.observation import simulate_observation
from uvlab.app.observing.predict_obs import observation_smearing, predict_integrations
from uvlab.app.skymodel import Component, SkyModel
from uvlab.gpu.predict import predict_antennas

#: Two points about SMALL_OBS's phase centre, one polarised (XX ≠ YY) and one extended.
SKY = SkyModel(
    (
        Component("a", "point", 201.5, -42.9, (1.0, 0.3, -0.1, 0.05), 1.4e9),
        Component("b", "point", 201.2, -43.2, (0.5, 0.0, 0.0, 0.0), 1.4e9, -0.7),
        Component("g", "gaussian", 201.4, -43.0, (0.4, 0.0, 0.0, 0.0), 1.4e9, 0.0, 60, 30, 20),
    )
)


def _data(path):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return t.getcol("DATA")
    finally:
        t.close()


@pytest.fixture(scope="module")
def obs():
    return simulate_observation(SMALL_OBS)


def test_integrations_are_the_per_antenna_predict_with_the_observations_smearing(obs):
    src = SKY.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    sm = observation_smearing(obs)
    assert (sm.chan_width_hz, sm.int_s, sm.dec0_rad) == (obs.chan_width_hz, obs.int_s, obs.dec0_rad)
    assert observation_smearing(obs, smearing=False) is None
    times = slice(3, 9)
    for mode in ("scalar", "linear"):
        got = predict_integrations(obs, src, times, mode=mode, device="cpu")
        want = predict_antennas(
            obs.ant_uvw[times], obs.ant1, obs.ant2, obs.freq_hz, src, mode=mode, smearing=sm
        )
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("smearing", [True, False])
def test_simulate_writes_what_the_lab_predicts(tmp_path, obs, smearing):
    from uvlab.app.ms import read_visibilities
    from uvlab.app.ms.simulate import simulate_ms

    sky = SKY if smearing else SkyModel(SKY.components[:2])  # points alone: the factored path
    path = simulate_ms(SMALL_OBS, sky, tmp_path / "s.ms", smearing=smearing, device="cpu").path
    src = sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    every = slice(0, obs.ntime)
    nrow, nchan = obs.nrow, obs.freq_hz.size
    # The MS holds the shared predict in the linear basis (XX, XY, YX, YY), as complex64.
    linear = predict_integrations(obs, src, every, mode="linear", smearing=smearing, device="cpu")
    np.testing.assert_array_equal(_data(path), linear.reshape(nrow, nchan, 4).astype(np.complex64))
    # The lab's synthetic source predicts the same integrations' Stokes I with it.
    request = JobRequest(
        "synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, sky, smearing, preview=False
    )
    lab = read_samples(request)
    stokes_i = predict_integrations(obs, src, every, smearing=smearing, device="cpu")
    np.testing.assert_array_equal(lab.vis, stokes_i.reshape(nrow, nchan))
    # Read back as Stokes I, (XX + YY)/2, the MS gives the lab's visibilities to complex64.
    vd = read_visibilities(path, stokes="I")
    scale = np.abs(lab.vis).max()
    np.testing.assert_allclose(vd.vis, lab.vis, rtol=0, atol=4 * np.finfo(np.float32).eps * scale)


def _jones_model(l, m):
    """A smooth 2×2 voltage pattern with complex diagonals and leakage."""
    g = np.exp(-((l / 0.02) ** 2) - (m / 0.015) ** 2)
    return np.stack(
        [
            np.stack([g * np.exp(20j * l), (0.1 + 0.05j) * g * (l + m) / 0.01], -1),
            np.stack([(0.05 - 0.1j) * g * (l - m) / 0.01, g * np.exp(-15j * m)], -1),
        ],
        -2,
    )


def _write_cubes(tmp_path):
    """A Jones pattern of :func:`_jones_model`, a diagonal one with xx = yy = E and E alone."""
    from uvlab.app.instrument.beam_cube import write_beam_cube
    from uvlab.app.instrument.beam_pattern import write_beam_pattern

    axis = np.arange(-0.01, 0.01 + 2.5e-4, 5e-4)
    ll, mm = np.meshgrid(axis, axis)
    ax, fax = (axis[0], 5e-4, len(axis)), (1.4e9, 1.0, 1)
    full = str(tmp_path / "j_$(corr)_$(reim).fits")
    write_beam_pattern(full, _jones_model(ll, mm)[None], ax, ax, fax)
    e = np.exp(-((ll / 0.02) ** 2) - (mm / 0.012) ** 2)
    diag = str(tmp_path / "d_$(corr)_$(reim).fits")
    write_beam_pattern(diag, (e[..., None, None] * np.eye(2))[None], ax, ax, fax)
    write_beam_cube(tmp_path / "e.fits", e[None], ax, ax, fax)
    return full, diag, str(tmp_path / "e.fits")


def test_stokes_i_through_a_jones_beam(tmp_path, obs):
    """Stokes I with a Jones beam is ½(XX + YY) of the polarised oracle (gains included);
    with a diagonal beam xx = yy = E it is the scalar beam E's Stokes I."""
    from uvlab.app.instrument.jones import JonesOptions, ObservationJones
    from uvlab.gpu.predict.jones_reference import predict_jones_reference

    full, diag, single = _write_cubes(tmp_path)
    src = SKY.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    times = slice(2, 5)
    opts = JonesOptions(primary_beam=full, gain_amp_rms=0.1, gain_phase_rms_deg=10, gain_seed=3)
    jones = ObservationJones(obs, src, opts, "scalar")
    assert jones.beam_feeds == "linear" and jones.beam(times).shape[-2:] == (2, 2)
    got = predict_integrations(obs, src, times, mode="scalar", jones=jones, device="cpu")
    sm = observation_smearing(obs)
    ref = predict_jones_reference(obs.ant_uvw[times], obs.ant1, obs.ant2, obs.freq_hz, src,
                                  "linear", sm, jones.beam(times), jones.gains(times))  # fmt: skip
    want = 0.5 * (ref[..., 0, 0] + ref[..., 1, 1])
    err = np.linalg.norm(got - want) / np.linalg.norm(want)
    print(f"Stokes I through a Jones beam vs ½(XX + YY) of the oracle: {err:.1e}")
    assert err < 1e-12
    # the leakage and the sky's polarisation matter: Stokes I alone through |E|² is off
    scalar_i = predict_integrations(obs, src, times, mode="scalar", device="cpu")
    assert np.linalg.norm(got - scalar_i) > 1e-3 * np.linalg.norm(want)
    kw = dict(mode="scalar", device="cpu")
    a = predict_integrations(obs, src, times, jones=ObservationJones(
        obs, src, JonesOptions(primary_beam=diag), "scalar"), **kw)  # fmt: skip
    b = predict_integrations(obs, src, times, jones=ObservationJones(
        obs, src, JonesOptions(primary_beam=single), "scalar"), **kw)  # fmt: skip
    assert np.max(np.abs(a - b)) <= 1e-14 * np.max(np.abs(b))
