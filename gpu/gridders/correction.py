"""Grid correctors computed numerically from the taps actually used.

Muscat's printed correctors (eqs 2.49–2.51, 2.73) disagree with one another,
so uvlab never uses them: each stage of a 1-D gridding chain reports its *mean
response* ρ(t), the image-domain factor it applies to a record averaged over
the record's sub-cell position, and the corrector is ``1 / Π ρ`` (Greisen's
choice, Muscat eq. 2.49 in spirit). ``t`` is the image pixel offset divided
by the size of the grid the stage works on (cycles per grid cell).

- nearest-cell on a grid: the record moves by a uniform offset in
  [−½, ½) cells, so ρ(t) = sinc(t) (Muscat eq. 2.31);
- a table oversampled β times read by nearest lookup (Muscat eq. 2.26–2.27):
  the DFT of the table entries used, divided by β, times sinc(t/β) — the
  zero-padded FFT of the table evaluated exactly at the pixel offsets;
- the same table read by linear interpolation: the Fourier transform of its
  piecewise-linear interpolant, i.e. of the table convolved with a triangle
  one table step wide (``sinc²(t/β)`` in place of ``sinc(t/β)``), less the
  triangle's two tails past ±D/β, which the taps never reach;
- an exactly evaluated kernel: its continuous Fourier transform by
  Gauss–Legendre quadrature;
- a pruner (Muscat alg. 2.7): the DFT of its taps on the fine grid divided by α.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=16)
def _gauss_legendre(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(nodes)


def nn_response(t) -> np.ndarray:
    """Mean response of nearest-cell gridding: ``sinc(t)`` (numpy's sin(πt)/(πt))."""
    return np.sinc(np.asarray(t, dtype=np.float64))


def taps_dft(taps, offsets, period: float, t) -> np.ndarray:
    """``Σ_d taps[d]·cos(2π·(d/period)·t)``: the real part of a taps' DFT.

    Parameters
    ----------
    taps : (n,) float
        Kernel samples.
    offsets : (n,) float
        Their positions in fine cells.
    period : float
        Fine cells per grid cell (β for a table, α for a pruner).
    t : (m,) float
        Cycles per grid cell.
    """
    t = np.asarray(t, dtype=np.float64)
    arg = 2.0 * np.pi * np.outer(t, np.asarray(offsets, dtype=np.float64) / period)
    return np.cos(arg) @ np.asarray(taps, dtype=np.float64)


def table_response(table, oversample: int, used_offsets, t) -> np.ndarray:
    """Mean response of a table of ``2D+1`` entries read by nearest lookup.

    Parameters
    ----------
    table : (2D+1,) float
        ``C(d/β)`` for ``d = −D … D``.
    oversample : int
        β.
    used_offsets : (k,) int
        The offsets d the tap rule can read (from −D).
    t : (m,) float
        Cycles per grid cell.
    """
    half = (len(table) - 1) // 2
    d = np.asarray(used_offsets)
    dft = taps_dft(np.asarray(table)[d + half], d, oversample, t) / oversample
    return dft * np.sinc(np.asarray(t, dtype=np.float64) / oversample)


def linear_table_response(table, oversample: int, t) -> np.ndarray:
    """Mean response of a table of ``2D+1`` entries read by linear interpolation.

    The kernel used is ``Σ_d C[d]·Λ(z·β − d)`` (Λ the unit triangle) on
    ``|z| ≤ D/β`` and zero outside
    (:class:`~uvlab.gpu.gridders.tables.TableTaps`). Its Fourier transform is
    ``sinc²(τ)·Σ_d C[d]·cos(2π·d·τ)/β`` with ``τ = t/β``, less the tails
    ``(C[D] + C[−D])/β·∫₀¹ (1 − y)·cos(2π·τ·(D + y)) dy`` past ±D/β
    (Gauss–Legendre, exact to rounding for |τ| ≤ 1).

    Parameters
    ----------
    table : (2D+1,) float
        ``C(d/β)`` for ``d = −D … D`` (an even kernel).
    oversample : int
        β.
    t : (m,) float
        Cycles per grid cell.
    """
    table = np.asarray(table, dtype=np.float64)
    half = (len(table) - 1) // 2
    t = np.asarray(t, dtype=np.float64)
    tau = t / oversample
    d = np.arange(-half, half + 1)
    body = taps_dft(table, d, oversample, t) / oversample * np.sinc(tau) ** 2
    x, w = _gauss_legendre(16)
    y, w = 0.5 * (x + 1.0), 0.5 * w
    tail = np.cos(2.0 * np.pi * np.outer(tau, half + y)) @ ((1.0 - y) * w)
    return body - (table[0] + table[-1]) / oversample * tail


def kernel_ft(kernel: Callable, support: int, t, nodes: int = 0) -> np.ndarray:
    """Continuous Fourier transform ``∫ C(y)·cos(2πyt) dy`` of an even kernel.

    Gauss–Legendre quadrature on [−S/2, S/2] (``8·S + 128`` nodes by default,
    ample for |t| ≤ 1), in panels split where the kernel declares a kink
    (``kernel.breaks``, e.g. PSWF's ν = 0.75).
    """
    x, w = _gauss_legendre(int(nodes or 8 * support + 128))
    half = support / 2.0
    edges = np.unique([-half, *getattr(kernel, "breaks", ()), half])
    ys, ws = [], []
    for a, b in itertools.pairwise(edges):
        ys.append(0.5 * (b - a) * x + 0.5 * (a + b))
        ws.append(0.5 * (b - a) * w)
    y, w = np.concatenate(ys), np.concatenate(ws)
    return taps_dft(kernel(y) * w, y, 1.0, t)


def pixel_offsets(npix: int) -> np.ndarray:
    """Pixel offsets ``n = i − N/2`` of an N-pixel axis (i = 0 … N−1)."""
    return np.arange(npix) - npix // 2


def corrector(responses) -> np.ndarray:
    """``1 / Π ρ`` of the stage responses, checking that none vanishes."""
    rho = np.prod(np.vstack(responses), axis=0)
    if np.any(np.abs(rho) < 1e-12):
        raise ValueError("the gridding response vanishes inside the image: grid too small")
    return 1.0 / rho
