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

    def pixel_of(self, l: float, m: float) -> tuple[float, float]:
        """Fractional (j, i) pixel of a direction (l, m)."""
        return m / self.cell_rad + self.npix // 2, -l / self.cell_rad + self.npix // 2


def default_cell_rad(uv_max_lambda: float, oversample: float = 3.0) -> float:
    """Cell ≈ 1/(3·u_max), rounded down to 2 significant figures in arcsec."""
    if uv_max_lambda <= 0:
        raise ValueError("no baselines with nonzero length: cannot choose a cell size")
    cell_arcsec = 1.0 / (oversample * uv_max_lambda) / ARCSEC
    digits = -int(np.floor(np.log10(cell_arcsec))) + 1
    return float(np.floor(cell_arcsec * 10**digits) / 10**digits) * ARCSEC


def cell_for_uvw(uvw_m, freq_hz, cell_arcsec: float | None = None) -> float:
    """The pixel size in radians: ``cell_arcsec`` when given, else 1/(3·u_max) from the data.

    Parameters
    ----------
    uvw_m : (..., 3) float
        Baselines, metres.
    freq_hz : (chan,) float
        The highest frequency sets u_max in wavelengths.
    """
    if cell_arcsec:
        return float(cell_arcsec) * ARCSEC
    uvw_m = np.asarray(uvw_m)
    uv = np.hypot(uvw_m[..., 0], uvw_m[..., 1])
    uv_max = uv.max() * np.max(freq_hz) / C_LIGHT if uv.size else 0.0
    return default_cell_rad(uv_max)  # raises when there is no baseline to size it from
