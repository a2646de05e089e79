"""Feed rotation (P-Jones) in ``uvlab simulate`` and ``uvlab predict``: the feeds of alt-az
dishes turn with χ (plus the FEED table's receptor angle), an equatorial mount's do not.

Oracle: a polarised point source at the phase centre without smearing has the brightness
matrix B of its Stokes parameters on every baseline (checked first, unrotated); with
feed rotation each baseline holds ``P_p·B·P_qᴴ`` with P built here from a parallactic
angle computed independently of uvlab: astropy's position angle, east of the J2000 north,
of the zenith seen from the source (the sky model's Stokes Q and U are on J2000 axes).
uvlab's χ agrees with it to ~3e-5 rad (docs/conventions.md says 5e-5).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.instrument.jones import JonesOptions
from uvlab.app.skymodel import Component, SkyModel

IQUV = (1.0, 0.3, 0.2, 0.1)
OBS = replace(SMALL_OBS, nchan=1, int_s=1800.0)


def brightness(feeds: str) -> np.ndarray:
    i, q, u, v = IQUV
    if feeds == "linear":
        return np.array([[i + q, u + 1j * v], [u - 1j * v, i - q]])
    return np.array([[i + v, q + 1j * u], [q - 1j * u, i - v]])


def rotation(chi, feeds):  # P of the measurement equation, written out
    c, s = np.cos(chi), np.sin(chi)
    if feeds == "linear":
        return np.array([[c, s], [-s, c]])
    return np.diag([np.exp(-1j * chi), np.exp(1j * chi)])


def astropy_chi(ecef, time_mjd_s, ra_deg, dec_deg):
    """The position angle of the zenith seen from the source, east of the J2000 north."""
    import astropy.units as u
    from astropy.coordinates import ICRS, AltAz, EarthLocation, SkyCoord
    from astropy.time import Time

    loc = EarthLocation.from_geocentric(*ecef, unit=u.m)
    t = Time(time_mjd_s / 86400.0, format="mjd", scale="utc")
    zenith = SkyCoord(alt=90 * u.deg, az=0 * u.deg, frame=AltAz(obstime=t, location=loc))
    pa = SkyCoord(ra_deg * u.deg, dec_deg * u.deg).position_angle(zenith.transform_to(ICRS()))
    return float(np.angle(np.exp(1j * pa.rad)))


def simulate(tmp_path, feeds, rotate):
    from casacore import tables

    from uvlab.app.ms.simulate import simulate_ms

    sky = SkyModel([Component("p", "point", OBS.ra_deg, OBS.dec_deg, IQUV, OBS.freq_hz)])
    path = tmp_path / f"{feeds}-{rotate}.ms"
    simulate_ms(OBS, sky, path, feeds=feeds, smearing=False, device="cpu",
                jones=JonesOptions(feed_rotation=rotate))  # fmt: skip
    with tables.table(str(path), ack=False) as t:
        data, a1, a2 = t.getcol("DATA")[:, 0], t.getcol("ANTENNA1"), t.getcol("ANTENNA2")
        time = t.getcol("TIME")
    with tables.table(str(path / "ANTENNA"), ack=False) as t:
        pos = t.getcol("POSITION")
    return data.reshape(-1, 2, 2), a1, a2, time, pos


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_simulated_correlations_turn_with_the_parallactic_angle(tmp_path, feeds):
    b = brightness(feeds)
    plain, *_ = simulate(tmp_path, feeds, False)
    np.testing.assert_allclose(plain, np.broadcast_to(b, plain.shape), atol=1e-6)
    data, a1, a2, time, pos = simulate(tmp_path, feeds, True)
    cross = np.nonzero(a1 != a2)[0][::3]  # a sample of the baselines and times
    chis = []
    for r in cross:
        cp = astropy_chi(pos[a1[r]], time[r], OBS.ra_deg, OBS.dec_deg)
        cq = astropy_chi(pos[a2[r]], time[r], OBS.ra_deg, OBS.dec_deg)
        want = rotation(cp, feeds) @ b @ rotation(cq, feeds).conj().T
        np.testing.assert_allclose(data[r], want, atol=1e-4)
        chis.append(cp)
    assert np.ptp(chis) > 1.0  # the track turns the feeds by more than a radian
    # Stokes I is unchanged; Q and U are not
    np.testing.assert_allclose(np.trace(data, axis1=1, axis2=2), 2 * IQUV[0], atol=1e-4)


def test_feed_rotation_needs_a_polarised_predict():
    from uvlab.app.instrument.jones import check_feed_rotation

    with pytest.raises(ValueError, match="--feed-rotation needs a polarised predict"):
        check_feed_rotation(None, "scalar")


@pytest.mark.gpu
def test_feed_rotation_on_the_gpu_equals_the_cpu(tmp_path):
    from casacore import tables

    from uvlab.app.ms.simulate import simulate_ms

    sky = SkyModel([Component("p", "point", OBS.ra_deg, OBS.dec_deg + 0.2, IQUV, OBS.freq_hz)])
    out = {}
    for device in ("cpu", "gpu"):
        path = tmp_path / f"{device}.ms"
        simulate_ms(OBS, sky, path, feeds="linear", device=device,
                    jones=JonesOptions(feed_rotation=True))  # fmt: skip
        with tables.table(str(path), ack=False) as t:
            out[device] = t.getcol("DATA")
    np.testing.assert_allclose(out["gpu"], out["cpu"], atol=1e-5)


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_predict_into_an_ms_turns_the_feeds_by_its_mounts_and_receptor_angles(tmp_path, feeds):
    """``predict --feed-rotation`` reads ANTENNA::MOUNT and FEED::RECEPTOR_ANGLE: antenna 1
    made equatorial (no χ) and antenna 2 given a receptor angle of 0.4 rad."""
    from casacore import tables

    from uvlab.app.ms.predict_ms import predict_to_ms

    _, a1, a2, time, pos = simulate(tmp_path, feeds, False)
    path = tmp_path / f"{feeds}-False.ms"
    with tables.table(str(path / "ANTENNA"), readonly=False, ack=False) as t:
        t.putcell("MOUNT", 1, "EQUATORIAL")
    with tables.table(str(path / "FEED"), readonly=False, ack=False) as t:
        row = int(np.nonzero(t.getcol("ANTENNA_ID") == 2)[0][0])
        angles = t.getcell("RECEPTOR_ANGLE", row)
        t.putcell("RECEPTOR_ANGLE", row, angles + 0.4)
    sky = SkyModel([Component("p", "point", OBS.ra_deg, OBS.dec_deg, IQUV, OBS.freq_hz)])
    predict_to_ms(path, sky, column="MODEL_DATA", smearing=False, device="cpu",
                  jones=JonesOptions(feed_rotation=True))  # fmt: skip
    with tables.table(str(path), ack=False) as t:
        model = t.getcol("MODEL_DATA")[:, 0].reshape(-1, 2, 2)
    b = brightness(feeds)

    def chi(ant, r):
        if ant == 1:
            return 0.0
        return astropy_chi(pos[ant], time[r], OBS.ra_deg, OBS.dec_deg) + (0.4 if ant == 2 else 0)

    picked = [r for r in np.nonzero(a1 != a2)[0] if {a1[r], a2[r]} & {1, 2}][::2]
    picked += list(np.nonzero((a1 != a2) & (a1 > 2))[0][::5])
    for r in picked:
        p, q = rotation(chi(a1[r], r), feeds), rotation(chi(a2[r], r), feeds)
        np.testing.assert_allclose(model[r], p @ b @ q.conj().T, atol=1e-4)
    assert len(picked) > 10


def test_predict_refuses_a_mount_it_cannot_turn(tmp_path):
    from casacore import tables

    from uvlab.app.ms.errors import MSError
    from uvlab.app.ms.predict_ms import predict_to_ms

    simulate(tmp_path, "linear", False)
    path = tmp_path / "linear-False.ms"
    with tables.table(str(path / "ANTENNA"), readonly=False, ack=False) as t:
        t.putcell("MOUNT", 0, "X-Y")
        name = t.getcell("NAME", 0)
    sky = SkyModel([Component("p", "point", OBS.ra_deg, OBS.dec_deg, IQUV, OBS.freq_hz)])
    with pytest.raises(MSError, match=f"antenna {name} has MOUNT 'X-Y'"):
        predict_to_ms(path, sky, column="MODEL_DATA", smearing=False, device="cpu",
                      jones=JonesOptions(feed_rotation=True))  # fmt: skip
    with tables.table(str(path), ack=False) as t:
        assert "MODEL_DATA" not in t.colnames()  # refused before anything was written


#: A 2×2 voltage pattern, the same in every direction: the dish's own polarimetric
#: response in its feed frame, which does not commute with P (so E·P ≠ P·E).
PATTERN_E = np.array([[1.0, 0.2 + 0.1j], [-0.15j, 0.8 - 0.05j]])


def _pattern(tmp_path, feeds):
    from uvlab.app.instrument.beam_pattern import write_beam_pattern

    step, count = 1e-3, 11
    start = -step * (count // 2)
    data = np.broadcast_to(PATTERN_E, (1, count, count, 2, 2))
    pattern = str(tmp_path / f"p{feeds}_$(corr)_$(reim).fits")
    write_beam_pattern(pattern, data, (start, step, count), (start, step, count),
                       (OBS.freq_hz, 1e6, 1), feeds=feeds)  # fmt: skip
    return pattern


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_a_beam_pattern_turns_after_the_feeds(tmp_path, feeds):
    """With a 2×2 pattern E (sampled in the feeds' frame) each antenna is ``E·P``: the
    feeds first turn the sky's frame into theirs, then the dish responds. Both the
    simulated data and ``predict --feed-rotation`` into the MS (antenna 1 equatorial,
    antenna 2 with a receptor angle of 0.4 rad) hold ``E·P_p·B·P_qᴴ·Eᴴ``."""
    from casacore import tables

    from uvlab.app.ms.predict_ms import predict_to_ms
    from uvlab.app.ms.simulate import simulate_ms

    pattern = _pattern(tmp_path, feeds)
    jones = JonesOptions(primary_beam=pattern, feed_rotation=True)
    sky = SkyModel([Component("p", "point", OBS.ra_deg, OBS.dec_deg, IQUV, OBS.freq_hz)])
    path = tmp_path / f"{feeds}-pattern.ms"
    simulate_ms(OBS, sky, path, feeds=feeds, smearing=False, device="cpu", jones=jones)
    with tables.table(str(path), ack=False) as t:
        data = t.getcol("DATA")[:, 0].reshape(-1, 2, 2)
        a1, a2, time = t.getcol("ANTENNA1"), t.getcol("ANTENNA2"), t.getcol("TIME")
    with tables.table(str(path / "ANTENNA"), ack=False) as t:
        pos = t.getcol("POSITION")
    b, e = brightness(feeds), PATTERN_E
    wrong = 0.0
    for r in np.nonzero(a1 != a2)[0][::3]:
        p = rotation(astropy_chi(pos[a1[r]], time[r], OBS.ra_deg, OBS.dec_deg), feeds)
        q = rotation(astropy_chi(pos[a2[r]], time[r], OBS.ra_deg, OBS.dec_deg), feeds)
        want = e @ p @ b @ q.conj().T @ e.conj().T
        np.testing.assert_allclose(data[r], want, atol=1e-4)
        other = p @ e @ b @ e.conj().T @ q.conj().T  # P after the beam
        wrong = max(wrong, np.abs(other - want).max())
    assert wrong > 0.05  # the order is seen in the data
    with tables.table(str(path / "ANTENNA"), readonly=False, ack=False) as t:
        t.putcell("MOUNT", 1, "EQUATORIAL")
    with tables.table(str(path / "FEED"), readonly=False, ack=False) as t:
        row = int(np.nonzero(t.getcol("ANTENNA_ID") == 2)[0][0])
        t.putcell("RECEPTOR_ANGLE", row, t.getcell("RECEPTOR_ANGLE", row) + 0.4)
    predict_to_ms(path, sky, column="MODEL_DATA", smearing=False, device="cpu", jones=jones)
    with tables.table(str(path), ack=False) as t:
        model = t.getcol("MODEL_DATA")[:, 0].reshape(-1, 2, 2)

    def chi(ant, r):
        if ant == 1:
            return 0.0
        return astropy_chi(pos[ant], time[r], OBS.ra_deg, OBS.dec_deg) + (0.4 if ant == 2 else 0)

    picked = [r for r in np.nonzero(a1 != a2)[0] if {a1[r], a2[r]} & {1, 2}][::2]
    for r in picked:
        p, q = rotation(chi(a1[r], r), feeds), rotation(chi(a2[r], r), feeds)
        np.testing.assert_allclose(model[r], e @ p @ b @ q.conj().T @ e.conj().T, atol=1e-4)
    assert len(picked) > 5


@pytest.mark.gpu
def test_a_turned_beam_pattern_on_the_gpu_equals_the_cpu(tmp_path):
    from casacore import tables

    from uvlab.app.ms.simulate import simulate_ms

    jones = JonesOptions(primary_beam=_pattern(tmp_path, "linear"), feed_rotation=True)
    sky = SkyModel([Component("p", "point", OBS.ra_deg, OBS.dec_deg, IQUV, OBS.freq_hz)])
    out = {}
    for device in ("cpu", "gpu"):
        path = tmp_path / f"{device}.ms"
        simulate_ms(OBS, sky, path, feeds="linear", device=device, jones=jones)
        with tables.table(str(path), ack=False) as t:
            out[device] = t.getcol("DATA")
    np.testing.assert_allclose(out["gpu"], out["cpu"], atol=1e-5)
