"""Visibility weighting: natural, uniform and Briggs (robust), with a Gaussian taper.

Briggs (1995) robust weighting as implemented by CASA and WSClean:

- gridded density ``W_k = Σ w`` over the uv cell k (both Hermitian halves);
- ``f² = (5·10^(−R))² / (Σ_k W_k² / Σ w)``;
- ``w_i ← w_i / (1 + f²·W_k(i))``.

R = −2 is close to uniform, R = +2 close to natural. Uniform is ``w_i / W_k(i)``.
The uv cell is the image's Fourier cell, ``1/(N·cell)`` wavelengths, or that of an image of
``Weighting.density_npix`` pixels: a CLEAN PSF made at 2N must weight the visibilities as
the N² dirty image did (with 2N's finer cells uniform weights differ and the PSF's
sidelobes with them: by 3 % of its peak for MeerKAT at 256², 0.9 % with Briggs R = 0).
The cells are CASA's, the N² image's (``density_cells="casa"``), or WSClean's, those of its
image padded by ``-padding`` (``"wsclean"``, :func:`wsclean_weight_npix`), either made
``super_weight`` times coarser as WSClean's ``-super-weight`` makes them
(:func:`super_weight_npix`). WSClean's ``-weighting-rank-filter``, which clips each cell's
weight to a multiple of its neighbourhood's mean, is :mod:`uvlab.gpu.imaging.rank_filter`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.rank_filter import cell_factors, rank_filtered

SCHEMES = ("natural", "uniform", "briggs")
#: Whose uv cells count the density: CASA's (the image's) or WSClean's (its padded image's).
DENSITY_CELLS = ("casa", "wsclean")
#: WSClean's ``-padding`` default.
WSCLEAN_PADDING = 1.2
#: WSClean's ``-weighting-rank-filter`` and ``-weighting-rank-filter-size`` defaults (uvlab's
#: level is 0, off, as CASA has no such filter).
WSCLEAN_RANK_FILTER, WSCLEAN_RANK_FILTER_SIZE = 3.0, 16
#: The largest ``rank_filter_size`` taken (a window wider than any density grid).
MAX_RANK_FILTER_SIZE = 1 << 16


@dataclass(frozen=True)
class Weighting:
    """How to weight visibilities before imaging.

    Attributes
    ----------
    scheme : {"natural", "uniform", "briggs"}
    robust : float
        Briggs robust parameter R in [−2, 2] (only for ``"briggs"``).
    taper_arcsec : float
        FWHM of a Gaussian taper, expressed as the image-plane resolution it
        imposes (as WSClean's ``-taper-gaussian``); 0 disables it.
    density_npix : int
        Side of the image whose uv cells count the density (uniform, Briggs); 0 (the
        default): the image's own. Same cell size.
    density_scale : float
        The density is counted on uv scaled by this (1, the default: the data's own
        frequencies, as WSClean and CASA's imager tool count). tclean counts on uv scaled
        to LSRK frequencies: ν_LSRK/ν_TOPO (:func:`uvlab.app.observing.lsrk.lsrk_ratio`),
        1 ± ~1e-4, which moves samples across cell boundaries (2.8e-3 of the PSF peak
        for uniform weights on a VLA-C track).
    density_cells : {"casa", "wsclean"}
        ``"casa"`` (the default): the density is counted on the uv cells of the image
        (``density_npix``) itself, as CASA counts it. ``"wsclean"``: on those of that
        image padded by ``density_padding``, as WSClean counts it
        (:func:`wsclean_weight_npix`; the cells are finer, the weights differ).
    density_padding : float
        WSClean's ``-padding`` (default 1.2), in [1, 4]; read with ``"wsclean"`` only.
    super_weight : float
        WSClean's ``-super-weight`` F ≥ 1 (default 1): the density grid of side M (the
        ``"casa"`` or ``"wsclean"`` one) becomes one of side ``round(M/F)``, rounded up to even
        (:func:`super_weight_npix`), with the same image cell: cells F times coarser.
    rank_filter : float
        WSClean's ``-weighting-rank-filter`` level L: 0 (the default: off, as in CASA) or ≥ 1
        (WSClean's default is 3; it ignores levels below 1). Each cell's uniform or Briggs
        weight is clipped to L times the mean of the non-zero weights of the cells of its
        window (:func:`uvlab.gpu.imaging.rank_filter.rank_filtered`).
    rank_filter_size : int
        WSClean's ``-weighting-rank-filter-size`` S ≥ 2 (default 16, WSClean's): the window
        holds the cells ``x − S//2 … x + S//2 − 1`` on each axis (an odd S acts as S − 1).
    """

    scheme: str = "natural"
    robust: float = 0.0
    taper_arcsec: float = 0.0
    density_npix: int = 0
    density_scale: float = 1.0
    density_cells: str = "casa"
    density_padding: float = WSCLEAN_PADDING
    super_weight: float = 1.0
    rank_filter: float = 0.0
    rank_filter_size: int = WSCLEAN_RANK_FILTER_SIZE

    def __post_init__(self):
        if self.scheme not in SCHEMES:
            raise ValueError(f"weighting {self.scheme!r} is not one of {', '.join(SCHEMES)}")
        if not -2.0 <= self.robust <= 2.0:
            raise ValueError(f"robust parameter must lie in [-2, 2], got {self.robust}")
        if not (self.taper_arcsec >= 0 and np.isfinite(self.taper_arcsec)):
            raise ValueError(f"taper must be ≥ 0 arcsec, got {self.taper_arcsec}")
        if self.density_npix and (self.density_npix < 2 or self.density_npix % 2):
            raise ValueError(f"density_npix must be 0 or even ≥ 2, got {self.density_npix}")
        if not (np.isfinite(self.density_scale) and 0.9 < self.density_scale < 1.1):
            raise ValueError(f"density_scale must lie in (0.9, 1.1), got {self.density_scale}")
        if self.density_cells not in DENSITY_CELLS:
            raise ValueError(
                f"density cells {self.density_cells!r} are not one of {', '.join(DENSITY_CELLS)}"
            )
        if not 1.0 <= self.density_padding <= 4.0:  # NaN fails too
            raise ValueError(f"density padding must lie in [1, 4], got {self.density_padding}")
        if not (self.super_weight >= 1.0 and math.isfinite(self.super_weight)):
            raise ValueError(f"super weight must be a finite number ≥ 1, got {self.super_weight}")
        if not (
            self.rank_filter == 0 or (self.rank_filter >= 1 and math.isfinite(self.rank_filter))
        ):
            raise ValueError(
                f"rank filter level must be 0 (off) or a finite number ≥ 1, got {self.rank_filter}"
            )
        size = self.rank_filter_size
        if (
            isinstance(size, bool)
            or not isinstance(size, (int, np.integer))
            or not 2 <= size <= MAX_RANK_FILTER_SIZE
        ):
            raise ValueError(
                f"rank filter size must be an integer in [2, {MAX_RANK_FILTER_SIZE}], got {size!r}"
            )

    @property
    def rank_filtered(self) -> bool:
        """Whether the rank filter applies: a level set, and a density (uniform, Briggs)."""
        return self.rank_filter > 0 and self.scheme != "natural"

    def density_spec(self, spec: ImageSpec) -> ImageSpec:
        """The geometry whose uv cells the density is counted on: ``spec`` or its
        ``density_npix``-pixel sibling (same cell), or with ``density_cells="wsclean"`` the
        sibling of side :func:`wsclean_weight_npix` of that, of side :func:`super_weight_npix`
        of that with ``super_weight`` > 1; with ``density_scale`` s its cell is s times larger,
        so that u falls in the cell that s·u falls in on ``spec``'s grid."""
        npix = self.density_npix or spec.npix
        if self.density_cells == "wsclean":
            npix = wsclean_weight_npix(npix, self.density_padding)
        if self.super_weight != 1.0:
            npix = super_weight_npix(npix, self.super_weight)
        if npix == spec.npix and self.density_scale == 1.0:
            return spec
        return ImageSpec(npix, spec.cell_rad * self.density_scale)


def wsclean_weight_npix(npix: int, padding: float = WSCLEAN_PADDING) -> int:
    """Side of WSClean's weight grid for an ``npix``² image made with ``-padding`` ``padding``.

    WSClean counts the density on a grid the size of its padded image (``createWeightCache``
    passes ``paddedImageWidth``; ``ImageWeights`` takes it whole at ``-super-weight`` 1),
    whose side is ``ceil(N·padding)`` rounded up to a multiple of 4
    (``Settings::RecalculatePaddedDimensions``): 156 for 128 at 1.2, 308 for 256. The
    product is the same double as WSClean's, so its rounding too (200 · 1.1 is
    220.00000000000003: 224, not 220). Its cells ``floor(u·M·Δ + M/2)``, ``floor(v·M·Δ)``
    on the v ≥ 0 half (a sample with v < 0 mirrored first) are the cells ``floor(u/du)``,
    ``floor(v/du)`` with ``du = 1/(M·Δ)`` that :func:`cell_density` counts both halves on.
    """
    side = math.ceil(npix * padding)
    return side + (-side) % 4


def super_weight_npix(npix: int, super_weight: float) -> int:
    """Side of WSClean's weight grid of side ``npix`` made ``super_weight`` times coarser.

    WSClean's ``ImageWeights`` takes ``round(M/F)`` (half away from zero), one more when
    that is odd, and keeps the pixel scale: its cells ``floor(u·W·Δ + W/2)`` are
    ``1/(W·Δ)`` wide, about F times wider. At least 2 here (WSClean would make an empty
    grid of ``round(M/F) = 0``).
    """
    side = math.floor(npix / super_weight + 0.5)
    return max(2, side + side % 2)


def imaging_weights(
    u_lambda,
    v_lambda,
    weight,
    spec: ImageSpec,
    weighting: Weighting,
    *,
    density=None,
    mean_density: float | None = None,
    factor=None,
):
    """Imaging weights for visibilities at (u, v).

    Parameters
    ----------
    u_lambda, v_lambda : (nvis,) float
        Baseline coordinates in wavelengths (numpy or cupy).
    weight : (nvis,) float
        Data weights; zero for flagged samples (they stay zero).
    spec : ImageSpec
        Defines the uv cell size ``1/(N·cell)`` for density weighting.
    weighting : Weighting
    density : (nvis,) float, optional
        :func:`cell_density` of these samples on ``weighting.density_spec(spec)``, when known
        (it does not depend on the scheme, robust or taper). For a part of the data, the
        density of all of it (:func:`lookup_density` of the summed :func:`density_counts`).
    mean_density : float, optional
        Briggs's ``Σ w·W / Σ w`` over all the data, when these samples are only a part
        of it (:func:`mean_density`); by default these samples' own.
    factor : (nvis,) float, optional
        Each sample's cell weight per unit data weight (uniform ``1/W``, Briggs
        ``1/(1 + f²·W)``) after the rank filter (``weighting.rank_filter``), when known: for
        a part of the data, :func:`lookup_density` of the whole's filtered grid
        (:func:`uvlab.gpu.imaging.parts.density_totals`). The rank filter needs the whole
        grid, so with it on ``density`` alone is refused; with neither, these samples' own
        grid is counted and filtered (:func:`filtered_factors`).

    Returns
    -------
    (nvis,) float64 weights, in the namespace of the inputs.
    """
    xp = get_xp(u_lambda)
    w = xp.asarray(weight, dtype=xp.float64)
    if weighting.rank_filtered and factor is None:
        if density is not None:
            raise ValueError("the rank filter needs the density grid, not a density per sample")
        factor = filtered_factors(u_lambda, v_lambda, w, weighting.density_spec(spec), weighting)
    if factor is not None and weighting.scheme != "natural":
        w = w * xp.asarray(factor)
    elif weighting.scheme != "natural":
        if density is None:
            density = cell_density(u_lambda, v_lambda, w, weighting.density_spec(spec))
        if weighting.scheme == "uniform":
            w = xp.where(density > 0, w / xp.where(density > 0, density, 1.0), 0.0)
        else:
            sumw = float(w.sum())
            if mean_density is None and sumw > 0:
                mean_density = float((density * w).sum()) / sumw
            if mean_density:
                f2 = (5.0 * 10.0 ** (-weighting.robust)) ** 2 / mean_density
                w = w / (1.0 + f2 * density)
    if weighting.taper_arcsec > 0:
        theta = weighting.taper_arcsec * ARCSEC
        rho2 = u_lambda * u_lambda + v_lambda * v_lambda
        w = w * xp.exp(-(np.pi**2) * theta**2 * rho2 / (4.0 * np.log(2.0)))
    return w


def filtered_factors(u_lambda, v_lambda, weight, spec: ImageSpec, weighting: Weighting):
    """(nvis,) float64: each sample's cell weight per unit data weight after WSClean's rank
    filter (:func:`uvlab.gpu.imaging.rank_filter.rank_filtered`), these samples' density
    counted on ``spec`` (``weighting.density_spec``); in the namespace of the inputs."""
    idx = _cells(u_lambda, v_lambda, spec)
    counts = _counts(idx, weight, spec)
    return grid_factors(mirrored(counts), mean_density(counts), weighting)[idx]


def grid_factors(grid, mean: float, weighting: Weighting):
    """The density ``grid`` (:func:`mirrored` counts) → each cell's weight per unit data
    weight, rank-filtered where ``weighting`` asks for it (``rank_filter`` ≥ 1)."""
    factors = cell_factors(grid, weighting.scheme, weighting.robust, mean)  # a new grid
    if weighting.rank_filter:
        factors = rank_filtered(factors, weighting.rank_filter, weighting.rank_filter_size)
    return factors


def cell_density(u_lambda, v_lambda, weight, spec: ImageSpec):
    """Σw in each uv cell of the image's Fourier grid, looked up per sample.

    The cells are CASA's (VisImagingWeight: ``Int(u·N·cell + N/2)``): cell k
    holds ``k·du ≤ u < (k + 1)·du`` with ``du = 1/(N·cell)``, not a cell
    centred on ``k·du``. Both Hermitian halves count: a sample at (u, v) also
    adds to the cell of (−u, −v), which is cell (−k−1) of cell k. With these
    cells uniform and Briggs weighting give the CASA imager tool's PSF to ~2e-4 of
    its peak (they differed by 2.4 % and 1.8 % with cells centred on the grid
    points), and tclean's to ≤ 3.9e-4 on ``density_spec``'s LSRK-scaled cells.
    Returns (nvis,) float64 density W_k(i), in the namespace of the inputs;
    ``Σ_i w_i·W_k(i) = Σ_k W_k²`` up to the mirror terms, as CASA computes it.
    """
    idx = _cells(u_lambda, v_lambda, spec)
    return mirrored(_counts(idx, weight, spec))[idx]


def _cells(u_lambda, v_lambda, spec: ImageSpec):
    """(nvis,) int64: each sample's cell on the density grid of side 2N, flat.

    A grid of side 2n holds cells −n … n−1 at positions 0 … 2n−1; the rest is clipped
    into the edge cells (they carry density but are outside the image's band).
    """
    xp = get_xp(u_lambda)
    n = spec.npix
    du = 1.0 / (n * spec.cell_rad)
    iu = xp.clip(xp.floor(u_lambda / du), -n, n - 1) + n
    iv = xp.clip(xp.floor(v_lambda / du), -n, n - 1) + n
    return (iv * (2 * n) + iu).astype(xp.int64)


def _counts(idx, weight, spec: ImageSpec):
    xp = get_xp(idx)
    side = 2 * spec.npix
    w = xp.asarray(weight, dtype=xp.float64)
    # float64 even with no samples (NumPy's bincount of nothing is int64)
    return xp.bincount(idx, weights=w, minlength=side * side).astype(xp.float64, copy=False)


def mirrored(counts):
    """The density grid from :func:`density_counts`: both Hermitian halves counted.

    The mirror (−u, −v) of cell (k_u, k_v) is (−k_u−1, −k_v−1): position 2n−1−p on each
    axis, i.e. the flat grid reversed.
    """
    return counts + counts[::-1]


def density_counts(u_lambda, v_lambda, weight, spec: ImageSpec, into=None):
    """((2N)²,) float64: Σw of these samples in each uv cell, one half only (no mirror).

    For data imaged in parts (row chunks, on several workers): the parts' counts sum to
    the whole's, and :func:`mirrored` of that sum, looked up per sample
    (:func:`lookup_density`), is :func:`cell_density` of all the data. ``spec`` is the
    density geometry (``Weighting.density_spec``). ``into`` (an earlier part's counts, in
    the samples' memory: NumPy or CuPy): these samples are added into it in place and it
    is returned — no new grid per part (at N = 4096 one is 537 MB).
    """
    if into is None:
        return _counts(_cells(u_lambda, v_lambda, spec), weight, spec)
    if into.shape != (4 * spec.npix * spec.npix,):
        raise ValueError("the counts to add to are of another density grid")
    xp = get_xp(into)
    xp.add.at(into, _cells(u_lambda, v_lambda, spec), xp.asarray(weight, dtype=xp.float64))
    return into


def lookup_density(grid, u_lambda, v_lambda, spec: ImageSpec, first_row: int = 0):
    """(nvis,) the density ``grid`` (:func:`mirrored` counts) at these samples' cells.

    ``first_row``: ``grid`` holds only rows ``first_row`` … of the (2N)² grid (flat); a
    sample outside them looks up 0.
    """
    xp = get_xp(u_lambda)
    grid = xp.asarray(grid)
    idx = _cells(u_lambda, v_lambda, spec)
    if first_row == 0 and grid.size == 4 * spec.npix * spec.npix:
        return grid[idx]
    idx = idx - first_row * 2 * spec.npix
    inside = (idx >= 0) & (idx < grid.size)
    if grid.size == 0:
        return xp.zeros(idx.shape)
    return xp.where(inside, grid[xp.clip(idx, 0, grid.size - 1)], 0.0)


def mean_density(counts) -> float:
    """Briggs's ``Σ_i w_i·W(i) / Σ_i w_i`` of all the data, from its summed counts.

    ``Σ_i w_i·W(i) = Σ_k counts_k·W_k`` (each sample adds its weight to its own cell's
    count), so the whole sum follows from the grid alone.
    """
    total = float(counts.sum())
    return float((counts * mirrored(counts)).sum()) / total if total > 0 else 0.0
