"""The restoring beam: an elliptical Gaussian fitted to the PSF's main lobe, as CASA fits it.

CASA's tclean fits its restoring beam in ``StokesImageUtil::FitGaussianPSF``
(CASA 6, ``psfcutoff`` = 0.35). The same steps here:

1. Normalise the PSF to its peak. Walk out from the peak row by row (up to 20
   rows each way) and, in each row, out from the peak column each way until the
   values drop below the cutoff: these are the main lobe's pixels, and no
   sidelobe beyond a crossing is taken, even when it exceeds the cutoff.
2. Take their bounding box, widened by 5 pixels, and resample it ``os`` times
   finer with cubic interpolation (Keys' cubic convolution, a = −0.5; CASA
   interpolates with its ``CUBIC`` method), ``os = ⌊√(3001 / pixels in the box)⌋``
   (at least 1), so that about 3000 samples cover the box. Renormalise to the
   resampled peak and select the main lobe again, the same way.
3. Least-squares fit of ``exp(−(a·x² + 2b·x·y + c·y²))`` (height 1, centred on
   the peak: CASA fixes both too) by Levenberg–Marquardt; the quadratic form
   gives the FWHMs and the position angle. This is CASA's fit of
   ``Gaussian2D`` (width, axial ratio, angle) in other parameters: the same
   minimum.
4. If too few samples pass to fix an ellipse (a PSF sampled too coarsely),
   the cutoff is lowered by 1.5× and the fit repeated, as CASA does when its
   fit fails.

Step 2's cubic interpolation is not exact: on a Gaussian of 2.5 pixels FWHM the
FWHM comes out ~1 % small (CASA's bicubic does likewise); ``oversample=1``
fits the pixels themselves and recovers an analytic Gaussian exactly.

Angles: x points east (l), y north (m), in radians (uvlab's ``img[j, i]`` has
``x = −(i − i₀)·cell``, ``y = (j − j₀)·cell``). BPA is the major axis' angle
east of north in degrees, in (−90°, 90°] (CASA's and FITS's convention).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import to_numpy
from uvlab.gpu.image_spec import ARCSEC

#: FWHM² = 4 ln 2 / λ for a Gaussian exp(−λ x²).
FOUR_LN2 = 4.0 * np.log(2.0)
#: CASA's defaults: cutoff, rows walked out from the peak, box widening, target samples.
CUTOFF, NROW, EXPAND, TARGET_SAMPLES = 0.35, 20, 5, 3001


class BeamFitError(ValueError):
    """The PSF's main lobe cannot be fitted (one-line message)."""


@dataclass(frozen=True)
class Beam:
    """An elliptical Gaussian beam.

    Attributes
    ----------
    bmaj_rad, bmin_rad : float
        Major and minor FWHM, radians.
    bpa_deg : float
        Position angle of the major axis, degrees east of north, in (−90, 90].
    """

    bmaj_rad: float
    bmin_rad: float
    bpa_deg: float

    @property
    def bmaj_arcsec(self) -> float:
        return self.bmaj_rad / ARCSEC

    @property
    def bmin_arcsec(self) -> float:
        return self.bmin_rad / ARCSEC

    @property
    def bmaj_deg(self) -> float:
        return float(np.degrees(self.bmaj_rad))

    @property
    def bmin_deg(self) -> float:
        return float(np.degrees(self.bmin_rad))

    def quadratic_form(self) -> tuple[float, float, float]:
        """(a, b, c) of ``exp(−(a·x² + 2b·x·y + c·y²))``, x east and y north in radians."""
        pa = np.radians(self.bpa_deg)
        lam_maj, lam_min = FOUR_LN2 / self.bmaj_rad**2, FOUR_LN2 / self.bmin_rad**2
        ux, uy = np.sin(pa), np.cos(pa)  # the major axis
        vx, vy = np.cos(pa), -np.sin(pa)  # the minor axis
        return (
            lam_maj * ux * ux + lam_min * vx * vx,
            lam_maj * ux * uy + lam_min * vx * vy,
            lam_maj * uy * uy + lam_min * vy * vy,
        )


def beam_from_quadratic(a: float, b: float, c: float) -> Beam:
    """The :class:`Beam` of ``exp(−(a·x² + 2b·x·y + c·y²))`` (x east, y north, radians)."""
    q = np.array([[a, b], [b, c]], dtype=np.float64)
    lam, vec = np.linalg.eigh(q)  # ascending: λ₀ belongs to the major axis
    if not (lam[0] > 0 and np.all(np.isfinite(lam))):
        raise BeamFitError("the fitted Gaussian is not an ellipse (the PSF has no main lobe?)")
    ux, uy = vec[:, 0]
    pa = np.degrees(np.arctan2(ux, uy))  # east of north
    pa = (pa + 90.0) % 180.0 - 90.0  # (−90, 90]
    pa = 90.0 if pa == -90.0 else pa
    return Beam(float(np.sqrt(FOUR_LN2 / lam[0])), float(np.sqrt(FOUR_LN2 / lam[1])), float(pa))


def main_lobe(psf: np.ndarray, j0: int, i0: int, cutoff: float, nrow: int):
    """(rows, cols) of the main-lobe samples above ``cutoff``, walking out from (j0, i0).

    Rows j0, j0 ± 1, … up to ``nrow − 1`` away; in each, columns out from i0 each
    way until a sample below the cutoff follows one above it (step 1).
    """
    ny, nx = psf.shape
    rows, cols = [], []
    for dj in [0, *[s * k for k in range(1, nrow) for s in (1, -1)]]:
        j = j0 + dj
        if not 0 <= j < ny:
            continue
        for step in (1, -1):
            inlobe = psf[j, i0] > cutoff
            start = 0 if step == 1 else 1
            for k in range(start, nrow):
                i = i0 + step * k
                if not 0 <= i < nx:
                    break
                above = psf[j, i] > cutoff
                if inlobe and not above:
                    break
                if above:
                    inlobe = True
                    rows.append(j)
                    cols.append(i)
    return np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)


def _keys(t: np.ndarray) -> np.ndarray:
    """Keys' cubic convolution kernel (a = −0.5) at offsets ``t``."""
    t = np.abs(t)
    a = -0.5
    return np.where(
        t <= 1,
        (a + 2) * t**3 - (a + 3) * t**2 + 1,
        np.where(t < 2, a * t**3 - 5 * a * t**2 + 8 * a * t - 4 * a, 0.0),
    )


def _cubic_matrix(n: int, os: int) -> np.ndarray:
    """(os·(n − 1) + 1, n) interpolation matrix onto positions k/os (edges clamped)."""
    pos = np.arange(os * (n - 1) + 1) / os
    base = np.floor(pos).astype(np.int64)
    w = np.zeros((pos.size, n))
    for off in (-1, 0, 1, 2):
        idx = base + off
        np.add.at(w, (np.arange(pos.size), np.clip(idx, 0, n - 1)), _keys(pos - idx))
    return w


def resample(window: np.ndarray, os: int) -> np.ndarray:
    """``window`` sampled ``os`` times finer by cubic convolution; original samples kept."""
    if os == 1:
        return window.copy()
    wy = _cubic_matrix(window.shape[0], os)
    wx = _cubic_matrix(window.shape[1], os)
    return wy @ window @ wx.T


def fit_gaussian(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, max_iter: int = 200):
    """Levenberg–Marquardt fit of ``z ≈ exp(−(a·x² + 2b·x·y + c·y²))``: returns (a, b, c).

    x, y in any unit (the caller scales them near 1 for conditioning).
    """
    basis = np.stack([x * x, 2 * x * y, y * y], axis=1)
    pos = z > 0
    if np.count_nonzero(pos) < 3 or np.linalg.matrix_rank(basis[pos]) < 3:
        raise BeamFitError("too few main-lobe samples to fit the beam")
    p = np.linalg.lstsq(basis[pos], -np.log(z[pos]), rcond=None)[0]  # log-linear start
    model = np.exp(-basis @ p)
    cost = float(np.sum((z - model) ** 2))
    lam = 1e-3
    for _ in range(max_iter):
        jac = -model[:, None] * basis  # ∂model/∂p
        g = jac.T @ (z - model)
        h = jac.T @ jac
        step = np.linalg.lstsq(h + lam * np.diag(np.diag(h)), g, rcond=None)[0]
        trial = p + step
        m_trial = np.exp(-basis @ trial)
        c_trial = float(np.sum((z - m_trial) ** 2))
        if c_trial <= cost:
            small = np.max(np.abs(step) / np.maximum(np.abs(trial), 1e-300)) < 1e-14
            p, model, cost, lam = trial, m_trial, c_trial, max(lam / 10, 1e-12)
            if small or cost == 0.0:
                break
        else:
            lam *= 10
            if lam > 1e12:
                break
    return tuple(float(v) for v in p)


def fit_beam(psf, cell_rad: float, *, cutoff: float = CUTOFF, oversample: int | None = None):
    """Fit the restoring beam to ``psf``'s main lobe, as CASA's tclean does.

    Parameters
    ----------
    psf : (P, P) float
        The PSF (numpy or cupy; the central part is copied to the host).
    cell_rad : float
        Pixel size, radians (square pixels).
    cutoff : float
        Main-lobe samples above this fraction of the peak are fitted (CASA's
        ``psfcutoff``, 0.35).
    oversample : int, optional
        Resampling factor of step 2; None chooses CASA's (about 3000 samples).
        1 fits the pixels themselves.

    Returns
    -------
    Beam

    Raises
    ------
    BeamFitError
        When the PSF has no usable peak or main lobe.
    """
    if not 0.0 < cutoff < 1.0:
        raise BeamFitError(f"the PSF cutoff must be in (0, 1), got {cutoff}")
    psf = np.asarray(to_numpy(psf), dtype=np.float64)
    ny, nx = psf.shape
    if not np.all(np.isfinite(psf)):
        raise BeamFitError("the PSF holds non-finite values")
    j0, i0 = np.unravel_index(int(np.argmax(psf)), psf.shape)
    peak = psf[j0, i0]
    if not peak > 1e-7:
        raise BeamFitError("the PSF peak is zero: no beam to fit")
    if not (ny / 4 <= j0 <= 3 * ny / 4 and nx / 4 <= i0 <= 3 * nx / 4):
        raise BeamFitError("the PSF peak lies outside the inner quarter of the image")
    norm = psf / peak
    level = float(cutoff)
    while level > 0.009:
        rows, cols = main_lobe(norm, int(j0), int(i0), level, NROW)
        if rows.size:
            r0, r1 = max(rows.min() - EXPAND, 0), min(rows.max() + EXPAND, ny - 1)
            c0, c1 = max(cols.min() - EXPAND, 0), min(cols.max() + EXPAND, nx - 1)
            window = norm[r0 : r1 + 1, c0 : c1 + 1]
            os = oversample or max(int(np.sqrt(TARGET_SAMPLES / window.size)), 1)
            fine = resample(window, int(os))
            fj, fi = np.unravel_index(int(np.argmax(fine)), fine.shape)
            fine = fine / fine[fj, fi]
            n_walk = (int(os) * min(window.shape) - 1) // 2
            rr, cc = main_lobe(fine, int(fj), int(fi), level, max(n_walk, 1))
            # x east (columns run west), y north; in units of the fine spacing.
            x = -(cc - fi).astype(np.float64)
            y = (rr - fj).astype(np.float64)
            try:
                a, b, c = fit_gaussian(x, y, fine[rr, cc])
            except BeamFitError:
                a = b = c = None  # too few samples, or all on one line: widen
            if a is not None:
                step = cell_rad / int(os)
                return beam_from_quadratic(a / step**2, b / step**2, c / step**2)
        level /= 1.5
    raise BeamFitError("the PSF's main lobe is too small to fit a beam (cell too coarse?)")
