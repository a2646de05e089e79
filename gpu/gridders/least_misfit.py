"""Least-misfit gridding kernels (Ye, Gull, Tan & Nikolic 2020), computed numerically.

Muscat (2021, §2.5 and §7.7) uses them in the pruners: a grid oversampled α
times is convolved with a kernel of support ``S_z`` (coarse cells) and
decimated by α; only the central ``|x| ≤ x0`` of the coarse image is kept
(x in units of the coarse grid's image period; x0 = 0.25 keeps the central
half, i.e. the N-pixel image of a 2N pruned grid).

A record whose position has fractional part ``p/α`` (p = 0 … α−1) on the
coarse grid meets the kernel at the offsets ``t = d/α`` with
``d ≡ −p (mod α)``, ``|d| ≤ D = ⌊S_z·α/2⌋``. Its transfer function, after a
corrector h(x), is ``h(x)·Σ_d Z[d]·exp(2πi·t·x)``, and the kernel minimises the
total misfit (Ye et al. eq. 14, with the integral over the record's phase
replaced by the mean over the α phases a pruner actually meets)::

    Σ_p ∫_{−x0}^{x0} |1 − h(x)·L_p(x)|² dx.

For fixed h this is a linear least-squares problem per phase; for fixed taps
the best h(x) is ``Σ_p Re L_p / Σ_p |L_p|²`` (Tan 1986; Muscat eq. 2.25). We
start from the exponential-of-semicircle kernel with the best β on a short
scan and alternate the two steps; the result beats the ES start by a factor
of 2–10 in misfit (e.g. RMS ≈ 1e-13 for S_z = 14, x0 = 0.25).

The solve takes 0.5–3 s on a laptop core the first time (then it is cached): it
calls ``on_block`` (:mod:`uvlab.gpu.blocks`) between its pieces — each start
scored, each sweep — of some tens of milliseconds, so a cancel stops it there.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from uvlab.gpu.blocks import block_done

#: Solved tables kept (a cancelled solve keeps nothing).
CACHE_SIZE = 64
_solved: dict[tuple, np.ndarray] = {}


def _phase_groups(support: int, alpha: int) -> tuple[np.ndarray, list[np.ndarray]]:
    half = (support * alpha) // 2
    d = np.arange(-half, half + 1)
    return d, [np.flatnonzero(d % alpha == r) for r in range(alpha)]


def _es_taps(d: np.ndarray, support: int, alpha: int, beta: float) -> np.ndarray:
    y = 1.0 - (2.0 * d / (alpha * support)) ** 2
    return np.where(y > 0, np.exp(beta * (np.sqrt(np.clip(y, 0, None)) - 1.0)), 0.0)


def _responses(taps, d, groups, alpha, x) -> list[np.ndarray]:
    """L_p(x) = Σ_{d in phase p} Z[d]·exp(2πi·(d/α)·x), one array per phase."""
    return [np.exp(2j * np.pi * np.outer(x, d[g] / alpha)) @ taps[g] for g in groups]


def _best_h(resp) -> np.ndarray:
    num = sum(r.real for r in resp)
    den = sum(np.abs(r) ** 2 for r in resp)
    return num / den


@lru_cache(maxsize=16)
def _gauss(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [−1, 1] (computed once: half the solve's time)."""
    xg, wg = np.polynomial.legendre.leggauss(nodes)
    xg.setflags(write=False)
    wg.setflags(write=False)
    return xg, wg


def misfit(taps, support: int, alpha: int, x0: float = 0.25, nodes: int = 0):
    """RMS and maximum of ``|1 − h·L_p(x)|`` over |x| ≤ x0 and all phases.

    Uses the optimal corrector for the given taps.

    Returns
    -------
    rms, worst : float
    """
    d, groups = _phase_groups(support, alpha)
    xg, wg = _gauss(nodes or 8 * support + 32)
    x, w = xg * x0, wg * x0
    resp = _responses(np.asarray(taps, float), d, groups, alpha, x)
    h = _best_h(resp)
    err = np.array([np.abs(1.0 - h * r) for r in resp])
    return float(np.sqrt((err**2 @ w).sum() / (alpha * 2 * x0))), float(err.max())


def _solve(support: int, alpha: int, x0: float, iterations: int, on_block=None) -> np.ndarray:
    key = (support, alpha, x0, iterations)
    if key in _solved:
        return _solved[key]
    d, groups = _phase_groups(support, alpha)
    nodes = 8 * support + 32
    xg, wg = _gauss(nodes)
    x, sw = xg * x0, np.sqrt(wg * x0)
    # Start: ES with the β that gives the smallest misfit on a short scan.
    starts = [_es_taps(d, support, alpha, f * support) for f in np.linspace(1.6, 2.8, 13)]
    scores = []
    for t in starts:
        block_done(on_block)
        scores.append(misfit(t, support, alpha, x0, nodes)[0])
    taps = starts[min(range(len(starts)), key=scores.__getitem__)].copy()
    rhs = np.concatenate([sw, np.zeros(nodes)])
    for _ in range(iterations):
        block_done(on_block)
        h = _best_h(_responses(taps, d, groups, alpha, x))
        for g in groups:
            e = np.exp(2j * np.pi * np.outer(x, d[g] / alpha)) * (h * sw)[:, None]
            taps[g] = np.linalg.lstsq(np.vstack([e.real, e.imag]), rhs, rcond=None)[0]
    taps /= taps[len(taps) // 2]
    taps.setflags(write=False)
    if len(_solved) >= CACHE_SIZE:
        _solved.pop(next(iter(_solved)))  # the oldest
    return _solved.setdefault(key, taps)


def least_misfit_taps(
    support: int, alpha: int, x0: float = 0.25, iterations: int = 40, on_block=None
) -> np.ndarray:
    """Least-misfit kernel sampled at the α-times finer grid, cached.

    Parameters
    ----------
    support : int
        S_z, support in coarse cells (Muscat uses 8–14).
    alpha : int
        Oversampling of the table (the pruner's decimation factor α = β/2).
    x0 : float
        Half-width of the region of interest in units of the coarse image
        period (0.25: central half).
    iterations : int
        Alternating least-squares sweeps after the ES start.
    on_block : callable() -> None, optional
        Called between the pieces of a solve (a cancel check that stops it by
        raising; nothing is then cached). The taps do not depend on it.

    Returns
    -------
    (2·D + 1,) float64, read-only
        ``Z[d]`` for fine offsets ``d = −D … D``, ``D = ⌊S_z·α/2⌋``; Z[0] = 1.
    """
    if support < 2 or alpha < 1:
        raise ValueError(f"need support ≥ 2 and α ≥ 1, got {support}, {alpha}")
    if not 0 < x0 < 0.5:
        raise ValueError(f"x0 must be in (0, 0.5), got {x0}")
    return _solve(int(support), int(alpha), float(x0), int(iterations), on_block)
