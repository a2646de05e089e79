"""Phase factors ``exp(±2πi·x·a_k)`` on an evenly spaced axis ``a_k = a_0 + k·Δa``.

The exact DFT reference (:mod:`uvlab.gpu.gridders.dft`) needs, for every
visibility coordinate ``x`` (u or v, wavelengths) and every image column or
row ``a_k`` (l or m, radians), the factor ``exp(−2πi·x·a_k)``. Evaluated one
by one that is N complex exponentials per visibility, which on the CPU cost
more than the matrix product that follows. On an evenly spaced axis
consecutive factors differ by one factor,

``exp(−2πi·x·a_{k+1}) = exp(−2πi·x·a_k) · exp(−2πi·x·Δa)``,

so one exponential per visibility gives the step and a complex product per
column gives the rest. The recurrence is re-anchored with a direct
exponential every :data:`ANCHOR` columns, so the rounding it adds stays that
of ``ANCHOR`` products and of ``x·Δa`` times ``ANCHOR``: about
``(ANCHOR + 2π·|x·ANCHOR·Δa|)·ε`` relative to ``np.exp``, whatever the
axis' length (≤ 1e-12 for ``|x·ANCHOR·Δa|`` up to ~1e3 cycles; the direct
exponentials themselves differ from the true value by ``2π·|x·a_k|·ε``).
This is the CPU's rung; on a GPU the exponentials are cheap and launches are
not, so there every factor is one direct exponential (one kernel).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp

#: Columns between two direct exponentials of the recurrence.
ANCHOR = 16


def evenly_spaced(axis) -> bool:
    """Whether the 1-D ``axis`` has one step between all its neighbours (to 1e-9 of it)."""
    a = np.asarray(axis, dtype=np.float64)
    if a.size < 3:
        return True
    d = np.diff(a)
    return bool(np.ptp(d) <= 1e-9 * np.abs(d).max())


def axis_phasors(x, axis, sign: int = -1, *, anchor: int = ANCHOR):
    """``out[k, j] = exp(sign·2πi·x_j·axis_k)``, by recurrence along an evenly spaced axis.

    Parameters
    ----------
    x : (nx,) float64
        Coordinates in wavelengths (numpy or cupy; the result follows).
    axis : (n,) float
        Image coordinates in radians (direction cosines), numpy. Not evenly
        spaced (:func:`evenly_spaced`): every factor is a direct exponential.
    sign : {-1, +1}
    anchor : int
        Columns between direct exponentials (1: every one direct).

    Returns
    -------
    (n, nx) complex128, C-contiguous: one row per axis point.
    """
    xp = get_xp(x)
    axis = np.asarray(axis, dtype=np.float64)
    twopi = sign * 2j * np.pi
    if xp is not np or anchor <= 1 or not evenly_spaced(axis):
        return xp.exp(twopi * xp.outer(xp.asarray(axis), x))
    n = axis.size
    out = np.empty((n, x.size), dtype=np.complex128)
    if n == 0:
        return out
    step = np.exp(twopi * ((axis[-1] - axis[0]) / max(1, n - 1)) * x) if n > 1 else None
    for k in range(n):
        if k % anchor == 0:
            np.exp(twopi * (axis[k] * x), out=out[k])
        else:
            np.multiply(out[k - 1], step, out=out[k])
    return out
