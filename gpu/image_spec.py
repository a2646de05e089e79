"""Image geometry shared by every algorithm.

uvlab's image arrays are indexed ``img[j, i]`` (row-major, as FITS data):

- ``l = −(i − N/2)·cell`` (column index increases toward decreasing RA, so
  FITS axis 1 is ``RA---SIN`` with ``CDELT1 = −cell``);
- ``m = +(j − N/2)·cell`` (``DEC--SIN``, ``CDELT2 = +cell``).

``ducc0.wgridder.experimental.vis2dirty(..., flip_v=True)`` returns
``D[a, b]`` with a → −l and b → +m, so ``img = D.T`` (DESIGN §1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.constants import C_LIGHT

ARCSEC = np.pi / (180.0 * 3600.0)


@dataclass(frozen=True)
class ImageSpec:
    """Size and sampling of a dirty image.

    Attributes
    ----------
    npix : int
        Image side N (pixels), even.
    cell_rad : float
        Pixel size, radians.

    The padding σ of FFT-based gridders is a gridder parameter
    (:attr:`uvlab.gpu.gridders.params.GridParams.sigma`), not a property of the image.
    """

    npix: int
    cell_rad: float

    def __post_init__(self):
        if int(self.npix) != self.npix or self.npix < 2 or self.npix % 2:
            raise ValueError(f"npix must be an even integer ≥ 2, got {self.npix!r}")
        if not (self.cell_rad > 0 and np.isfinite(self.cell_rad)):
            raise ValueError(f"cell size must be positive, got {self.cell_rad!r} rad")

    @property
    def cell_arcsec(self) -> float:
        return self.cell_rad / ARCSEC

    def l_axis(self) -> np.ndarray:
        """l of each column i, radians-as-direction-cosine (N,)."""
        return -(np.arange(self.npix) - self.npix // 2) * self.cell_rad

    def m_axis(self) -> np.ndarray:
        """m of each row j (N,)."""
        return (np.arange(self.npix) - self.npix // 2) * self.cell_rad

    def every(self, k: int) -> ImageSpec:
        """The grid of every ``k``-th pixel (0, k, 2k, …; k divides N/2): N/k pixels of k·cell.

        Its pixels sit at this grid's (l, m): a subsampled DFT reference's geometry.
        """
        k = int(k)
        if k < 1 or (self.npix // 2) % k:
            raise ValueError(f"subsampling step {k} must divide N/2 = {self.npix // 2}")
        return self if k == 1 else ImageSpec(self.npix // k, self.cell_rad * k)

    def pixel_of(self, l: float, m: float) -> tuple[float, float]:
        """Fractional (j, i) pixel of a direction (l, m)."""
        return m / self.cell_rad + self.npix // 2, -l / self.cell_rad + self.npix // 2


#: The direction cosines of the whole sky span this much: |l|, |m| ≤ 1 (the horizon).
SKY_SPAN = 2.0


def _round_down_arcsec(cell_rad: float, figures: int = 2) -> float:
    """``cell_rad`` rounded down to ``figures`` significant figures in arcsec (radians)."""
    cell_arcsec = cell_rad / ARCSEC
    digits = -int(np.floor(np.log10(cell_arcsec))) + figures - 1
    return float(np.floor(cell_arcsec * 10**digits) / 10**digits) * ARCSEC


def default_cell_rad(uv_max_lambda: float, oversample: float = 3.0) -> float:
    """Cell ≈ 1/(3·u_max), rounded down to 2 significant figures in arcsec."""
    if uv_max_lambda <= 0:
        raise ValueError("no baselines with nonzero length: cannot choose a cell size")
    return _round_down_arcsec(1.0 / (oversample * uv_max_lambda))


def horizon_cell_rad(npix: int) -> float:
    """The coarsest cell that keeps an ``npix``-pixel image inside the horizon.

    ``npix·cell ≤ 2`` (:data:`SKY_SPAN`): the image then spans at most the whole
    sky, its outermost pixel centres at |l|, |m| ≤ 1. Rounded down to 3
    significant figures in arcsec, so that it spans at least 99 % of the sky.
    """
    return _round_down_arcsec(SKY_SPAN / int(npix), figures=3)


def past_horizon(npix: int, cell_rad: float) -> bool:
    """Whether ``npix`` pixels of ``cell_rad`` reach past the horizon (``npix·cell > 2``)."""
    return int(npix) * float(cell_rad) > SKY_SPAN * (1.0 + 1e-12)


def cell_for_uvw(
    uvw_m, freq_hz, cell_arcsec: float | None = None, npix: int | None = None
) -> float:
    """The pixel size in radians: ``cell_arcsec`` when given, else 1/(3·u_max) from the data.

    Parameters
    ----------
    uvw_m : (..., 3) float
        Baselines, metres.
    freq_hz : (chan,) float
        The highest frequency sets u_max in wavelengths.
    cell_arcsec : float, optional
        The cell asked for; used as it is, even past the horizon.
    npix : int, optional
        The image side: a cell chosen from the data is then made finer where
        ``npix`` pixels of it would reach past the horizon
        (:func:`horizon_cell_rad`; :func:`horizon_note` says so).
    """
    if cell_arcsec:
        return float(cell_arcsec) * ARCSEC
    uvw_m = np.asarray(uvw_m, dtype=np.float64)
    u, v = uvw_m[..., 0], uvw_m[..., 1]
    uv2 = u * u + v * v  # the max of u² + v²: np.hypot of every row takes 15× as long
    uv_max = np.sqrt(uv2.max()) * np.max(freq_hz) / C_LIGHT if uv2.size else 0.0
    cell = default_cell_rad(uv_max)  # raises when there is no baseline to size it from
    if npix is not None and past_horizon(npix, cell):
        cell = horizon_cell_rad(npix)
    return cell


def _angle(rad: float) -> str:
    arcsec = rad / ARCSEC
    if arcsec < 60:
        return f'{arcsec:.3g}"'
    if arcsec < 3600:
        return f"{arcsec / 60:.3g}'"
    return f"{np.degrees(rad):.3g}°"


def horizon_note(spec: ImageSpec, requested_cell_rad: float | None) -> str | None:
    """One line when the image meets the horizon; None when it lies well inside it.

    Parameters
    ----------
    spec : ImageSpec
        The image as it will be made.
    requested_cell_rad : float or None
        The cell the user asked for, or None when it was chosen from the data
        (:func:`cell_for_uvw` with ``npix``).

    Returns
    -------
    str or None
        With a requested cell: when ``npix·cell > 2``, that the image reaches
        past the horizon and its outer pixels are no sky (the image is still
        made, as WSClean makes one). With an automatic cell: when it was limited
        to :func:`horizon_cell_rad`, that the image now spans the whole sky.
    """
    n, cell = spec.npix, spec.cell_rad
    if requested_cell_rad:
        if not past_horizon(n, requested_cell_rad):
            return None
        span = n * float(requested_cell_rad)
        return (
            f"the {n}² image of {_angle(requested_cell_rad)} pixels reaches past the horizon "
            f"({span:.3g} in direction cosines; the whole sky spans {SKY_SPAN:g}): pixels beyond "
            f"|l|, |m| = 1 are no sky; a cell of at most {_angle(horizon_cell_rad(n))} "
            "keeps it inside"
        )
    if cell < horizon_cell_rad(n) * (1.0 - 1e-9):
        return None
    return (
        f"automatic cell set to {_angle(cell)}, the coarsest that keeps the {n}² image inside "
        "the horizon: it shows the whole sky (|l|, |m| ≤ 1), as the baselines are too short "
        "for a finer automatic cell, 1/(3·u_max)"
    )
