"""The Jones terms of a simulated observation (uvlab.app.instrument.jones).

Oracles: astropy's position angle of the zenith seen from the field (the parallactic
angle) at two antennas 8 km apart; a FITS beam cube's rotation with it (the beams of an
asymmetric cube change over the track as sample_cube at those angles says); the
analytic beams' dish diameters from the layout.
"""

from __future__ import annotations

import math

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import ICRS, AltAz, EarthLocation, SkyCoord
from astropy.time import Time

from uvlab.app.instrument.beam_cube import write_beam_cube
from uvlab.app.instrument.jones import JonesOptions, ObservationJones
from uvlab.app.instrument.parallactic import antenna_parallactic
from uvlab.app.observing.observation import ObservationSpec, simulate_observation
from uvlab.gpu.predict.beams import sample_cube
from uvlab.gpu.sources import SourceArrays


@pytest.fixture(scope="module")
def obs():
    spec = ObservationSpec("meerkat", 120.0, -50.0, ha_start_h=-3, ha_stop_h=3, int_s=1800.0)
    return simulate_observation(spec)


def test_parallactic_angle_matches_astropy(obs):
    t = Time(obs.times_mjd_s / 86400.0, format="mjd", scale="utc")[:, None]
    ants = obs.layout.ecef[[0, 63]]
    loc = EarthLocation.from_geocentric(ants[:, 0], ants[:, 1], ants[:, 2], unit=u.m)[None, :]
    src = SkyCoord(120.0 * u.deg, -50.0 * u.deg, frame=ICRS)
    zenith = SkyCoord(alt=90 * u.deg, az=0 * u.deg, frame=AltAz(obstime=t, location=loc))
    pa = src.position_angle(zenith.transform_to(ICRS)).to_value(u.rad)
    want = np.angle(np.exp(1j * pa))
    got = antenna_parallactic(obs, slice(None))[:, [0, 63]]
    resid = np.angle(np.exp(1j * (got - want)))
    print(f"max |χ − astropy| = {np.max(np.abs(resid)):.2e} rad")
    np.testing.assert_allclose(resid, 0.0, atol=1e-4)
    assert np.ptp(got) > 1.0  # it turns a lot over six hours


def test_cube_beams_turn_with_the_parallactic_angle(obs, tmp_path):
    rng = np.random.default_rng(0)
    data = rng.random((1, 21, 21))
    write_beam_cube(tmp_path / "b.fits", data, (-0.02, 0.002, 21), (-0.02, 0.002, 21),
                    (1.4e9, 1.0, 1))  # fmt: skip
    lmn = np.array([[0.01, 0.005, math.sqrt(1 - 1.25e-4)]])
    src = SourceArrays.points(lmn, [[1.0, 0, 0, 0]])
    jones = ObservationJones(obs, src, JonesOptions(primary_beam=str(tmp_path / "b.fits")),
                             "linear")  # fmt: skip
    e = jones.beam(slice(0, 3))
    chi = antenna_parallactic(obs, slice(0, 3))
    assert e.shape == (3, obs.layout.nant, 1, 1)
    axis = (-0.02, 0.002, 21)
    want = sample_cube(data, axis, axis, (1.4e9, 1.0, 1), lmn[:, 0], lmn[:, 1], [1.4e9], chi)
    np.testing.assert_allclose(e, want, rtol=1e-12)
    assert np.ptp(e[:, 0]) > 1e-3  # the source moves across the asymmetric beam


def test_analytic_beams_use_the_layout_dishes(obs):
    lmn = np.array([[0.01, 0.0, math.sqrt(1 - 1e-4)]])
    src = SourceArrays.points(lmn, [[1.0, 0, 0, 0]])
    layout = ObservationJones(obs, src, JonesOptions(primary_beam="gaussian"), "scalar")
    fixed = ObservationJones(
        obs, src, JonesOptions(primary_beam="gaussian", dish_diameter_m=13.5), "scalar"
    )
    assert np.all(obs.layout.dish_diameter == 13.5)
    np.testing.assert_array_equal(layout.beam(slice(0, 1)), fixed.beam(slice(0, 1)))
    fwhm = 1.029 * 299792458.0 / obs.freq_hz[0] / 13.5
    assert layout.beam(slice(0, 1))[0, 0, 0, 0] ** 2 == pytest.approx(
        math.exp(-4 * math.log(2) * (0.01 / fwhm) ** 2), rel=1e-12
    )
    assert layout.gains(slice(0, 1)) is None


def test_jones_pattern_beams_turn_with_the_parallactic_angle(obs, tmp_path):
    """A pattern set gives (time, ant, chan, src, 2, 2): sample_cube of the Jones data at
    the antennas' parallactic angles, the matrices as stored (no feed rotation)."""
    from uvlab.app.instrument.beam_cube import BeamCubeError
    from uvlab.app.instrument.beam_pattern import write_beam_pattern

    rng = np.random.default_rng(1)
    data = rng.random((1, 21, 21, 2, 2)) + 1j * rng.random((1, 21, 21, 2, 2))
    axis = (-0.02, 0.002, 21)
    pattern = str(tmp_path / "b_$(corr)_$(reim).fits")
    write_beam_pattern(pattern, data, axis, axis, (1.4e9, 1.0, 1), feeds="circular")
    lmn = np.array([[0.01, 0.005, math.sqrt(1 - 1.25e-4)], [-0.004, 0.0, math.sqrt(1 - 1.6e-5)]])
    src = SourceArrays.points(lmn, [[1.0, 0, 0, 0], [2.0, 0.1, 0, 0]])
    jones = ObservationJones(obs, src, JonesOptions(primary_beam=pattern), "circular")
    assert jones.beam_feeds == "circular"
    e = jones.beam(slice(0, 3))
    chi = antenna_parallactic(obs, slice(0, 3))
    assert e.shape == (3, obs.layout.nant, 1, 2, 2, 2)
    want = sample_cube(data, axis, axis, (1.4e9, 1.0, 1), lmn[:, 0], lmn[:, 1], [1.4e9], chi)
    np.testing.assert_allclose(e, want, rtol=1e-12)
    with pytest.raises(BeamCubeError, match=r"circular feeds .* cannot predict linear") as info:
        ObservationJones(obs, src, JonesOptions(primary_beam=pattern), "linear")
    assert pattern in str(info.value) and "\n" not in str(info.value)
    # Stokes I takes either basis
    assert ObservationJones(obs, src, JonesOptions(primary_beam=pattern), "scalar").beam_feeds
