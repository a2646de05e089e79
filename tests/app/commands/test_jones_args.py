"""``uvlab simulate`` with primary beams, antenna gains and radiometer noise.

Oracles: the Airy voltage pattern 2·J1(x)/x from scipy at the source's offset (the data
with a beam over the data without it is E² on every row); closure phases and amplitudes,
which antenna gains cannot change, of a point source at the centre; the radiometer
equation σ = SEFD/√(2ΔνΔt) for the DATA of a blank field and σ/√(2N) for its dirty
image (within 5 %); a FITS beam cube sampled from the Airy model, which must reproduce
it to its interpolation error. Bad input: one line, the right exit code, nothing written.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.cli import run_cli, write_sky

C = 299792458.0
BASE = (
    "simulate", "--array", "kat-7", "--ra", "45", "--dec", "-50", "--ha-start", "-1",
    "--ha-stop", "1", "--int-s", "600", "--freq-hz", "1.3e9", "--chan-width-hz", "5e6",
    "--nchan", "2", "--device", "cpu", "--no-smearing",
)  # fmt: skip


def _cols(path, *names):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return [t.getcol(n) for n in names]
    finally:
        t.close()


def _offset_sky(tmp_path, east_deg=0.4, north_deg=0.3):
    ra0, dec0 = np.radians(45.0), np.radians(-50.0)
    dec = dec0 + np.radians(north_deg)
    ra = ra0 + np.radians(east_deg) / np.cos(dec)
    l = np.cos(dec) * np.sin(ra - ra0)
    m = np.sin(dec) * np.cos(dec0) - np.cos(dec) * np.sin(dec0) * np.cos(ra - ra0)
    sky = write_sky(tmp_path / "off.txt", [("s", np.degrees(ra), np.degrees(dec), 1, 0, 0, 0)])
    return sky, math.hypot(l, m)


@pytest.mark.parametrize("dish", [None, 6.0])
def test_airy_beam_scales_every_row_by_e_squared(tmp_path, dish):
    special = pytest.importorskip("scipy.special")
    sky, r = _offset_sky(tmp_path)
    code, _, err = run_cli(*BASE, "--sky", sky, "--out", tmp_path / "plain.ms")
    assert code == 0, err
    extra = ("--dish-diameter-m", dish) if dish else ()
    code, _, err = run_cli(*BASE, "--sky", sky, "--primary-beam", "airy", *extra,
                           "--out", tmp_path / "pb.ms")  # fmt: skip
    assert code == 0, err
    (plain,), (beam,) = _cols(tmp_path / "plain.ms", "DATA"), _cols(tmp_path / "pb.ms", "DATA")
    freq = 1.3e9 + 5e6 * np.arange(2)
    x = math.pi * (dish or 12.0) * r * freq / C  # KAT-7 dishes are 12 m
    e2 = (2 * special.j1(x) / x) ** 2
    ratio = beam[:, :, [0, 3]] / plain[:, :, [0, 3]]
    np.testing.assert_allclose(ratio, np.broadcast_to(e2[None, :, None], ratio.shape), rtol=1e-6)
    assert 0.05 < e2.max() < 0.95  # the source is well inside the main lobe, not at its centre


def test_random_gains_are_antenna_based(tmp_path):
    sky = write_sky(tmp_path / "c.txt", [("c", 45.0, -50.0, 1, 0, 0, 0)])
    args = (*BASE, "--sky", sky, "--gain-amp-rms", "0.1", "--gain-phase-rms-deg", "20",
            "--gain-corr-time-s", "1200")  # fmt: skip
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        code, _, err = run_cli(*args, "--gain-seed", seed, "--out", tmp_path / f"{name}.ms")
        assert code == 0, err
    a1, a2, t, data = _cols(tmp_path / "a.ms", "ANTENNA1", "ANTENNA2", "TIME", "DATA")
    (same,), (other,) = _cols(tmp_path / "b.ms", "DATA"), _cols(tmp_path / "c.ms", "DATA")
    np.testing.assert_array_equal(data, same)
    assert not np.allclose(data, other)
    xx = data[:, 0, 0]
    assert np.std(np.abs(xx)) > 0.05 and np.std(np.angle(xx)) > 0.1  # the gains are there
    np.testing.assert_allclose(data[:, 0, [1, 2]], 0, atol=1e-12)  # diagonal: no leakage
    # closure phase (0-1-2) and closure amplitude (0-1-2-3) of a point source are 0 and 1
    for time in np.unique(t):
        v = {(p, q): x for p, q, x, tt in zip(a1, a2, xx, t, strict=True) if tt == time}
        closure = v[0, 1] * v[1, 2] * np.conj(v[0, 2])
        assert abs(np.angle(closure)) < 1e-6  # DATA is complex64
        amp = abs(v[0, 1]) * abs(v[2, 3]) / (abs(v[0, 2]) * abs(v[1, 3]))
        assert amp == pytest.approx(1.0, rel=1e-6)


def test_sefd_noise_follows_the_radiometer_equation(tmp_path):
    from astropy.io import fits

    from uvlab.gpu.predict.noise import image_noise

    sky = write_sky(tmp_path / "blank.txt", [("none", 150.0, 30.0, 0, 0, 0, 0)])
    code, _, err = run_cli(
        "simulate", "--array", "vla.c", "--ra", "150", "--dec", "30", "--ha-start", "-1",
        "--ha-stop", "1", "--int-s", "300", "--chan-width-hz", "2e6", "--nchan", "2",
        "--sky", sky, "--sefd-jy", "420", "--seed", "1", "--device", "cpu",
        "--out", tmp_path / "n.ms",
    )  # fmt: skip
    assert code == 0, err
    data, sigma, flag = _cols(tmp_path / "n.ms", "DATA", "SIGMA", "FLAG")
    want = 420.0 / math.sqrt(2 * 2e6 * 300.0)
    np.testing.assert_allclose(sigma, want, rtol=1e-6)
    assert not flag.any()
    for part in (data.real, data.imag):
        assert np.std(part) == pytest.approx(want, rel=0.05)
    code, _, err = run_cli("image", "--ms", tmp_path / "n.ms", "--npix", "256", "--cell-arcsec",
                           "4", "--no-png", "--out", tmp_path / "n")  # fmt: skip
    assert code == 0, err
    img = fits.getdata(tmp_path / "n-dirty.fits").squeeze()
    nvis = data.shape[0] * data.shape[1]
    assert np.sqrt(np.mean(img**2)) == pytest.approx(image_noise(want, nvis), rel=0.05)


def test_beam_cube_reproduces_the_analytic_beam(tmp_path):
    from uvlab.app.instrument.beam_cube import write_beam_cube
    from uvlab.gpu.predict.beams import voltage_pattern

    sky, _ = _offset_sky(tmp_path)
    step, half = 5e-4, 0.03
    axis = np.arange(-half, half + step / 2, step)
    ll, mm = np.meshgrid(axis, axis)
    freqs = np.array([1.25e9, 1.30e9, 1.35e9])
    cube = np.stack([voltage_pattern("airy", np.hypot(ll, mm), f, 12.0) for f in freqs])
    write_beam_cube(tmp_path / "beam.fits", cube, (axis[0], step, len(axis)),
                    (axis[0], step, len(axis)), (freqs[0], 5e7, 3))  # fmt: skip
    for name, beam in (("cube", tmp_path / "beam.fits"), ("airy", "airy")):
        code, _, err = run_cli(*BASE, "--sky", sky, "--primary-beam", beam,
                               "--out", tmp_path / f"{name}.ms")  # fmt: skip
        assert code == 0, err
    (cube_data,), (airy_data,) = (
        _cols(tmp_path / "cube.ms", "DATA"),
        _cols(tmp_path / "airy.ms", "DATA"),
    )
    # trilinear interpolation: h = 5e-4 against a main lobe of ~0.02, ν spacing 50 MHz
    err = np.max(np.abs(cube_data - airy_data)) / np.max(np.abs(airy_data))
    assert 1e-7 < err < 5e-3


def _no_ms(tmp_path):
    return not any(p.suffix == ".ms" or ".ms" in p.name for p in tmp_path.iterdir())


def test_bad_input_one_line_nothing_written(tmp_path):
    from astropy.io import fits

    sky, _ = _offset_sky(tmp_path)
    out = tmp_path / "x.ms"
    code, _, err = run_cli(*BASE, "--sky", sky, "--sefd-jy", "-5", "--out", out)
    assert code == 2 and "--sefd-jy" in err and len(err.strip().splitlines()) == 1
    fits.PrimaryHDU(np.ones((3, 8, 8))).writeto(tmp_path / "nowcs.fits")
    code, _, err = run_cli(*BASE, "--sky", sky, "--primary-beam", tmp_path / "nowcs.fits",
                           "--out", out)  # fmt: skip
    assert code == 1 and "nowcs.fits" in err and "WCS" in err
    assert len(err.strip().splitlines()) == 1
    (tmp_path / "g1.txt").write_text("ant9 * * 1.0 0.0\n")
    code, _, err = run_cli(*BASE, "--sky", sky, "--gains", tmp_path / "g1.txt", "--out", out)
    assert code == 1 and "g1.txt" in err and "'ant9' is not in the array" in err
    rows = [f"{i} 5.0e9 * 1.0 0.0" for i in range(7)] + [f"{i} 5.1e9 * 1.0 0.0" for i in range(7)]
    (tmp_path / "g2.txt").write_text("\n".join(rows) + "\n")
    code, _, err = run_cli(*BASE, "--sky", sky, "--gains", tmp_path / "g2.txt", "--out", out)
    assert code == 1 and "g2.txt" in err and "times" in err
    assert len(err.strip().splitlines()) == 1
    assert _no_ms(tmp_path)


def test_gains_table_is_applied(tmp_path):
    """Constant gains from a table: XX_pq = a_p·a_q·exp(i(φ_p − φ_q))·I, exactly."""
    sky = write_sky(tmp_path / "c.txt", [("c", 45.0, -50.0, 2.0, 0, 0, 0)])
    amp = 1.0 + 0.1 * np.arange(7)
    phase = 10.0 * np.arange(7)
    lines = [f"{i} * * {amp[i]} {phase[i]}" for i in range(7)]
    (tmp_path / "g.txt").write_text("# antenna time freq amp phase\n" + "\n".join(lines))
    code, _, err = run_cli(*BASE, "--sky", sky, "--gains", tmp_path / "g.txt",
                           "--out", tmp_path / "g.ms")  # fmt: skip
    assert code == 0, err
    a1, a2, data = _cols(tmp_path / "g.ms", "ANTENNA1", "ANTENNA2", "DATA")
    want = 2.0 * amp[a1] * amp[a2] * np.exp(1j * np.radians(phase[a1] - phase[a2]))
    np.testing.assert_allclose(data[:, 0, 0], want, rtol=1e-6)
    np.testing.assert_allclose(data[:, 1, 3], want, rtol=1e-6)


@pytest.mark.parametrize("beam", ["gaussian", "cube"])
def test_predict_into_an_ms_matches_simulate(tmp_path, beam):
    """``uvlab predict`` (rows, E_p·conj(E_q) per row, gains per row) gives what
    ``uvlab simulate`` (per-antenna factors) wrote, for the same beams and gain seed."""
    from uvlab.app.instrument.beam_cube import write_beam_cube

    sky, _ = _offset_sky(tmp_path)
    if beam == "cube":  # asymmetric, so that the parallactic rotation matters
        axis = np.arange(-0.03, 0.0301, 1e-3)
        ll, mm = np.meshgrid(axis, axis)
        data = np.exp(-((ll / 0.02) ** 2) - (mm / 0.012) ** 2)[None]
        write_beam_cube(tmp_path / "b.fits", data, (axis[0], 1e-3, len(axis)),
                        (axis[0], 1e-3, len(axis)), (1.3e9, 1.0, 1))  # fmt: skip
        beam = tmp_path / "b.fits"
    jones = ("--primary-beam", beam, "--gain-amp-rms", "0.1", "--gain-phase-rms-deg", "15",
             "--gain-seed", "8")  # fmt: skip
    ms = tmp_path / "s.ms"
    code, _, err = run_cli(*BASE, "--sky", sky, *jones, "--out", ms)
    assert code == 0, err
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky, "--no-smearing",
                           "--device", "cpu", *jones)  # fmt: skip
    assert code == 0, err
    data, model = _cols(ms, "DATA", "MODEL_DATA")
    assert np.max(np.abs(model - data)) < 1e-6 * np.max(np.abs(data))
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky, "--no-smearing",
                           "--device", "cpu", "--column", "PLAIN")  # fmt: skip
    assert code == 0, err
    (plain,) = _cols(ms, "PLAIN")
    assert np.max(np.abs(plain - data)) > 0.05 * np.max(np.abs(data))


def test_predict_adds_radiometer_noise_to_a_new_column(tmp_path):
    """``uvlab predict --sefd-jy``: the added noise has the radiometer σ; MODEL_DATA refused."""
    from casacore.tables import table

    from uvlab.gpu.predict.noise import radiometer_sigma

    ms = tmp_path / "n.ms"
    code, _, err = run_cli(
        "simulate", "--array", "kat-7", "--ra", "83.6", "--dec", "22.0", "--ha-start", "-2",
        "--ha-stop", "2", "--int-s", "240", "--nchan", "16", "--chan-width-hz", "1e6",
        "--sky", "point", "--no-smearing", "--device", "cpu", "--out", ms,
    )  # fmt: skip
    assert code == 0, err
    code, out, err = run_cli(
        "predict", "--ms", ms, "--sky", "point", "--no-smearing", "--device", "cpu",
        "--sefd-jy", "420", "--seed", "5", "--column", "NOISY",
    )  # fmt: skip
    assert code == 0, err
    assert "SIGMA and WEIGHT are left as they were" in out
    with table(str(ms), ack=False) as t:
        noise = t.getcol("NOISY") - t.getcol("DATA")  # DATA: the same sky without noise
        interval = t.getcol("INTERVAL")
    sigma = radiometer_sigma(420.0, 1e6, float(np.median(interval)))
    for part in (noise.real, noise.imag):
        assert np.std(part) == pytest.approx(sigma, rel=0.05)
        assert abs(np.mean(part)) < 0.05 * sigma
    code, _, err = run_cli(
        "predict", "--ms", ms, "--sky", "point", "--sefd-jy", "420", "--device", "cpu",
    )  # fmt: skip
    assert code == 2 and "MODEL_DATA" in err and "\n" not in err.strip()
    with table(str(ms), ack=False) as t:
        assert "MODEL_DATA" not in t.colnames()
