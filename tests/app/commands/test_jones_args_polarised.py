"""``--primary-beam 'PATTERN'``: polarised (2×2 Jones) beams in ``uvlab simulate``,
``uvlab predict`` and ``uvlab image --pb-correct``.

Oracles: an analytic 2×2 voltage pattern with leakage, evaluated at each antenna's
rotated direction (l', m') = R(χ)·(l, m) (χ from
:func:`uvlab.app.instrument.parallactic.parallactic_angles`,
which tests/app/instrument/test_jones.py checks against astropy) and multiplied out per row with 2×2
``@`` around the float64 triple sum of each source — the pattern's cubes, sampled from
that model, must reproduce it to their interpolation error; a diagonal pattern (only the
xx and yy real files) written from the same E as a scalar cube, which must give the
scalar cube's data; ½·Σ|E_ij|² at the pixels for the pb image. Bad sets: one line, exit
1 (a usage error: 2), nothing written.
"""

from __future__ import annotations

import math

import numpy as np

from tests.support.cli import run_cli, write_sky

BASE = (
    "simulate", "--array", "kat-7", "--ra", "45", "--dec", "-50", "--ha-start", "-2",
    "--ha-stop", "2", "--int-s", "1200", "--freq-hz", "1.3e9", "--chan-width-hz", "5e6",
    "--nchan", "2", "--device", "cpu", "--no-smearing",
)  # fmt: skip
RA0, DEC0 = math.radians(45.0), math.radians(-50.0)
#: (east °, north °, I, Q, U, V): two polarised sources in the main lobe
SOURCES = [(0.4, 0.3, 1.0, 0.2, -0.1, 0.05), (-0.5, 0.2, 0.7, 0.0, 0.15, 0.0)]
STEP, HALF = 5e-4, 0.03
FREQS = np.array([1.25e9, 1.30e9, 1.35e9])


def model(l, m, nu):
    """The analytic 2×2 voltage pattern: elliptical, complex diagonals, l·m leakage."""
    s = nu / 1.3e9
    g = np.exp(-((s * l / 0.02) ** 2) - (s * m / 0.015) ** 2)
    h = np.exp(-((s * l / 0.015) ** 2) - (s * m / 0.02) ** 2)
    xx, yy = g * np.exp(10j * l), h * np.exp(-8j * m)
    xy = (0.15 + 0.05j) * g * (l + 0.5 * m) / 0.01
    yx = (0.05 - 0.1j) * h * (l - m) / 0.01
    return np.stack([np.stack([xx, xy], -1), np.stack([yx, yy], -1)], -2)


def grid():
    axis = np.arange(-HALF, HALF + STEP / 2, STEP)
    ll, mm = np.meshgrid(axis, axis)
    return ll, mm, (axis[0], STEP, len(axis)), (FREQS[0], FREQS[1] - FREQS[0], len(FREQS))


def sky(tmp_path):
    rows, lm = [], []
    for k, (east, north, i, q, u, v) in enumerate(SOURCES):
        dec = DEC0 + math.radians(north)
        ra = RA0 + math.radians(east) / math.cos(dec)
        rows.append((f"s{k}", math.degrees(ra), math.degrees(dec), i, q, u, v))
        lm.append((math.cos(dec) * math.sin(ra - RA0),
                   math.sin(dec) * math.cos(DEC0)
                   - math.cos(dec) * math.sin(DEC0) * math.cos(ra - RA0)))  # fmt: skip
    return write_sky(tmp_path / "pol.txt", rows), np.array(lm)


def cols(path, *names, sub=None):
    from casacore import tables

    t = tables.table(str(path) + (f"::{sub}" if sub else ""), ack=False)
    try:
        return [t.getcol(n) for n in names]
    finally:
        t.close()


def write_pattern(tmp_path, name="b", feeds="linear"):
    from uvlab.app.instrument.beam_pattern import write_beam_pattern

    ll, mm, ax, fax = grid()
    data = np.stack([model(ll, mm, f) for f in FREQS])
    pattern = str(tmp_path / f"{name}_$(corr)_$(reim).fits")
    write_beam_pattern(pattern, data, ax, ax, fax, feeds=feeds)
    return pattern


def oracle(ms, lm):
    """Σ_s E_p·X_s·E_qᴴ per row, E = model at R(χ_p)·(l, m), X_s from the triple sum."""
    from uvlab.app.instrument.parallactic import parallactic_angles
    from uvlab.app.observing.sites import ecef_to_geodetic
    from uvlab.gpu.predict.reference import predict_reference
    from uvlab.gpu.sources import SourceArrays

    t, a1, a2, uvw = cols(ms, "TIME", "ANTENNA1", "ANTENNA2", "UVW")
    (freq,) = cols(ms, "CHAN_FREQ", sub="SPECTRAL_WINDOW")
    freq = freq[0]
    (ecef,) = cols(ms, "POSITION", sub="ANTENNA")
    lon, lat, _ = ecef_to_geodetic(ecef)
    times, ti = np.unique(t, return_inverse=True)
    chi = parallactic_angles(times, RA0, DEC0, lon, lat)  # (time, ant)
    vis = np.zeros((len(t), len(freq), 2, 2), dtype=np.complex128)
    for k, (l, m) in enumerate(lm):
        n = math.sqrt(1 - l * l - m * m)
        src = SourceArrays.points(np.array([[l, m, n]]), [SOURCES[k][2:]])
        x = predict_reference(uvw, freq, src, "linear")  # (row, chan, 2, 2)
        c, s = np.cos(chi), np.sin(chi)
        e = model((l * c - m * s)[..., None], (l * s + m * c)[..., None], freq)
        ep, eq = e[ti, a1], e[ti, a2]  # (row, chan, 2, 2)
        vis += ep @ x @ np.conj(np.swapaxes(eq, -1, -2))
    return vis


def test_simulate_with_a_pattern_reproduces_the_analytic_jones_model(tmp_path):
    sky_file, lm = sky(tmp_path)
    pattern = write_pattern(tmp_path)
    code, _, err = run_cli(*BASE, "--sky", sky_file, "--primary-beam", pattern,
                             "--out", tmp_path / "p.ms")  # fmt: skip
    assert code == 0, err
    (data,) = cols(tmp_path / "p.ms", "DATA")
    got = data.reshape(*data.shape[:2], 2, 2)
    want = oracle(tmp_path / "p.ms", lm)
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    print(f"simulate through the pattern vs the analytic 2×2 model: {err:.2e} of the peak")
    assert err < 2e-3  # trilinear on h = 5e-4 against lobes of ~0.02 (and complex64 DATA)
    # the leakage is really there: XY is far from 0, and the diagonal-only model is off
    assert np.max(np.abs(got[..., 0, 1])) > 0.05 * np.max(np.abs(got))
    assert np.max(np.abs(got - want * np.eye(2))) > 20 * err * np.max(np.abs(want))


def test_a_diagonal_pattern_is_the_scalar_cube(tmp_path):
    """Only beam_xx_re and beam_yy_re, both E: the scalar cube E's data (to complex64)."""
    from uvlab.app.instrument.beam_cube import write_beam_cube

    sky_file, _ = sky(tmp_path)
    ll, mm, ax, fax = grid()
    e = np.stack([np.exp(-((ll / 0.02) ** 2) - (mm / 0.012) ** 2) * (f / 1.3e9) for f in FREQS])
    write_beam_cube(tmp_path / "e.fits", e, ax, ax, fax)
    for corr in ("xx", "yy"):
        write_beam_cube(tmp_path / f"d_{corr}_re.fits", e, ax, ax, fax)
    runs = {"scalar": tmp_path / "e.fits", "diag": str(tmp_path / "d_$(corr)_$(reim).fits")}
    for name, beam in runs.items():
        code, _, err = run_cli(*BASE, "--sky", sky_file, "--primary-beam", beam,
                               "--out", tmp_path / f"{name}.ms")  # fmt: skip
        assert code == 0, err
    (a,), (b,) = cols(tmp_path / "scalar.ms", "DATA"), cols(tmp_path / "diag.ms", "DATA")
    assert np.max(np.abs(a - b)) <= 1e-6 * np.max(np.abs(a))


def test_predict_into_an_ms_with_a_pattern_matches_simulate(tmp_path):
    """``uvlab predict`` (rows, E_p·X·E_qᴴ per row) writes what ``uvlab simulate`` wrote."""
    sky_file, _ = sky(tmp_path)
    pattern = write_pattern(tmp_path)
    ms = tmp_path / "s.ms"
    code, _, err = run_cli(*BASE, "--sky", sky_file, "--primary-beam", pattern, "--out", ms)
    assert code == 0, err
    code, _, err = run_cli("predict", "--ms", ms, "--sky", sky_file, "--no-smearing",
                           "--device", "cpu", "--primary-beam", pattern)  # fmt: skip
    assert code == 0, err
    data, model_data = cols(ms, "DATA", "MODEL_DATA")
    assert np.max(np.abs(model_data - data)) < 1e-6 * np.max(np.abs(data))


def _no_ms(tmp_path):
    return not any(".ms" in p.name for p in tmp_path.iterdir())


def test_bad_patterns_are_one_line_and_write_nothing(tmp_path):
    from uvlab.app.instrument.beam_cube import write_beam_cube

    sky_file, _ = sky(tmp_path)
    out = tmp_path / "x.ms"

    def simulate(beam, *extra):
        code, _, err = run_cli(*BASE, "--sky", sky_file, "--primary-beam", beam, *extra,
                               "--out", out)  # fmt: skip
        assert len(err.strip().splitlines()) == 1, err
        return code, err

    code, err = simulate(str(tmp_path / "b_$(corr).fits"))
    assert code == 2 and "$(reim)" in err
    pattern = write_pattern(tmp_path)
    (tmp_path / "b_xx_re.fits").unlink()  # a required file
    code, err = simulate(pattern)
    assert code == 1 and "b_xx_re.fits: no such file" in err
    pattern = write_pattern(tmp_path)
    ll, _, ax, fax = grid()
    write_beam_cube(tmp_path / "b_yx_im.fits", np.zeros((3, *ll.shape)), ax,
                    (ax[0] + STEP / 2, STEP, ax[2]), fax)  # fmt: skip
    code, err = simulate(pattern)
    assert code == 1 and "b_yx_im.fits: its m axis" in err
    bad = np.zeros((3, *ll.shape))
    bad[1, 4, 4] = np.nan
    write_beam_cube(tmp_path / "b_yx_im.fits", bad, ax, ax, fax)
    code, err = simulate(pattern)
    assert code == 1 and "b_yx_im.fits" in err and "non-finite" in err
    circ = write_pattern(tmp_path, "c", feeds="circular")
    code, err = simulate(circ)  # the default --feeds linear
    assert code == 1 and "circular feeds" in err and "cannot predict linear" in err
    assert _no_ms(tmp_path)
    code, _, err = run_cli(*BASE, "--sky", sky_file, "--primary-beam", circ, "--feeds",
                           "circular", "--out", out)  # fmt: skip
    assert code == 0, err


def test_pb_correct_with_a_pattern_is_the_stokes_i_power(tmp_path):
    """PREFIX-pb.fits of a pattern is ½·Σ|E_ij|² at the pixels, averaged over the
    parallactic turns of the track (KAT-7's alt-az dishes): against the analytic pattern
    turned by every (time, antenna) angle, and its own cube sampled at each of them."""
    from astropy.io import fits

    from uvlab.app.commands.pb_correct import track_chi
    from uvlab.app.instrument.beam_pattern import load_beam_pattern
    from uvlab.app.ms.reader import read_visibilities
    from uvlab.gpu.predict.beams import power_beam, sample_cube

    sky_file, _ = sky(tmp_path)
    pattern = write_pattern(tmp_path)
    ms = tmp_path / "k.ms"
    code, _, err = run_cli(*BASE, "--sky", sky_file, "--out", ms)
    assert code == 0, err
    code, _, err = run_cli("image", "--ms", ms, "--npix", "64", "--cell-arcsec", "60",
                           "--no-png", "--pb-correct", "--pb-model", pattern,
                           "--out", tmp_path / "o")  # fmt: skip
    assert code == 0, err
    pb = fits.getdata(tmp_path / "o-pb.fits").squeeze()
    n, cell = 64, math.radians(60 / 3600)
    i = np.arange(n)
    ll, mm = np.meshgrid(-(i - n // 2) * cell, (i - n // 2) * cell)
    freq = 1.3e9 + 5e6 * np.arange(2)
    chi = track_chi(str(ms), read_visibilities(str(ms)).time, RA0, DEC0).ravel()
    assert np.ptp(chi) > 0.3  # the sky turns by more than 17° over the track
    want = 0.0
    for c in chi:  # (l', m') = R(χ)·(l, m), as the predict samples a turned cube
        lr, mr = ll * np.cos(c) - mm * np.sin(c), ll * np.sin(c) + mm * np.cos(c)
        e = model(lr[None], mr[None], freq[:, None, None])  # (chan, j, i, 2, 2)
        want = want + np.mean(0.5 * np.sum(np.abs(e) ** 2, axis=(-2, -1)), axis=0) / chi.size
    assert np.max(np.abs(pb - want)) < 2e-3
    cube = load_beam_pattern(pattern)
    s = sample_cube(
        cube.data,
        cube.l_axis,
        cube.m_axis,
        cube.freq_axis,
        ll.ravel(),
        mm.ravel(),
        freq,
        chi=chi[:, None],
    )[:, 0]  # (turn, chan, pix, 2, 2)
    exact = np.mean(power_beam(s, jones=True), axis=(0, 1)).reshape(ll.shape)
    np.testing.assert_allclose(pb, exact, atol=1e-4)  # turns interpolated at 1° steps
