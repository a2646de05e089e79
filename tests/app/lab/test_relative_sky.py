"""Demo skies follow the pointing; absolute skies far away are warned about; sessions keep it."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import SkyCoord

from tests.support.observations import SMALL_OBS
from uvlab.app.lab.image_notes import outside_image_note
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection, Partial
from uvlab.app.lab.live import iter_job, run_job
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.samples import WorkCache
from uvlab.app.lab.session import (
    NamedSky,
    SessionError,
    SessionState,
    load_session,
    save_session,
)
from uvlab.app.lab.sources import read_samples
from uvlab.app.skymodel import Component, SkyModel
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

#: The pixel of SMALL_OBS's automatic cell, fixed so that both pointings share the grid.
IMAGING = ImagingOptions(npix=128, cell_arcsec=81.0)
NORTH = replace(SMALL_OBS, dec_deg=34.0)


@pytest.fixture(scope="module")
def teaching():
    """The teaching demo laid out about SMALL_OBS's phase centre (Dec −43°)."""
    sky = demo_sky_for("teaching", SMALL_OBS, IMAGING)
    assert sky.centre_deg == (SMALL_OBS.ra_deg, SMALL_OBS.dec_deg)
    return sky


def events_of(request):
    events = list(iter_job(request, WorkCache()))
    warnings = [e.warning for e in events if isinstance(e, Partial) and e.warning]
    return events[-1].output, warnings


def test_a_demo_sky_moves_with_the_declination(teaching, engine_image):
    south = run_job(JobRequest("synthetic", IMAGING, "cpu", SMALL_OBS, teaching))
    north, warnings = events_of(JobRequest("synthetic", IMAGING, "cpu", NORTH, teaching))
    assert not warnings
    peak = np.unravel_index(np.argmax(south.dirty), south.dirty.shape)
    assert np.unravel_index(np.argmax(north.dirty), north.dirty.shape) == peak
    assert north.dirty[peak] == pytest.approx(south.dirty[peak], rel=0.01)
    assert north.dirty[peak] > 0.95  # the 1 Jy point at the phase centre
    np.testing.assert_allclose(north.sources_lm, south.sources_lm, rtol=0, atol=1e-15)
    # the independent path: the sky explicitly moved, predicted and imaged by the engine
    moved = teaching.moved_to(NORTH.ra_deg, NORTH.dec_deg)
    ref = engine_image(NORTH, moved, north.spec, IMAGING)
    np.testing.assert_allclose(north.dirty, ref.dirty, rtol=0, atol=1e-12)
    # the old behaviour, the sky left at its RA/Dec, images fringes, and says why
    pinned = replace(teaching, centre_deg=None)
    old, warnings = events_of(JobRequest("synthetic", IMAGING, "cpu", NORTH, pinned))
    assert np.abs(old.dirty).max() < 0.05 * north.dirty[peak]
    centre = SkyCoord(NORTH.ra_deg * u.deg, NORTH.dec_deg * u.deg)
    nearest = min(
        centre.separation(SkyCoord(c.ra_deg * u.deg, c.dec_deg * u.deg)).deg for c in teaching
    )
    assert 76 < nearest < 78 and len(warnings) == 1
    assert warnings[0].startswith(
        f"every source of sky 'demo:teaching' lies outside the 128² image (nearest "
        f"{nearest:.3g}° from the phase centre at RA {NORTH.ra_deg:.4f}°, "
        f"Dec {NORTH.dec_deg:.4f}°): "
    ), warnings[0]


def test_no_warning_for_an_absolute_sky_inside_the_image(teaching):
    pinned = replace(teaching, centre_deg=None)
    out, warnings = events_of(JobRequest("synthetic", IMAGING, "cpu", SMALL_OBS, pinned))
    assert not warnings and out.dirty.max() > 0.95
    # nor for an empty sky
    _, warnings = events_of(JobRequest("synthetic", IMAGING, "cpu", NORTH, SkyModel()))
    assert not warnings


def test_outside_means_beyond_the_half_width_or_behind_the_horizon():
    ra0, dec0 = 10.0, -30.0
    spec = ImageSpec(100, 36.0 * ARCSEC)  # 100 × 36″ = 1° wide: half-width 0.5°

    def note(ra, dec, centre=None):
        comp = Component("c", "point", ra, dec, (1.0, 0, 0, 0), 1.4e9)
        return outside_image_note(SkyModel((comp,), "", centre), spec, *np.radians([ra0, dec0]))

    assert note(ra0, dec0 + 0.45) is None
    assert note(ra0, dec0 + 0.55).startswith("every source of the sky lies outside the 100² image")
    assert "nearest 0.55° from the phase centre at RA 10.0000°, Dec -30.0000°" in note(
        ra0, dec0 + 0.55
    )
    # l: 0.45° of RA at Dec −30 is only 0.39° of arc, inside; 0.65° of RA is 0.56°, outside
    assert note(ra0 + 0.45, dec0) is None and note(ra0 + 0.65, dec0) is not None
    # the antipode has l = m = 0 but lies behind the horizon
    assert "nearest 180°" in note(ra0 + 180.0, -dec0)
    # a relative sky is judged at its offsets, whatever the phase centre
    assert note(200.0, 40.0, centre=(200.0, 40.2)) is None
    assert note(200.0, 40.0, centre=(200.0, 41.0)) is not None


def test_the_ms_source_moves_a_relative_sky_to_the_field_centre(teaching, tmp_path):
    from uvlab.app.ms.simulate import simulate_ms

    ms = tmp_path / "north.ms"
    simulate_ms(NORTH, teaching.moved_to(NORTH.ra_deg, NORTH.dec_deg), ms, smearing=True)
    warned = []
    for sky in (teaching, replace(teaching, centre_deg=None)):
        req = JobRequest("ms", IMAGING, "cpu", sky=sky, ms=MSSelection(str(ms)))
        s = read_samples(req, warn=warned.append)
        offsets = teaching.to_source_arrays(*np.radians(teaching.centre_deg)).lmn
        if sky.relative:
            np.testing.assert_allclose(s.sources.lmn, offsets, rtol=0, atol=1e-15)
            assert not warned
    assert len(warned) == 1 and "lies outside the 128² image" in warned[0]


def test_sessions_keep_the_centre(teaching, tmp_path):
    edited = teaching.with_component(
        Component("click1", "point", 201.4, -43.0, (0.5, 0, 0, 0), 1.4e9)
    )
    state = SessionState(observation=SMALL_OBS, sky=edited, imaging=IMAGING)
    path = save_session(state, tmp_path / "s.json")
    d = json.loads(path.read_text())
    assert d["version"] == 2 and d["sky"]["centre_deg"] == [SMALL_OBS.ra_deg, SMALL_OBS.dec_deg]
    back = load_session(path)
    assert back == state and back.sky.centre_deg == edited.centre_deg
    # an absolute sky is saved without the key, and loads absolute
    pinned = replace(state, sky=replace(edited, centre_deg=None))
    d = json.loads(save_session(pinned, tmp_path / "p.json").read_text())
    assert "centre_deg" not in d["sky"]
    assert load_session(tmp_path / "p.json").sky.centre_deg is None
    # a named demo sky resolves relative to the observation
    named = SessionState(observation=NORTH, sky=NamedSky("pair", 0.5), imaging=IMAGING)
    assert named.resolved().sky.centre_deg == (NORTH.ra_deg, NORTH.dec_deg)
    # a bad centre is one line naming it
    d = json.loads(path.read_text())
    d["sky"]["centre_deg"] = [0.0, 100.0]
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(SessionError, match=r"bad.json: bad session: centre Dec 100.0"):
        load_session(tmp_path / "bad.json")


#: A version-2 session saved before skies could be relative: no "centre_deg".
OLD_V2 = {
    "format": "uvlab session",
    "version": 2,
    "source": "synthetic",
    "observation": {
        "layout": "kat-7",
        "ra_deg": 201.365,
        "dec_deg": 34.0,
        "ha_start_h": -3.0,
        "ha_stop_h": 3.0,
        "int_s": 600.0,
        "freq_hz": 1.4e9,
        "chan_width_hz": 2e6,
        "nchan": 2,
    },
    "modified_antennas_enu": None,
    "smearing": True,
    "sky": {
        "name": "demo:point",
        "components": [
            {
                "name": "centre",
                "kind": "point",
                "ra_deg": 201.365,
                "dec_deg": -43.019,
                "stokes": [1.0, 0.0, 0.0, 0.0],
                "ref_freq_hz": 1.4e9,
                "spectral_index": 0.0,
                "major_arcsec": 0.0,
                "minor_arcsec": 0.0,
                "pa_deg": 0.0,
            }
        ],
    },
    "imaging": {"npix": 64, "cell_arcsec": 81.0},
    "device": "cpu",
    "ms": None,
    "compare": None,
}


def test_an_older_session_loads_its_sky_absolute(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(OLD_V2))
    state = load_session(path)
    assert state.sky.centre_deg is None and state.sky[0].dec_deg == -43.019
    # as it always did: its components stay at their RA/Dec, and the job says where they are
    _, warnings = events_of(state.job_request(device="cpu"))
    assert len(warnings) == 1 and "(nearest 77° from the phase centre" in warnings[0]
    assert math.isclose(state.observation.dec_deg, 34.0)
