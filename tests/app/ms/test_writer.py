"""write_ms: a complete MeasurementSet that casacore, uvlab's reader and ducc0 can use."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.support.ms_factory import tree_digest
from tests.support.oracles import brightness, pixel_radec
from tests.support.paths import REPO
from uvlab.app.ms import read_visibilities
from uvlab.app.ms.writer import write_ms
from uvlab.app.observing.observation import ObservationSpec, simulate_observation
from uvlab.app.runtime.errors import Cancelled

C = 299792458.0
SUBTABLES = (
    "ANTENNA",
    "DATA_DESCRIPTION",
    "FEED",
    "FIELD",
    "FLAG_CMD",
    "HISTORY",
    "OBSERVATION",
    "POINTING",
    "POLARIZATION",
    "PROCESSOR",
    "SOURCE",
    "SPECTRAL_WINDOW",
    "STATE",
)


@pytest.fixture(scope="module")
def obs():
    spec = ObservationSpec(
        "vla.d",
        150.0,
        30.0,
        ha_start_h=-2,
        ha_stop_h=2,
        int_s=480.0,
        freq_hz=1.4e9,
        chan_width_hz=2e6,
        nchan=3,
    )
    return simulate_observation(spec)


def _table(path, sub=None):
    from casacore import tables

    return tables.table(str(path) + (f"/{sub}" if sub else ""), ack=False)


def _centre_source_vis(obs, feeds, iquv):
    """(time, bl, chan, 2, 2): a source at the phase centre has V = B on every baseline."""
    names = ("XX", "XY", "YX", "YY") if feeds == "linear" else ("RR", "RL", "LR", "LL")
    b = np.array([brightness(n, iquv) for n in names]).reshape(2, 2)
    return np.broadcast_to(b, (obs.ntime, obs.nbl, obs.freq_hz.size, 2, 2))


def test_main_table_and_every_subtable(tmp_path, obs):
    path = write_ms(tmp_path / "sim.ms", obs, _centre_source_vis(obs, "linear", (1, 0, 0, 0)))
    t = _table(path)
    try:
        assert t.nrows() == obs.ntime * obs.nbl
        kw = t.getkeywords()
        for sub in SUBTABLES:
            assert sub in kw and (path / sub / "table.dat").is_file()
        np.testing.assert_array_equal(t.getcol("UVW"), obs.uvw.reshape(-1, 3))
        np.testing.assert_array_equal(t.getcol("TIME"), np.repeat(obs.times_mjd_s, obs.nbl))
        np.testing.assert_array_equal(t.getcol("TIME_CENTROID"), t.getcol("TIME"))
        np.testing.assert_array_equal(t.getcol("ANTENNA1"), np.tile(obs.ant1, obs.ntime))
        np.testing.assert_array_equal(t.getcol("ANTENNA2"), np.tile(obs.ant2, obs.ntime))
        assert np.all(t.getcol("INTERVAL") == obs.int_s) and np.all(t.getcol("EXPOSURE") == 480)
        assert t.getcol("DATA").shape == (t.nrows(), 3, 4)
        assert t.getcol("FLAG").shape == (t.nrows(), 3, 4)
        assert t.getcol("WEIGHT").shape == t.getcol("SIGMA").shape == (t.nrows(), 4)
        for col in ("DATA_DESC_ID", "FIELD_ID", "ARRAY_ID", "STATE_ID", "PROCESSOR_ID"):
            assert np.all(t.getcol(col) == 0)
        assert np.all(t.getcol("SCAN_NUMBER") == 1)
        assert t.getcolkeywords("UVW")["MEASINFO"] == {"type": "uvw", "Ref": "J2000"}
        assert t.getcolkeywords("TIME")["MEASINFO"]["Ref"] == "UTC"
        assert t.getcolkeywords("TIME")["QuantumUnits"] == ["s"]
    finally:
        t.close()
    a = _table(path, "ANTENNA")
    np.testing.assert_array_equal(a.getcol("POSITION"), obs.layout.ecef)
    assert list(a.getcol("NAME")) == list(obs.layout.antenna_names)
    assert np.all(a.getcol("DISH_DIAMETER") == 25.0) and a.getcol("MOUNT")[0] == "ALT-AZ"
    assert a.getcolkeywords("POSITION")["MEASINFO"]["Ref"] == "ITRF"
    a.close()
    s = _table(path, "SPECTRAL_WINDOW")
    np.testing.assert_array_equal(s.getcell("CHAN_FREQ", 0), [1.4e9, 1.402e9, 1.404e9])
    assert list(s.getcell("CHAN_WIDTH", 0)) == list(s.getcell("EFFECTIVE_BW", 0)) == [2e6] * 3
    assert s.getcell("NUM_CHAN", 0) == 3 and s.getcell("TOTAL_BANDWIDTH", 0) == 6e6
    assert s.getcell("MEAS_FREQ_REF", 0) == 5  # TOPO
    assert s.getcolkeywords("CHAN_FREQ")["MEASINFO"]["VarRefCol"] == "MEAS_FREQ_REF"
    s.close()
    p = _table(path, "POLARIZATION")
    assert list(p.getcell("CORR_TYPE", 0)) == [9, 10, 11, 12] and p.getcell("NUM_CORR", 0) == 4
    np.testing.assert_array_equal(p.getcell("CORR_PRODUCT", 0), [[0, 0], [0, 1], [1, 0], [1, 1]])
    p.close()
    f = _table(path, "FIELD")
    np.testing.assert_allclose(f.getcell("PHASE_DIR", 0), [[np.radians(150), np.radians(30)]])
    assert f.getcolkeywords("PHASE_DIR")["MEASINFO"] == {"type": "direction", "Ref": "J2000"}
    f.close()
    o = _table(path, "OBSERVATION")
    assert o.getcell("TELESCOPE_NAME", 0) == "VLA"
    t0, t1 = o.getcell("TIME_RANGE", 0)
    assert t0 == pytest.approx(obs.times_mjd_s[0] - 240) and t1 == pytest.approx(
        obs.times_mjd_s[-1] + 240
    )
    o.close()
    fd = _table(path, "FEED")
    assert fd.nrows() == obs.layout.nant and list(fd.getcell("POLARIZATION_TYPE", 0)) == ["X", "Y"]
    fd.close()
    for sub, rows in (
        ("STATE", 1),
        ("PROCESSOR", 1),
        ("HISTORY", 1),
        ("SOURCE", 1),
        ("POINTING", 0),
        ("FLAG_CMD", 0),
        ("DATA_DESCRIPTION", 1),
    ):
        t = _table(path, sub)
        assert t.nrows() == rows, sub
        t.close()


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_reader_gets_the_stokes_parameters_back(tmp_path, obs, feeds):
    iquv = (2.0, 0.4, -0.3, 0.2)
    path = write_ms(
        tmp_path / "c.ms", obs, _centre_source_vis(obs, feeds, iquv), feeds=feeds, sigma=0.5
    )
    t = _table(path, "POLARIZATION")
    assert list(t.getcell("CORR_TYPE", 0)) == (
        [9, 10, 11, 12] if feeds == "linear" else [5, 6, 7, 8]
    )
    t.close()
    for k, s in enumerate("IQUV"):
        vd = read_visibilities(path, stokes=s)
        np.testing.assert_allclose(vd.vis, iquv[k], atol=1e-6)
        # SIGMA 0.5 per correlation: I = (a + b)/2 has weight 4/(1/w + 1/w) = 2/σ² = 8.
        np.testing.assert_allclose(vd.weight, 8.0)


def test_scalar_visibilities_are_written_unpolarised(tmp_path, obs):
    vis = np.full((obs.ntime, obs.nbl, 3), 1.5 - 0.5j)
    path = write_ms(tmp_path / "s.ms", obs, vis, feeds="circular")
    t = _table(path)
    data = t.getcol("DATA")
    t.close()
    np.testing.assert_allclose(data[..., [0, 3]], 1.5 - 0.5j, atol=1e-7)
    np.testing.assert_array_equal(data[..., [1, 2]], 0)


def test_ducc0_images_the_written_ms_with_sources_where_the_sky_says(tmp_path, obs):
    from uvlab.app.skymodel import Component, SkyModel
    from uvlab.gpu.predict import predict_antennas

    npix, cell = 128, np.radians(12.0 / 3600)
    offsets = [(9, -6, 1.0), (-14, 11, 0.6)]
    comps = []
    for k, (di, dj, flux) in enumerate(offsets):
        ra, dec = pixel_radec(150.0, 30.0, cell, di, dj)
        comps.append(Component(f"s{k}", "point", ra, dec, (flux, 0.1, 0.0, 0.0), 1.4e9))
    sky = SkyModel(tuple(comps))
    b = predict_antennas(
        obs.ant_uvw,
        obs.ant1,
        obs.ant2,
        obs.freq_hz,
        sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad),
        mode="linear",
    )
    path = write_ms(tmp_path / "d.ms", obs, b)
    import ducc0

    t, s = _table(path), _table(path, "SPECTRAL_WINDOW")
    uvw, data, freq = t.getcol("UVW"), t.getcol("DATA"), s.getcell("CHAN_FREQ", 0)
    t.close(), s.close()
    stokes_i = 0.5 * (data[..., 0] + data[..., 3]).astype(np.complex128)
    d = (
        ducc0.wgridder.experimental.vis2dirty(
            uvw=uvw,
            freq=freq,
            vis=stokes_i,
            npix_x=npix,
            npix_y=npix,
            pixsize_x=cell,
            pixsize_y=cell,
            epsilon=1e-7,
            flip_v=True,
        )
        / stokes_i.size
    )
    img = d.T  # DESIGN §1: ducc axis 0 = −l, axis 1 = +m → img[j, i]
    for di, dj, flux in offsets:
        j, i = npix // 2 + dj, npix // 2 + di
        win = img[j - 3 : j + 4, i - 3 : i + 4]
        assert np.unravel_index(np.argmax(win), win.shape) == (3, 3)
        assert img[j, i] == pytest.approx(flux, abs=0.05)
    assert np.unravel_index(np.argmax(img), img.shape) == (npix // 2 - 6, npix // 2 + 9)


def test_never_overwrites_without_being_asked(tmp_path, obs):
    vis = np.ones((obs.ntime, obs.nbl, 3), dtype=np.complex64)
    path = write_ms(tmp_path / "o.ms", obs, vis)
    before = tree_digest(path)
    with pytest.raises(FileExistsError, match="already exists"):
        write_ms(path, obs, 2 * vis)
    assert tree_digest(path) == before
    write_ms(path, obs, 2 * vis, overwrite=True)
    t = _table(path)
    assert np.all(t.getcol("DATA")[..., 0] == 2)
    t.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.ms"]
    (tmp_path / "plain").mkdir()
    with pytest.raises(FileExistsError, match="not a casacore table"):
        write_ms(tmp_path / "plain", obs, vis, overwrite=True)


@pytest.mark.parametrize("how", ["error", "cancel"])
def test_an_interrupted_write_leaves_nothing(tmp_path, obs, how):
    calls = []

    def vis(rows):
        calls.append(rows)
        if len(calls) == 2 and how == "error":
            raise RuntimeError("disk full (simulated)")
        return np.ones((rows.stop - rows.start, 3), dtype=np.complex64)

    def cancelled():
        return how == "cancel" and len(calls) == 2

    from uvlab.app.ms.errors import MSError

    expected = MSError if how == "error" else Cancelled  # casacore's RuntimeError: one line
    with pytest.raises(expected, match=r"disk full \(simulated\)|cancelled"):
        write_ms(tmp_path / "x.ms", obs, vis, chunk_rows=obs.nbl * 3, cancelled=cancelled)
    assert len(calls) == 2 and calls[0] == slice(0, obs.nbl * 3)
    assert list(tmp_path.iterdir()) == []


def test_bad_shapes_are_refused(tmp_path, obs):
    with pytest.raises(ValueError, match="vis has shape"):
        write_ms(tmp_path / "b.ms", obs, np.ones((3, 4)))
    with pytest.raises(ValueError, match="do not match feeds"):
        write_ms(tmp_path / "b.ms", obs, np.ones((obs.ntime, obs.nbl, 3)), corr_types=(5, 8))
    assert list(tmp_path.iterdir()) == []


_RSS_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys, time
    import numpy, casacore.tables
    from uvlab.app.ms import read_visibilities

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def current():
        with open("/proc/self/status") as f:
            line = next(x for x in f if x.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024

    base, import_peak = current(), peak()
    t0 = time.perf_counter()
    vd = read_visibilities(sys.argv[1], stokes="I")
    dt = time.perf_counter() - t0
    result = vd.vis.nbytes + vd.weight.nbytes + vd.flag.nbytes + vd.uvw.nbytes + vd.time.nbytes
    result += vd.ant1.nbytes + vd.ant2.nbytes + vd.rows.nbytes
    print(json.dumps({"base": base, "import_peak": import_peak, "peak_rss": peak(),
                      "result_bytes": result, "seconds": dt, "rows": vd.nrow}))
    """
)


@pytest.mark.slow
def test_reading_a_1gb_ms_keeps_memory_bounded(tmp_path):
    """Write ~1 GB with write_ms, read Stokes I in a fresh process, measure peak RSS.

    Marked slow (about 30 s and 1.2 GB of disk): ``make test-all`` runs it.
    """
    import json

    spec = ObservationSpec(
        "meerkat", 150.0, -30.0, ha_start_h=-1, ha_stop_h=1, int_s=28.8, nchan=64
    )
    obs = simulate_observation(spec)
    rng = np.random.default_rng(1)

    def vis(rows):
        n = rows.stop - rows.start
        return (rng.standard_normal((n, 64, 4)) + 1j).astype(np.complex64)

    path = write_ms(tmp_path / "big.ms", obs, vis)
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    got = json.loads(run.stdout)
    base = got["base"]
    extra = got["peak_rss"] - base - got["result_bytes"]
    print(
        f"\nMS {size / 2**30:.2f} GiB, {got['rows']} rows; read {got['seconds']:.1f} s; "
        f"peak RSS {got['peak_rss'] / 2**20:.0f} MiB = RSS after imports {base / 2**20:.0f} "
        f"MiB + result {got['result_bytes'] / 2**20:.0f} MiB + {extra / 2**20:.0f} MiB "
        f"(import-time peak {got['import_peak'] / 2**20:.0f} MiB)"
    )
    assert size > 0.9 * 2**30
    assert extra < 400 * 2**20  # the 64 MiB chunk temporaries and casacore's caches
