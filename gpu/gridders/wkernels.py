"""W-projection kernels: one 2-D GCF per w-plane (Cornwell, Golap & Bhatnagar 2008).

The w-term ``exp(−2πi·w·(n − 1))`` of DESIGN §1 is a multiplication in the image, so
in the uv plane it is a convolution: gridding each record with
``K_w = FT[taper(l, m)·exp(−2πi·w·(n − 1))]`` instead of the flat GCF puts the w-term
into the image, and dividing by the taper (the grid correction) leaves it there.

- **Taper.** An ES function of the padded image, ``ψ(t) = exp(β·(√(1 − (2t)²) − 1))``
  per axis, ``t`` the pixel offset in cycles per grid cell (|t| ≤ ½ spans the padded
  grid; the image is |t| ≤ N/(2M)). It vanishes (to ``e^{−β}``) at the padded edge, so
  its transform is compact: with ``β = ln(1/ε) + 1`` the w = 0 kernel falls below ε
  of its peak within ``≈ 2β/π`` cells. This is CASA's construction with the ES in
  place of its prolate spheroidal function (``WPConvFunc::findConvFunction``).
- **Kernel.** ``ψ(t_u)·ψ(t_v)·exp(−2πi·w·(n − 1))`` is sampled at ``M_s`` points per
  axis of the padded field, zero-padded ``β_o`` times (:data:`OVERSAMPLE`) and
  FFT'd: the kernel at offsets of ``1/β_o`` cell, periodic over ``M_s`` cells (``M_s``
  chosen from the chirp's largest local frequency, ``w·(M·cell)²/2`` cells, so that
  the kernel fits).
- **Support.** Each plane's kernel is cut to the smallest even support ``S_k`` outside
  which every entry is below ``ε`` (``params.accuracy()``) of the plane's peak, as CASA
  cuts at 1e-3: the support grows with |w|.
- **Planes.** ``P`` planes ``w_k = k·Δw``, ``Δw = max|w|/(P − 1)``, linear in |w|. CASA
  spaces them in √|w| (``w_k ∝ k²``), which crowds planes at small |w|; the phase error
  of the nearest plane is ``2π·|w − w_k|·|n − 1|``, largest at the widest spacing, so
  for the same P linear spacing halves its bound (√ spacing's last gap is
  ``≈ 2·max|w|/(P − 1)``). A record with w < 0 uses the conjugate of its |w| plane's
  kernel (the taper is real and even, so ``K_{−w} = conj K_w``).
- **Automatic P** (``wprojplanes = −1``): tclean's rule, ``P = ⌊W·|sin(cell·N/2)|⌋``
  with ``W = 1.05·max|w|`` (scaled up by ``rms/mean`` when the rms of |w| exceeds the
  mean of its extremes), as ``WPConvFunc::findConvFunction`` computes it.
- **Lookup and corrector.** The tables are read by bilinear interpolation, whose mean
  response is ``sinc²(t/β_o)`` per axis (:mod:`~uvlab.gpu.gridders.correction`); the
  corrector is ``1/(ψ(t)·sinc²(t/β_o))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from uvlab.gpu.gridders.correction import pixel_offsets
from uvlab.gpu.gridders.params import GridParams, good_size
from uvlab.gpu.image_spec import ImageSpec

#: The fewest samples per axis of a kernel's image-domain screen.
MIN_SCREEN = 32
#: Kernel samples per grid cell, read by bilinear interpolation (CASA: 4, nearest). On a
#: VLA-C 256² field (docs/wide-field.md) 8 and 16 gave the same error (4.6e-4 and 4.3e-4
#: of the peak at 64 planes) where nearest lookup gave 4.7e-3 and 2.8e-3.
OVERSAMPLE = 8


def auto_planes(w, spec: ImageSpec) -> int:
    """tclean's number of w-planes for ``wprojplanes = −1`` (at least 1).

    ``⌊W·|sin(cell·N/2)|⌋``, ``W = 1.05·max|w|``, or ``rms/mean·1.05·max|w|`` when the
    rms of |w| is at least the mean of its minimum and maximum (CASA
    ``WPConvFunc::findConvFunction``; w in wavelengths).
    """
    a = np.abs(np.asarray(w, dtype=np.float64))
    if a.size == 0 or not a.max() > 0:
        return 1
    lo, hi, rms = float(a.min()), float(a.max()), float(np.sqrt(np.mean(a * a)))
    mean = 0.5 * (lo + hi)
    w_max = 1.05 * hi if rms < mean else rms / mean * 1.05 * hi
    return max(1, int(w_max * abs(math.sin(spec.cell_rad * spec.npix / 2.0))))


def taper(t, beta: float) -> np.ndarray:
    """ES taper ``exp(β·(√(1 − (2t)²) − 1))`` of the padded image (0 for |t| ≥ ½)."""
    y = 1.0 - (2.0 * np.asarray(t, dtype=np.float64)) ** 2
    return np.where(y > 0, np.exp(beta * (np.sqrt(np.clip(y, 0.0, None)) - 1.0)), 0.0)


@dataclass(frozen=True)
class WKernel:
    """One plane's kernel table.

    Attributes
    ----------
    w : float
        The plane's w, wavelengths (≥ 0).
    support : int
        S_k, even: taps at cells ``⌈ξ − S/2⌉ … ⌈ξ − S/2⌉ + S − 1``.
    table : (2H + 1, 2H + 1) complex128
        ``K(dv, du)`` at offsets ``(i − H)/β_o`` cells, ``H = S·β_o/2``; ``[v, u]``.
    """

    w: float
    support: int
    table: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class WPlanes:
    """The w-planes of one w-projected image and how their kernels are made.

    Attributes
    ----------
    npix : int
    cell_rad : float
    n_grid : int
        M, the padded grid (conv's ``good_size(σ·N)``) on both axes.
    nplanes : int
        P.
    dw : float
        Δw, wavelengths (0 with one plane).
    oversample : int
        β_o, kernel samples per grid cell.
    eps : float
        Truncation level of the kernels (relative to each plane's peak).
    """

    npix: int
    cell_rad: float
    n_grid: int
    nplanes: int
    dw: float
    oversample: int
    eps: float
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def beta(self) -> float:
        """The taper's ES parameter, ``ln(1/ε) + 1``."""
        return math.log(1.0 / self.eps) + 1.0

    def plane_of(self, w) -> np.ndarray:
        """(nvis,) int: the nearest plane of each |w|."""
        if self.dw == 0.0:
            return np.zeros(np.shape(w), dtype=np.int64)
        k = np.rint(np.abs(np.asarray(w, dtype=np.float64)) / self.dw).astype(np.int64)
        return np.minimum(k, self.nplanes - 1)

    def corrector(self) -> np.ndarray:
        """(N,) float64: ``1/(ψ(t)·sinc²(t/β_o))`` at the pixel offsets, ``t = n/M``."""
        t = pixel_offsets(self.npix) / self.n_grid
        return 1.0 / (taper(t, self.beta) * np.sinc(t / self.oversample) ** 2)

    def kernel(self, k: int) -> WKernel:
        """The kernel of plane ``k`` (made once, then kept)."""
        if k not in self._cache:
            self._cache[k] = self._make(k)
        return self._cache[k]

    def _make(self, k: int) -> WKernel:
        w = k * self.dw
        field_rad = self.n_grid * self.cell_rad
        half_est = self.beta / math.pi + w * field_rad * field_rad / 2.0
        ms = min(max(MIN_SCREEN, good_size(4.0 * half_est + 4.0)), self.n_grid)
        t = (np.arange(ms) - ms // 2) / ms
        psi = taper(t, self.beta)
        l2 = (t * field_rad) ** 2
        nm1 = np.sqrt(np.clip(1.0 - l2[:, None] - l2[None, :], 0.0, None)) - 1.0
        screen = np.outer(psi, psi) * np.exp(-2j * np.pi * w * nm1)
        bo = self.oversample
        big = np.zeros((bo * ms, bo * ms), dtype=np.complex128)
        idx = (np.arange(ms) - ms // 2) % (bo * ms)
        big[np.ix_(idx, idx)] = screen
        kern = np.fft.fftshift(np.fft.fft2(big)) / (ms * ms)  # offset j/β_o at [j + β_o·ms/2]
        mag = np.abs(kern)
        above = mag > self.eps * mag.max()
        centre = bo * ms // 2
        reach = np.abs(np.nonzero(above.any(axis=0))[0] - centre).max()
        reach = max(reach, np.abs(np.nonzero(above.any(axis=1))[0] - centre).max())
        support = 2 * math.ceil((reach + 1) / bo)
        support = min(support, ms - 2)  # the screen's period bounds it
        half = support * bo // 2
        sl = slice(centre - half, centre + half + 1)
        return WKernel(w, support, np.ascontiguousarray(kern[sl, sl]))


def w_planes(spec: ImageSpec, params: GridParams, n_grid: int, w) -> WPlanes:
    """The :class:`WPlanes` of ``params.wprojplanes`` for samples of these w (wavelengths)."""
    w = np.asarray(w, dtype=np.float64)
    nplanes = int(params.wprojplanes)
    if nplanes < 0:
        nplanes = auto_planes(w, spec)
    w_max = float(np.abs(w).max()) if w.size else 0.0
    dw = w_max / (nplanes - 1) if nplanes > 1 and w_max > 0 else 0.0
    return _planes(spec.npix, spec.cell_rad, n_grid, nplanes if dw else 1, dw,
                   float(params.accuracy()))  # fmt: skip


@lru_cache(maxsize=2)
def _planes(npix: int, cell_rad: float, n_grid: int, nplanes: int, dw: float, eps: float):
    """One :class:`WPlanes` per geometry and spacing, kept: a Cotton–Schwab major cycle's
    gridder and degridder, and the next cycle's, reuse the kernels already made."""
    return WPlanes(npix, cell_rad, n_grid, nplanes, dw, OVERSAMPLE, eps)


def taps(xu, xv, kern: WKernel, oversample: int):
    """(k0u, k0v, (n, S, S) complex ``K(k − ξ)`` at ``[v tap, u tap]``) of records.

    ``xu``, ``xv`` in grid cells; taps at ``k0 + j``, offsets ``k0 + j − ξ ∈ [−S/2, S/2)``;
    the table read by bilinear interpolation.
    """
    s = kern.support
    half = s * oversample // 2
    j = np.arange(s)
    k0u = np.ceil(xu - s / 2.0).astype(np.int64)
    k0v = np.ceil(xv - s / 2.0).astype(np.int64)
    su = ((k0u[:, None] + j) - xu[:, None]) * oversample + half
    sv = ((k0v[:, None] + j) - xv[:, None]) * oversample + half
    fu = np.clip(np.floor(su).astype(np.int64), 0, 2 * half - 1)
    fv = np.clip(np.floor(sv).astype(np.int64), 0, 2 * half - 1)
    au, av = su - fu, sv - fv
    width = 2 * half + 1
    base = (fv * width)[:, :, None] + fu[:, None, :]  # the corner (fv, fu) of each tap
    flat = kern.table.reshape(-1)
    wu0, wv0 = (1.0 - au)[:, None, :], (1.0 - av)[:, :, None]
    wu1, wv1 = au[:, None, :], av[:, :, None]
    vals = wv0 * (wu0 * flat[base] + wu1 * flat[base + 1])
    base += width
    vals += wv1 * (wu0 * flat[base] + wu1 * flat[base + 1])
    return k0u, k0v, vals
