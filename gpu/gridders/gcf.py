"""Gridding convolution functions (GCFs) on their support, in grid cells.

Every kernel here is even, real, peaks at 1 at z = 0 and vanishes for
``|z| > S/2`` (z in grid cells, S the support). The shape parameter of ES,
Kaiser–Bessel and Gaussian depends on the padding σ of the grid they are used
on; :func:`kernel_function` picks it as the literature does when none is given:

- ``"es"``: exponential of semicircle ``exp(β·(√(1 − (2z/S)²) − 1))``
  (Barnett, Magland & af Klinteberg 2019, FINUFFT): ``β = 2.30·S`` at σ = 2,
  otherwise ``β = 0.97·π·(1 − 1/(2σ))·S``;
- ``"kb"``: Kaiser–Bessel ``I0(β·√(1 − (2z/S)²)) / I0(β)`` with Beatty,
  Nishimura & Pauly (2005) ``β = π·√((S/σ)²·(σ − ½)² − 0.8)``;
- ``"pswf"``: Schwab's (1984) rational approximation of the prolate
  spheroidal function of order 1 (α = 1, m = 6), as in AIPS/CASA ``grdsf``:
  ``(1 − ν²)·ψ(ν)`` with ``ν = 2|z|/S``; only S = 6;
- ``"gauss"``: truncated Gaussian ``exp(−z²/(2s²))`` with the Greengard & Lee
  (2004) width ``s² = σ·S/(4π·(σ − ½))``.

The least-misfit kernels (Ye et al. 2020), which are tables rather than
closed forms, live in :mod:`uvlab.gpu.gridders.least_misfit`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Closed-form kernels this module evaluates.
KERNELS = ("es", "kb", "pswf", "gauss")

# Schwab's rational approximation, m = 6, α = 1: numerator (P) and
# denominator (Q) polynomials in ν² − ν_end² on [0, 0.75) and [0.75, 1].
_PSWF_P = np.array(
    [
        [8.203343e-2, -3.644705e-1, 6.278660e-1, -5.335581e-1, 2.312756e-1],
        [4.028559e-3, -3.697768e-2, 1.021332e-1, -1.201436e-1, 6.412774e-2],
    ]
)
_PSWF_Q = np.array([[1.0, 8.212018e-1, 2.078043e-1], [1.0, 9.599102e-1, 2.918724e-1]])


def schwab_psi(nu) -> np.ndarray:
    """Schwab's spheroidal ψ(ν) (m = 6, α = 1) for |ν| ≤ 1, 0 outside.

    Parameters
    ----------
    nu : array_like
        Argument in [−1, 1].

    Returns
    -------
    ndarray
        ψ(ν); the gridding kernel is ``(1 − ν²)·ψ(ν)``.
    """
    nu = np.abs(np.asarray(nu, dtype=np.float64))
    out = np.zeros_like(nu)
    for part, (lo, hi) in enumerate(((0.0, 0.75), (0.75, 1.0))):
        sel = (nu >= lo) & ((nu < hi) if part == 0 else (nu <= hi))
        d = nu[sel] ** 2 - hi**2
        top = np.polyval(_PSWF_P[part][::-1], d)
        bot = np.polyval(_PSWF_Q[part][::-1], d)
        out[sel] = top / bot
    return out


def default_shape(name: str, support: int, sigma: float) -> float | None:
    """Shape parameter the literature uses for a kernel at padding σ.

    Returns the ES or KB β, the Gaussian width s (cells), or None for PSWF.
    """
    s, sg = float(support), float(sigma)
    if name == "es":
        return 2.30 * s if abs(sg - 2.0) < 1e-9 else 0.97 * np.pi * (1.0 - 0.5 / sg) * s
    if name == "kb":
        return float(np.pi * np.sqrt(max((s / sg) ** 2 * (sg - 0.5) ** 2 - 0.8, 1e-6)))
    if name == "gauss":
        return float(np.sqrt(sg * s / (4.0 * np.pi * max(sg - 0.5, 0.05))))
    if name == "pswf":
        return None
    raise ValueError(f"unknown kernel {name!r}; choose one of {KERNELS}")


def kernel_function(
    name: str, support: int, sigma: float = 2.0, shape: float | None = None
) -> Callable[[np.ndarray], np.ndarray]:
    """The GCF ``C(z)`` as a vectorised function of z (grid cells).

    Parameters
    ----------
    name : {"es", "kb", "pswf", "gauss"}
    support : int
        Full support S in grid cells (C = 0 for |z| > S/2).
    sigma : float
        Padding factor of the grid the kernel will be used on; sets the
        default shape parameter.
    shape : float, optional
        Override the ES/KB β or the Gaussian width s (cells).

    Returns
    -------
    callable
        ``C(z) -> ndarray`` of the same shape as z, float64, C(0) = 1.
    """
    if support < 1:
        raise ValueError(f"support must be ≥ 1 cell, got {support}")
    half = support / 2.0
    if name == "pswf" and support != 6:
        raise ValueError("Schwab's spheroidal approximation exists for support 6 only")
    par = default_shape(name, support, sigma) if shape is None else float(shape)

    def es(z):
        y = 1.0 - (z / half) ** 2
        return np.where(y > 0, np.exp(par * (np.sqrt(np.clip(y, 0, None)) - 1.0)), 0.0)

    def kb(z):
        y = 1.0 - (z / half) ** 2
        return np.where(y > 0, np.i0(par * np.sqrt(np.clip(y, 0, None))) / np.i0(par), 0.0)

    def pswf(z):
        nu = np.abs(z) / half
        return np.where(nu <= 1.0, (1.0 - nu**2) * schwab_psi(nu) / schwab_psi(0.0), 0.0)

    def gauss(z):
        return np.where(np.abs(z) <= half, np.exp(-0.5 * (z / par) ** 2), 0.0)

    fn = {"es": es, "kb": kb, "pswf": pswf, "gauss": gauss}[name]

    def kernel(z):
        return fn(np.asarray(z, dtype=np.float64))

    kernel.__doc__ = f"{name} kernel, support {support}, shape {par}"
    # What a compiled loop needs to evaluate it itself (jit_grid.axis_form).
    kernel.name, kernel.shape = name, par
    # Where the kernel's derivative jumps (quadrature panels split there).
    kernel.breaks = (-0.75 * half, 0.75 * half) if name == "pswf" else ()
    return kernel
