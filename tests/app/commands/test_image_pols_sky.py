"""What the tclean comparisons showed, pinned against the sky model (no CASA).

The MSes of tests/app/commands/test_image_pols_vs_casa.py and test_multiscale_vs_casa.py
(``tests.support.casa_scenes``), imaged as there; the oracle is the simulated sky:

- ``--pol iquv`` CLEANed to 1 mJy, linear and circular feeds: the restored image at each
  point equals its I, Q, U, V (zeros included) to 5e-5 Jy (measured ≤ 4e-5, as tclean's);
  each model holds each point's flux to 1.5 mJy (threshold 1 mJy; measured 1.03 mJy);
  the iterations over the four products are tclean's 280 to ±2 (uvlab 279);
- ``--multiscale --auto-threshold 3 --mgain 0.8`` on issue 29's field: ≥ 97 % of the
  3.51 Jy (measured 99.86 %), the 10 mJy source within 5 % (9.8 mJy within 3 pixels), the
  residual's RMS ≤ 1.5 thermal σ (measured 1.44; tclean nsigma=3: 1.28, 100.2 %);
- the same with tclean's rule (``--multiscale-small-scale-bias 0``), at S = 3 and (marked
  ``slow``: a minute on two busy cores) at an absolute 3σ: ≥ 97 % of the flux and each
  point within 5 % as above, the residual's RMS at most what tclean reached (1.28σ and
  1.14σ; measured 1.24σ and 1.10σ).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.casa_scenes import (
    CELL_ARCSEC,
    EXTENDED_NPIX,
    EXTENDED_POINTS,
    GAUSSIAN,
    POL_NPIX,
    POL_SOURCES,
    extended_ms,
    polarised_ms,
    source_pixel,
    thermal_sigma,
)
from tests.support.cli import run_cli

THRESHOLD_JY = 1e-3
#: tclean(deconvolver='multiscale', scales=SCALES) residual RMS / thermal σ on the extended MS.
TCLEAN_RMS = {"auto": 1.28, "absolute": 1.14}
SCALES = "0,8,16,32,64"
TCLEAN_ITERATIONS = 280  # tclean(stokes='IQUV', threshold='1mJy') on the same MS


def _fits(path) -> np.ndarray:
    from astropy.io import fits

    return fits.getdata(path).squeeze().astype(np.float64)


def _image(ms, prefix, npix, *extra) -> str:
    code, out, err = run_cli("image", "--ms", ms, "--npix", npix, "--cell-arcsec", CELL_ARCSEC,
                             "--weighting", "natural", "--device", "cpu", "--no-png",
                             "--gain", 0.1, *extra, "--out", prefix)  # fmt: skip
    assert code == 0, err
    return out


@pytest.mark.parametrize("feeds", ["linear", "circular"])
def test_iquv_clean_recovers_the_skys_stokes_parameters(tmp_path, feeds):
    ms = polarised_ms(tmp_path, feeds)
    prefix = tmp_path / "p"
    out = _image(ms, prefix, POL_NPIX, "--pol", "iquv", "--niter", 1000,
                 "--threshold-jy", THRESHOLD_JY)  # fmt: skip
    iterations = [int(ln.split()[1]) for ln in out.splitlines() if ln.startswith("CLEAN:")]
    assert len(iterations) == 4 and abs(sum(iterations) - TCLEAN_ITERATIONS) <= 2
    for k, stokes in enumerate("IQUV"):
        restored = _fits(f"{prefix}-{stokes}-image.fits")
        model = _fits(f"{prefix}-{stokes}-model.fits")
        residual = _fits(f"{prefix}-{stokes}-residual.fits")
        assert np.abs(residual).max() <= THRESHOLD_JY
        for di, dj, *iquv in POL_SOURCES:
            j, i = source_pixel(POL_NPIX, di, dj)
            assert restored[j, i] == pytest.approx(iquv[k], abs=5e-5), (stokes, di)
            near = model[j - 3 : j + 4, i - 3 : i + 4].sum()
            assert near == pytest.approx(iquv[k], abs=1.5 * THRESHOLD_JY), (stokes, di)
        assert model.sum() == pytest.approx(sum(s[2 + k] for s in POL_SOURCES), abs=3e-3)


@pytest.fixture(scope="module")
def extended(tmp_path_factory):
    """Issue 29's field as an MS, and its thermal σ."""
    ms = extended_ms(tmp_path_factory.mktemp("extended"))
    return ms, thermal_sigma(ms)


def _multiscale(extended, prefix, *extra) -> tuple[np.ndarray, np.ndarray]:
    """(model, residual) of ``--multiscale`` on the extended MS; the flux and points checked."""
    ms, _ = extended
    _image(ms, prefix, EXTENDED_NPIX, "--niter", 20000, "--mgain", 0.8, "--multiscale",
           "--multiscale-scales", SCALES, *extra)  # fmt: skip
    model, residual = _fits(f"{prefix}-model.fits"), _fits(f"{prefix}-residual.fits")
    total = GAUSSIAN[0] + sum(p[2] for p in EXTENDED_POINTS)
    assert 0.97 * total <= model.sum() <= 1.01 * total
    for di, dj, jy in EXTENDED_POINTS:
        j, i = source_pixel(EXTENDED_NPIX, di, dj)
        assert model[j - 3 : j + 4, i - 3 : i + 4].sum() == pytest.approx(jy, rel=0.05)
    return model, residual


def test_multiscale_recovers_the_extended_field(extended, tmp_path):
    _, residual = _multiscale(extended, tmp_path / "m", "--auto-threshold", 3)
    assert residual.std() <= 1.5 * extended[1]


# both slow (30–60 s each on two cores): the `casa` tests compare with tclean itself, and
# test_multiscale.py pins the rule on a 128² field in the default run
@pytest.mark.slow
@pytest.mark.parametrize("stop", ["auto", "absolute"])
def test_tclean_rule_reaches_tcleans_residual(extended, tmp_path, stop):
    sigma = extended[1]
    flag = ("--auto-threshold", 3) if stop == "auto" else ("--threshold-jy", 3 * sigma)
    _, residual = _multiscale(extended, tmp_path / "t", "--multiscale-small-scale-bias", 0, *flag)
    assert residual.std() <= TCLEAN_RMS[stop] * sigma
