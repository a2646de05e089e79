"""Per-baseline real factors of the measurement equation, for the per-antenna path.

:mod:`uvlab.gpu.predict.factored_smearing` forms each baseline's phasor from two antenna
phasors; what stays per baseline are real, smooth factors of antenna differences
(τ_pq = τ_p − τ_q, τ̇_pq, u_pq, v_pq), made here for a block (src, chan, bl, time):

- ζ_band = sinc(π·Δν·τ_pq/c) (SDP Memo 076 eq. 6): one value per (source, baseline,
  time) when every channel has the same width, else one per channel;
- ζ_time = sinc(π·ν·T·τ̇_pq/c) (eq. 8): with ρ_c = ν_c/ν_max and x = π·ν_max·T·τ̇_pq/c,
  sinc(ρ_c·x) = Σ_j (−ρ_c²)^j·x^{2j}/(2j+1)!, a polynomial in x² whose channel
  dependence sits in the coefficients: every channel comes out of one matrix product
  of a (chan, j) table with the powers ζ_band·x^{2j} (:func:`smearing_weights`);
- G = exp(−(ν/c)²·Q_pq), Q_pq = a·u_pq² + b·v_pq² + c·u_pq·v_pq (DESIGN §1;
  :func:`uvlab.gpu.predict.terms.gaussian_quadratic`).

sinc(x) = sin(x)/x (unnormalised, as in :mod:`uvlab.gpu.predict.terms`) is summed as its
Taylor series while |x| ≤ :data:`SERIES_MAX`, to :data:`SERIES_EPS` (the bound on |x|
comes from the antennas' spread, so no pass over the block is needed to choose the
number of terms); the sum of |terms| is sinh(x)/x ≤ 14 there, so the series keeps its
relative accuracy to a few ulp. Past that, sin(x)/x is taken elementwise (libm's float64
sine costs 10–25 ns an element on the CPU, which is why the series comes first).
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.constants import C_LIGHT

#: Largest |x| for which sinc(x) is summed as a Taylor series (float64, float32).
SERIES_MAX = {np.dtype(np.float64): 4.0, np.dtype(np.float32): 2.0}

#: Truncation error the series is taken to (relative to sinc ≈ 1).
SERIES_EPS = {np.dtype(np.float64): 1e-17, np.dtype(np.float32): 1e-8}


@functools.cache
def _series_bounds(eps: float) -> tuple[float, ...]:
    """x_n = (eps·(2n+3)!)^(1/(2n+2)): the largest |x| the series to x^(2n) serves."""
    return tuple((eps * math.factorial(2 * n + 3)) ** (1.0 / (2 * n + 2)) for n in range(40))


def series_terms(xmax: float, eps: float) -> int:
    """Smallest n with |x|^(2n+2)/(2n+3)! ≤ eps for |x| ≤ xmax: sinc to x^(2n) suffices."""
    return bisect.bisect_left(_series_bounds(eps), xmax)


@functools.cache
def _taylor(n: int) -> tuple[float, ...]:
    return tuple((-1.0) ** j / math.factorial(2 * j + 1) for j in range(n + 1))


def sinc_coefficients(n: int, rho2, dtype=np.float64):
    """(−ρ²)^j/(2j+1)! for j = 0..n and each ρ²: the (chan, n+1) table of sinc(ρ·x) in x²."""
    powers = np.asarray(rho2, dtype=np.float64)[:, None] ** np.arange(n + 1)
    return (np.array(_taylor(n))[None, :] * powers).astype(dtype)


def buffer(work, name: str, shape, dtype, xp=np):
    """``work(name, shape, dtype)`` (a :class:`Scratch`), or a new array without one."""
    return xp.empty(shape, dtype) if work is None else work(name, shape, dtype)


class Scratch:
    """Work arrays reused by name across the blocks of a predict.

    A block's temporaries are 0.5–2 MiB; made anew for every block, glibc's malloc maps
    and unmaps them, and the page faults of touching them again cost as much as the
    arithmetic (measured: 17 ms of system time in a 35 ms predict). One flat array per
    (name, dtype), grown when needed, serves every block as a view.
    """

    def __init__(self, xp=np):
        self.xp = xp
        self._flat = {}

    def __call__(self, name: str, shape, dtype):
        dtype = np.dtype(dtype)
        size = math.prod(shape)
        flat = self._flat.get((name, dtype))
        if flat is None or flat.size < size:
            flat = self._flat[(name, dtype)] = self.xp.empty(size, dtype=dtype)
        return flat[:size].reshape(shape)


def gather(a, index, axis: int, out, xp=np):
    """``a.take(index, axis)`` into ``out``; the indices must be valid.

    NumPy's default ``mode="raise"`` copies through a buffer when ``out`` is given (2–3
    times slower here); "clip" writes directly, and changes nothing for valid indices.
    """
    if xp is np:
        return np.take(a, index, axis=axis, out=out, mode="clip")
    return xp.take(a, index, axis=axis, out=out)


def sinc(x, real, xp=np, xmax: float | None = None, work=None, name: str = "sinc"):
    """Unnormalised sinc(x) = sin(x)/x of a real array, by series when max|x| is small.

    ``xmax`` is a bound on |x| known beforehand (saves a pass over ``x``); the result
    goes to ``work``'s array ``name`` when a :class:`Scratch` is given.
    """
    real = np.dtype(real)
    if xmax is None:
        xmax = float(xp.max(xp.abs(x))) if x.size else 0.0
    out = buffer(work, name, x.shape, real, xp)
    if xmax > SERIES_MAX[real]:
        y = buffer(work, name + "_arg", x.shape, real, xp)
        y[...] = x
        y[y == 0] = real.type(1e-30)  # sin(y)/y is exactly 1 there
        xp.sin(y, out=out)
        return xp.divide(out, y, out=out)
    coef = _taylor(series_terms(xmax, SERIES_EPS[real]))
    if len(coef) == 1:
        out[...] = 1.0
        return out
    z = xp.multiply(x, x, out=buffer(work, name + "_z", x.shape, real, xp))
    xp.multiply(z, coef[-1], out=out)
    for c in coef[-2:0:-1]:
        out += c
        out *= z
    out += 1.0
    return out


@dataclass(frozen=True, eq=False)
class SmearingPlan:
    """The constants of the smearing factors for one chunk of channels and antenna terms.

    Attributes
    ----------
    gamma : float, (1, chan, 1, 1) array or None — π·Δν/c (1/m): one value when the
        widths are equal; None without bandwidth smearing
    band_max : float — bound on |π·Δν·τ_pq/c|
    beta : float or None — π·T·ν_max/c (s/m); None without time smearing
    time_max : float — bound on |β·τ̇_pq|
    table : (chan, n+1) real or None — series coefficients (−ρ_c²)^j/(2j+1)!; None when
        ``time_max`` is past :data:`SERIES_MAX` (then ``rho`` scales x per channel)
    rho : (1, chan, 1, 1) real — ν/ν_max
    """

    gamma: object
    band_max: float
    beta: float | None
    time_max: float
    table: object
    rho: object


def plan_smearing(smearing, freq_hz, span, dtype, xp=np) -> SmearingPlan | None:
    """The :class:`SmearingPlan` of ``smearing`` for channels ``freq_hz`` and bounds ``span``."""
    if smearing is None or not smearing.active:
        return None
    real = np.dtype(dtype)
    nchan = len(freq_hz)
    gamma, band_max = None, 0.0
    if smearing.band:
        widths = smearing.widths(nchan)
        band_max = math.pi / C_LIGHT * float(np.max(np.abs(widths))) * span[0]
        if np.all(widths == widths[0]):
            gamma = math.pi / C_LIGHT * float(widths[0])
        else:
            gamma = xp.asarray((math.pi / C_LIGHT) * widths, dtype=xp.float64)[None, :, None, None]
    numax = float(np.max(freq_hz))
    rho = np.asarray(freq_hz, dtype=np.float64) / numax
    beta, time_max, table = None, 0.0, None
    if smearing.time:
        beta = math.pi * smearing.int_s * numax / C_LIGHT
        time_max = beta * span[1]
        if time_max <= SERIES_MAX[real]:
            table = xp.asarray(
                sinc_coefficients(series_terms(time_max, SERIES_EPS[real]), rho**2, real)
            )
    return SmearingPlan(
        gamma, band_max, beta, time_max, table, xp.asarray(rho, dtype=real)[None, :, None, None]
    )


def smearing_weights(dpq, plan: SmearingPlan, real, xp=np, work=None):
    """ζ_time·ζ_band for a block: (src, chan or 1, bl, time) real.

    Parameters
    ----------
    dpq : (2, src, bl, time) float64 — τ_pq (m) and τ̇_pq (m/s)
    plan : SmearingPlan of the chunk
    work : Scratch or None — where the temporaries and the result go
    """
    ns, nb, nt = dpq.shape[1:]
    nchan = plan.rho.shape[1]
    band = None
    if plan.gamma is not None:
        nc = 1 if np.ndim(plan.gamma) == 0 else nchan
        y = buffer(work, "band_arg", (ns, nc, nb, nt), real, xp)
        xp.multiply(dpq[0][:, None], plan.gamma, out=y, casting="same_kind")
        band = sinc(y, real, xp, plan.band_max, work, "band")
    if plan.beta is None:
        return band
    weight = buffer(work, "weight", (ns, nchan, nb, nt), real, xp)
    if plan.table is None:  # far from the phase centre: sin(x)/x
        x = buffer(work, "time_arg", (ns, nchan, nb, nt), real, xp)
        xp.multiply(dpq[1][:, None], plan.beta * plan.rho, out=x, casting="same_kind")
        zeta = sinc(x, real, xp, plan.time_max, work, "time")
        return xp.multiply(zeta, 1.0 if band is None else band, out=weight)
    # sinc(ρ_c·x) = Σ_j [(−ρ_c²)^j/(2j+1)!]·(x²)^j: the (chan, j) table times the powers
    n = plan.table.shape[1] - 1
    z = buffer(work, "time_z", (ns, nb * nt), real, xp)
    xp.multiply(dpq[1].reshape(ns, nb * nt), plan.beta, out=z, casting="same_kind")
    z *= z
    powers = buffer(work, "powers", (n + 1, ns, nb * nt), real, xp)  # one slab per power
    if band is not None and band.shape[1] == 1:
        powers[0] = band.reshape(ns, nb * nt)
        band = None
    else:
        powers[0] = 1.0
    for j in range(1, n + 1):
        xp.multiply(powers[j - 1], z, out=powers[j])
    xp.matmul(plan.table, powers.transpose(1, 0, 2), out=weight.reshape(ns, nchan, nb * nt))
    if band is not None:
        weight *= band
    return weight


def gaussian_weights(uv, p, q, quad, neg_k2, real, xp=np, work=None):
    """G = exp(−(ν/c)²·Q_pq) for a block: (src, chan, bl, time) real.

    ``uv`` (2, ant, time) float64 m; ``p``, ``q`` (bl,) index its antennas; ``quad``
    (src, 3) are the coefficients of :func:`uvlab.gpu.predict.terms.gaussian_quadratic`
    and ``neg_k2`` (1, chan, 1, 1) is −(ν/c)² in m⁻².
    """
    nb, nt = len(p), uv.shape[2]
    duv = gather(uv, p, 1, buffer(work, "duv", (2, nb, nt), np.float64, xp), xp)
    duv -= gather(uv, q, 1, buffer(work, "duv_q", (2, nb, nt), np.float64, xp), xp)
    u, v = duv[0], duv[1]
    sq = buffer(work, "uv2", (3, nb, nt), np.float64, xp)
    xp.multiply(u, u, out=sq[0])
    xp.multiply(v, v, out=sq[1])
    xp.multiply(u, v, out=sq[2])
    qpq = xp.einsum("sk,kbt->sbt", quad, sq)
    g = buffer(work, "gauss", (len(quad), neg_k2.shape[1], nb, nt), real, xp)
    xp.multiply(qpq[:, None], neg_k2, out=g, casting="same_kind")
    return xp.exp(g, out=g)
