"""``uvlab image --channels-out N --join-channels --niter`` (and ``--fit-spectral-pol K``).

A simulated MS (VLA D, 8 channels of 100 MHz from 1.0 GHz, tests/support/cube_ms.py)
holds two points with different spectral indices, on pixels; imaged in 8 output
channels, so each output channel's true flux is the power law at its frequency.
Oracles: that spectrum; WSClean's polynomial ``I + Σ c_k·(ν/ν0 − 1)^k`` evaluated here
on the component list read back; the weighted least-squares fit of NumPy's polyfit;
per-channel CLEAN of the same data (with thermal noise and a source that only the MFS
image shows above the auto-threshold).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from tests.support.cli import error_line, run_cli
from tests.support.cube_ms import IMAGE, NCHAN
from tests.support.cube_ms import read_fits as _fits
from tests.support.cube_ms import simulate_cube as _simulate

FREQ = 1.0e9 + 1.0e8 * np.arange(NCHAN)
#: (name, di, dj, I at 1.4 GHz, α): well apart (18 pixels, ~4 beams).
SOURCES = [("a", 0, 0, 1.0, -0.7), ("b", -14, 12, 0.5, 1.0)]
CLEAN = ("--channels-out", NCHAN, "--join-channels", "--niter", 3000, "--threshold-jy", 1e-3)


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("joined"), SOURCES)


def _run(ms: Path, prefix: Path, *extra):
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, "--no-png", *extra, "--out", prefix)
    assert code == 0, err
    return out


def _models(prefix) -> np.ndarray:
    return np.stack([_fits(f"{prefix}-{k:04d}-model.fits")[0] for k in range(NCHAN)])


def _true(flux, alpha):
    return flux * (FREQ / 1.4e9) ** alpha


def _near(cube, di, dj):
    """Each channel's model within a pixel of the source (row 32 + dj, column 32 + di)."""
    return cube[:, 31 + dj : 34 + dj, 31 + di : 34 + di].sum(axis=(1, 2))


@pytest.mark.parametrize("deconvolver", ["hogbom", "cotton-schwab"])
def test_every_channel_recovers_its_flux(ms, tmp_path, deconvolver):
    prefix = tmp_path / "j"
    out = _run(ms, prefix, *CLEAN, "--deconvolver", deconvolver, "--mgain", 0.8)
    models = _models(prefix)
    for _, di, dj, flux, alpha in SOURCES:
        np.testing.assert_allclose(_near(models, di, dj), _true(flux, alpha), rtol=0.01)
    assert "CLEAN (MFS" in out and out.count("CLEAN") >= NCHAN + 1
    names = {p.name for p in tmp_path.iterdir()}
    for tag in [f"{k:04d}" for k in range(NCHAN)] + ["MFS"]:
        assert {f"j-{tag}-{kind}.fits" for kind in ("model", "residual", "image")} <= names
    assert "j-sources.txt" in names
    mfs_res, _ = _fits(f"{prefix}-MFS-residual.fits")
    assert np.abs(mfs_res).max() <= 1e-3 * (1 + 1e-6)  # the stop level is the MFS residual's


def _read_components(path):
    from uvlab.app.skymodel import load_sky

    return load_sky(path).components


def _component_flux(c, freq):
    """WSClean's ordinary polynomial, written here: I + Σ c_k·(ν/ν0 − 1)^k."""
    x = freq / c.ref_freq_hz - 1.0
    terms = c.spectral_terms if not c.log_si else ()
    flat = c.log_si and not c.spectral_terms and c.spectral_index == 0.0
    assert not c.log_si or flat, "a fitted component is written with LogarithmicSI false"
    return c.stokes[0] + sum(t * x ** (k + 1) for k, t in enumerate(terms))


def _pixel(c, header):
    """The component's (row, column) through the MFS model's WCS."""
    from astropy.wcs import WCS

    i, j = WCS(header).celestial.world_to_pixel_values(c.ra_deg, c.dec_deg)
    return round(float(j)), round(float(i))


def test_fit_spectral_pol_follows_the_spectrum_and_the_list_reads_back(ms, tmp_path):
    prefix, k = tmp_path / "f", 3
    _run(ms, prefix, *CLEAN, "--fit-spectral-pol", k)
    models = _models(prefix)
    text = Path(f"{prefix}-sources.txt").read_text()
    assert "SpectralIndex, LogarithmicSI, ReferenceFrequency" in text and ",false," in text
    comps = _read_components(f"{prefix}-sources.txt")
    _, header = _fits(f"{prefix}-MFS-model.fits")
    nu0 = FREQ.mean()  # natural weights, the same in every channel: ν0 is the mean
    listed = np.zeros_like(models)
    for c in comps:
        assert c.ref_freq_hz == pytest.approx(nu0, rel=1e-12) and len(c.spectral_terms) <= k - 1
        j, i = _pixel(c, header)
        listed[:, j, i] += _component_flux(c, FREQ)
    scale = np.abs(models).max()
    np.testing.assert_allclose(listed, models, rtol=0, atol=1e-6 * scale)  # float32 FITS
    x = FREQ / nu0 - 1.0
    for _, di, dj, flux, alpha in SOURCES:
        got = _near(models, di, dj)
        np.testing.assert_allclose(got, _true(flux, alpha), rtol=0.01)
        fitted = P.polyval(x, P.polyfit(x, got, k - 1))  # a polynomial of k terms already
        np.testing.assert_allclose(got, fitted, rtol=1e-5)


def test_joined_multiscale_writes_wsclean_s_files_and_fits_each_component(ms, tmp_path):
    """``--join-channels --multiscale``: every channel's flux, the set of files WSClean
    writes, and the component list (scale components, LogarithmicSI false) read back."""
    prefix, k = tmp_path / "m", 3
    out = _run(ms, prefix, *CLEAN, "--multiscale", "--fit-spectral-pol", k, "--mgain", 0.8)
    assert "CLEAN (MFS" in out
    names = {p.name for p in tmp_path.iterdir()}
    kinds = ("dirty", "psf", "model", "residual", "image")
    for tag in [f"{c:04d}" for c in range(NCHAN)] + ["MFS"]:
        assert {f"m-{tag}-{kind}.fits" for kind in kinds} <= names
    assert "m-sources.txt" in names
    models = _models(prefix)
    for _, di, dj, flux, alpha in SOURCES:  # within 3 pixels: a scale component's spread
        got = models[:, 29 + dj : 36 + dj, 29 + di : 36 + di].sum(axis=(1, 2))
        np.testing.assert_allclose(got, _true(flux, alpha), rtol=0.01)
    _, header = _fits(f"{prefix}-MFS-model.fits")
    listed = np.zeros_like(models)
    for c in _read_components(f"{prefix}-sources.txt"):
        j, i = _pixel(c, header)
        listed[:, j, i] += _component_flux(c, FREQ)
    np.testing.assert_allclose(listed, models, rtol=0, atol=1e-6 * np.abs(models).max())
    mfs_res, _ = _fits(f"{prefix}-MFS-residual.fits")
    assert np.abs(mfs_res).max() <= 1e-3 * (1 + 1e-6)


def test_one_term_makes_every_component_flat(ms, tmp_path):
    prefix = tmp_path / "one"
    _run(ms, prefix, *CLEAN, "--fit-spectral-pol", 1)
    models = _models(prefix)
    assert np.count_nonzero(models[0]) >= 2
    np.testing.assert_allclose(models, np.broadcast_to(models[0], models.shape), rtol=1e-6)
    for c in _read_components(f"{prefix}-sources.txt"):
        assert not any(c.spectral_terms) and c.spectral_index == 0.0


@pytest.fixture(scope="module")
def noisy(tmp_path_factory):
    """Thermal noise and a 12 mJy source: ~6σ in the MFS image, ~2σ in one channel."""
    folder = tmp_path_factory.mktemp("noisy")
    sky = [*SOURCES[:1], ("weak", 12, 10, 0.012, 0.0)]
    return _simulate(folder, sky, "--noise-jy", 0.5, "--seed", 29)


def test_joined_mfs_residual_is_no_higher_than_per_channel_cleans(noisy, tmp_path):
    flags = ("--channels-out", NCHAN, "--niter", 3000, "--auto-threshold", 3, "--mgain", 0.8)
    _run(noisy, tmp_path / "one", *flags)
    _run(noisy, tmp_path / "joined", *flags, "--join-channels")
    separate, _ = _fits(tmp_path / "one-MFS-residual.fits")
    joined, _ = _fits(tmp_path / "joined-MFS-residual.fits")
    assert np.abs(joined).max() <= np.abs(separate).max()
    near_weak = _models(tmp_path / "joined")[:, 41:44, 43:46]  # row 32 + 10, column 32 + 12
    assert near_weak.sum(axis=(1, 2)).min() > 0  # found at the MFS image's signal-to-noise


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("--channels-out", 2, "--fit-spectral-pol", 2), "--fit-spectral-pol needs --join"),
        (("--channels-out", 2, "--join-channels", "--fit-spectral-pol", 3),
         "--fit-spectral-pol: 3 terms, but only 2 output channels"),
        (("--join-channels", "--fit-spectral-pol", 1), "needs --channels-out N > 1"),
        (("--channels-out", 2, "--join-channels", "--fit-spectral-pol", 0), "--fit-spectral-pol"),
    ],
)  # fmt: skip
def test_bad_values_are_usage_errors(ms, tmp_path, argv, words):
    code, _, err = run_cli("image", "--ms", ms, *IMAGE, *argv, "--out", tmp_path / "b")
    assert code == 2 and words in error_line(err)
    assert not list(tmp_path.iterdir())
