"""``uvlab image --pol LIST --channels-out N --join-channels --join-polarizations --niter``.

A simulated MS (VLA D, 3 channels of 200 MHz from 1.0 GHz, linear feeds,
tests/support/cube_ms.py) holds two points on pixels with known I, Q, U, V and spectral
indices, so each (channel, polarisation)'s true flux is the power law at the channel's
frequency. Oracles: that truth (the indices 1 and 0 make every spectrum a line, which
``--fit-spectral-pol 2`` must then recover in XX = I + Q and YY = I − Q alike: NumPy's
polyfit through it), and WSClean's polynomial evaluated here on the component list read
back; the unjoined run of one polarisation (``--stokes Q``), which a cube of several
``--pol`` products must equal bit for bit.
The joined-channels and joined-polarisations equivalences of the joined planes are
tests/gpu/deconvolution/test_joined_cube.py's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import error_line, run_cli
from tests.support.cube_ms import IMAGE
from tests.support.cube_ms import read_fits as _fits
from tests.support.cube_ms import simulate_cube as _simulate

NCHAN = 3
FREQ = 1.0e9 + 2.0e8 * np.arange(NCHAN)
#: (name, di, dj, (I, Q, U, V) at 1.4 GHz, α): 18 pixels (~4 beams) apart; both spectra
#: lines in ν, so that a two-term fit is exact.
SOURCES = [("a", 0, 0, (1.0, 0.3, -0.2, 0.05), 1.0), ("b", -14, 12, (0.5, 0.0, 0.15, 0.0), 0.0)]
STOP = 1e-3
JOIN = ("--pol", "iquv", "--channels-out", NCHAN, "--join-channels", "--join-polarizations",
        "--niter", 3000, "--threshold-jy", STOP)  # fmt: skip


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("joinboth"), SOURCES, "--nchan", NCHAN,
                     "--chan-width-hz", 2e8)  # fmt: skip


def _run(ms: Path, prefix: Path, *extra) -> str:
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, "--no-png", *extra, "--out", prefix)
    assert code == 0, err
    return out


def _cube(prefix, kind: str, pols=tuple("IQUV")) -> np.ndarray:
    """(C, P, N, N): every channel's every polarisation's ``kind`` image."""
    return np.stack([np.stack([_fits(f"{prefix}-{k:04d}-{p}-{kind}.fits")[0] for p in pols])
                     for k in range(NCHAN)])  # fmt: skip


def _near(cube, di, dj):
    """Each plane's model within a pixel of the source (row 32 + dj, column 32 + di)."""
    return cube[..., 31 + dj : 34 + dj, 31 + di : 34 + di].sum(axis=(-1, -2))


def _true(iquv, alpha) -> np.ndarray:
    """(C, 4) the power law of each parameter at each channel."""
    return np.outer((FREQ / 1.4e9) ** alpha, iquv)


def test_every_channel_and_polarisation_recovers_its_flux_at_the_same_pixels(ms, tmp_path):
    prefix = tmp_path / "j"
    out = _run(ms, prefix, *JOIN)
    models = _cube(prefix, "model")
    for _, di, dj, iquv, alpha in SOURCES:
        # each plane keeps at most what its residual holds at the stop, ~STOP
        np.testing.assert_allclose(_near(models, di, dj), _true(iquv, alpha), rtol=0,
                                   atol=1.5 * STOP)  # fmt: skip
    support = models.any(axis=(0, 1))
    assert support.sum() >= 2
    for plane in models.reshape(-1, *support.shape):  # every component in every plane
        assert not (plane.astype(bool) & ~support).any()
    assert (models[0, 0] != 0).sum() == support.sum()
    # the stop level is the search image's: each channel's root sum of squares, averaged
    residual = _cube(prefix, "residual")
    assert np.sqrt((residual**2).sum(axis=1)).mean(axis=0).max() <= STOP * (1 + 1e-6)
    cleans = [ln for ln in out.splitlines() if ln.startswith("CLEAN (MFS")]
    assert len(cleans) == 4 and len({ln.split(",")[0] for ln in cleans}) == 1  # one count
    for p, stokes in zip("IQUV", (1, 2, 3, 4), strict=True):
        _, header = _fits(f"{prefix}-MFS-{p}-image.fits")
        assert header["CRVAL4"] == stokes and header["BMAJ"] > 0
        assert any("join_polarizations" in str(h) for h in header["HISTORY"])
        mfs_model, _ = _fits(f"{prefix}-MFS-{p}-model.fits")
        mean = models[:, "IQUV".index(p)].mean(axis=0)  # equal weights: the plain mean
        np.testing.assert_allclose(mfs_model, mean, rtol=0, atol=1e-6 * np.abs(mean).max())
        assert Path(f"{prefix}-{p}-sources.txt").is_file()
        assert _fits(f"{prefix}-0002-{p}-image.fits")[1]["CRVAL3"] == pytest.approx(FREQ[2])
    assert not list(tmp_path.glob("j-I-0000*")) and not list(tmp_path.glob("j-0000-image*"))


def _component_flux(c, freq):
    """WSClean's ordinary polynomial, written here: I + Σ c_k·(ν/ν0 − 1)^k."""
    x = freq / c.ref_freq_hz - 1.0
    return c.stokes[0] + sum(t * x ** (k + 1) for k, t in enumerate(c.spectral_terms))


def test_each_correlation_gets_its_own_spectral_fit(ms, tmp_path):
    """XX and YY (I ± Q, their search image ½ of the sum of squares), each fitted alone,
    with Cotton–Schwab: every plane's major cycles on its own visibilities."""
    from uvlab.app.skymodel import load_sky

    prefix = tmp_path / "f"
    _run(ms, prefix, *JOIN[2:], "--pol", "xx,yy", "--fit-spectral-pol", 2,
         "--deconvolver", "cotton-schwab", "--mgain", 0.8)  # fmt: skip
    _, header = _fits(f"{prefix}-MFS-XX-model.fits")
    (line,) = [str(h) for h in header["HISTORY"] if "iterations in" in str(h)]
    assert int(line.split(" iterations in ")[1].split()[0]) > 1  # mgain 0.8: several majors
    models = _cube(prefix, "model", ("XX", "YY"))
    for _, di, dj, iquv, alpha in SOURCES:
        i, q = _true(iquv, alpha)[:, :2].T
        # a line through each correlation's truth, which is one: the fit recovers it
        line = np.stack([np.polyval(np.polyfit(FREQ, t, 1), FREQ) for t in (i + q, i - q)])
        np.testing.assert_allclose(_near(models, di, dj), line.T, rtol=0, atol=1.5 * STOP)
    # every model pixel's spectrum is a line (to the FITS files' float32), in each
    # correlation on its own
    second = models[0] - 2 * models[1] + models[2]  # equally spaced channels
    assert np.abs(second).max() <= 1e-6 * np.abs(models).max()
    for k, p in enumerate(("XX", "YY")):  # the component list gives each plane's model back
        comps = load_sky(f"{prefix}-{p}-sources.txt").components
        assert comps and not any(c.log_si for c in comps)
        for c, f in enumerate(FREQ):
            total = sum(_component_flux(comp, f) for comp in comps)
            want = models[c, k].sum()
            assert total == pytest.approx(want, rel=0, abs=1e-6 * np.abs(models).max())


def test_a_cube_of_several_products_is_each_ones_own_cube(ms, tmp_path):
    """Without --join-polarizations each polarisation is its own cube, named as WSClean."""
    _run(ms, tmp_path / "p", "--pol", "iq", "--channels-out", NCHAN, "--join-channels")
    _run(ms, tmp_path / "q", "--stokes", "Q", "--channels-out", NCHAN, "--join-channels")
    for tag in [f"{k:04d}" for k in range(NCHAN)] + ["MFS"]:
        for kind in ("dirty", "psf"):
            a, _ = _fits(tmp_path / f"p-{tag}-Q-{kind}.fits")
            b, _ = _fits(tmp_path / f"q-{tag}-{kind}.fits")
            np.testing.assert_array_equal(a, b)
        assert (tmp_path / f"p-{tag}-I-dirty.fits").is_file()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--pol", "iquv", "--channels-out", NCHAN, "--join-polarizations"),
         "--join-polarizations: not yet supported without --join-channels"),
        ((*JOIN, "--pb-correct"), "--pb-correct with --channels-out: not yet supported"),
    ],
)  # fmt: skip
def test_what_is_not_supported_is_refused(ms, tmp_path, extra, words):
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, *extra, "--out", tmp_path / "r")
    assert code == 2, (out, err)
    line = error_line(err)
    assert line.startswith("uvlab image: error: ") and words in line
    assert not list(tmp_path.glob("r*"))
