"""The restoring beam: analytic Gaussians recovered, a real PSF fitted as a direct fit does."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clean_scenes import meerkat_psf_and_dirty
from uvlab.gpu.deconvolution import Beam, BeamFitError, beam_image, fit_beam
from uvlab.gpu.deconvolution.beam import main_lobe

ARCSEC = np.pi / 648000
CELL = 2.0 * ARCSEC


def _pa_diff(a, b):
    return (a - b + 90.0) % 180.0 - 90.0


@pytest.mark.parametrize(
    ("bmaj", "bmin", "bpa"),
    [(10, 6, 30), (12, 5, -60), (9, 4, 90), (7, 3, -89), (20, 8, 0), (15, 14, 45), (8, 5, 1.5)],
)
def test_analytic_gaussians_recovered(bmaj, bmin, bpa):
    truth = Beam(bmaj * ARCSEC, bmin * ARCSEC, bpa)
    psf = beam_image(truth, 128, CELL)
    fit = fit_beam(psf, CELL, oversample=1)  # the pixels themselves: exact
    assert fit.bmaj_arcsec == pytest.approx(bmaj, rel=1e-6)
    assert fit.bmin_arcsec == pytest.approx(bmin, rel=1e-6)
    assert _pa_diff(fit.bpa_deg, bpa) == pytest.approx(0.0, abs=1e-6)
    assert -90.0 < fit.bpa_deg <= 90.0
    casa_way = fit_beam(psf, CELL)  # resampled by cubic convolution, as CASA does
    assert casa_way.bmaj_arcsec == pytest.approx(bmaj, rel=0.02)
    assert casa_way.bmin_arcsec == pytest.approx(bmin, rel=0.06)  # 3": 1.5 pixels FWHM
    assert abs(_pa_diff(casa_way.bpa_deg, bpa)) < 1.0


def test_position_angle_is_east_of_north():
    # A beam long north-east (PA 45°): on uvlab's axes (l = −i·cell) that is up-and-left.
    psf = beam_image(Beam(20 * ARCSEC, 4 * ARCSEC, 45.0), 64, CELL)
    assert psf[32 + 3, 32 - 3] > 0.5 > psf[32 + 3, 32 + 3]
    assert fit_beam(psf, CELL, oversample=1).bpa_deg == pytest.approx(45.0)


def _direct_fit(psf, cell, cutoff=0.35):
    """scipy least squares of a height-1 Gaussian (FWHMs, PA) on the connected lobe > cutoff."""
    ndimage = pytest.importorskip("scipy.ndimage")
    optimize = pytest.importorskip("scipy.optimize")
    c = psf.shape[0] // 2
    labels, _ = ndimage.label(psf > cutoff)
    jj, ii = np.nonzero(labels == labels[c, c])
    x, y, z = -(ii - c) * cell, (jj - c) * cell, psf[jj, ii]

    def model(p):
        maj, mn, pa = p
        xp = x * np.sin(pa) + y * np.cos(pa)
        yp = x * np.cos(pa) - y * np.sin(pa)
        return np.exp(-4 * np.log(2) * ((xp / maj) ** 2 + (yp / mn) ** 2))

    start, scale = [10 * cell, 5 * cell, 0.3], [cell, cell, 1.0]
    tol = dict(xtol=1e-15, ftol=1e-15, gtol=1e-15)
    p = optimize.least_squares(lambda p: model(p) - z, start, x_scale=scale, **tol).x
    maj, mn, pa = abs(p[0]), abs(p[1]), np.degrees(p[2])
    if mn > maj:
        maj, mn, pa = mn, maj, pa + 90
    return maj, mn, _pa_diff(pa, 0.0), jj.size


def test_real_psf_matches_a_direct_least_squares_fit():
    psf, _, spec = meerkat_psf_and_dirty()
    maj, mn, pa, npts = _direct_fit(psf, spec.cell_rad)
    rows, _ = main_lobe(psf, 128, 128, 0.35, 20)
    assert rows.size == npts  # the walk finds the connected main lobe here
    fit = fit_beam(psf, spec.cell_rad, oversample=1)
    # MeerKAT's natural-weighted main lobe is not Gaussian and the minimum is shallow along
    # the minor axis: the two fits agree to 1e-5, and uvlab's is at least as good.
    assert fit.bmaj_rad == pytest.approx(maj, rel=1e-5)
    assert fit.bmin_rad == pytest.approx(mn, rel=1e-4)
    assert _pa_diff(fit.bpa_deg, pa) == pytest.approx(0.0, abs=1e-3)
    r, c = rows, main_lobe(psf, 128, 128, 0.35, 20)[1]
    x, y, z = -(c - 128) * spec.cell_rad, (r - 128) * spec.cell_rad, psf[r, c]

    def cost(beam):
        a, b, cc = beam.quadratic_form()
        return np.sum((z - np.exp(-(a * x * x + 2 * b * x * y + cc * y * y))) ** 2)

    assert cost(fit) <= cost(Beam(maj, mn, pa)) * (1 + 1e-12)
    default = fit_beam(psf, spec.cell_rad)
    assert default.bmaj_rad == pytest.approx(maj, rel=0.01)
    assert default.bmin_rad == pytest.approx(mn, rel=0.01)


def test_walk_stops_at_the_first_crossing():
    row = np.array([[0.0, 0.9, 0.1, 0.9, 1.0, 0.9, 0.2, 0.0, 0.8]])
    _, cols = main_lobe(row, 0, 4, 0.35, 10)
    assert sorted(cols.tolist()) == [3, 4, 5]  # the sidelobes at 1 and 8 are left out


@pytest.mark.parametrize(
    ("psf", "match"),
    [
        (np.zeros((64, 64)), "zero"),
        (np.pad(np.ones((1, 1)), ((2, 61), (2, 61))), "inner quarter"),
        (np.full((64, 64), np.nan), "non-finite"),
    ],
)
def test_unfittable_psfs_give_one_line(psf, match):
    with pytest.raises(BeamFitError, match=match) as err:
        fit_beam(psf, CELL)
    assert "\n" not in str(err.value)


def test_cupy_psf_is_fitted_on_the_host(xp):
    psf = beam_image(Beam(10 * ARCSEC, 6 * ARCSEC, 30.0), 64, CELL, xp)
    fit = fit_beam(psf, CELL, oversample=1)
    assert fit.bmaj_arcsec == pytest.approx(10.0, rel=1e-6)


#: CASA 6.7.0 (casatools ``synthesisutils.fitPsfBeam``, psfcutoff 0.35, tclean's beam fit) on
#: the MeerKAT scene's 256² PSF written by uvlab's FITS writer: BMAJ, BMIN (arcsec), BPA (deg).
CASA_MEERKAT_BEAM = (31.32132911682129, 20.15933609008789, -15.502426147460938)


def test_matches_casas_fit_on_the_same_psf():
    psf, _, spec = meerkat_psf_and_dirty()
    fit = fit_beam(psf, spec.cell_rad)
    bmaj, bmin, bpa = CASA_MEERKAT_BEAM
    assert fit.bmaj_arcsec == pytest.approx(bmaj, rel=1e-6)  # CASA fits in float32
    assert fit.bmin_arcsec == pytest.approx(bmin, rel=1e-6)
    assert fit.bpa_deg == pytest.approx(bpa, abs=1e-4)
