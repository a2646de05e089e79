"""The numba rung of the CPU separable gridder, degridder and pruner (STYLE §2's ladder).

The NumPy rung (:func:`uvlab.gpu.gridders.separable.grid_extended`) forms an
index and a weight per tap (nvis × S_u·S_v int64 and float64 entries) and sums
them with ``np.bincount``; most of a NumPy ``conv`` image's time goes there.
This rung keeps the plan's tap rule, vectorised in NumPy (first cell and S
weights per axis and record), and accumulates the taps straight into the
extended grid with a compiled loop over records × S_v × S_u
(:mod:`~uvlab.gpu.gridders.jit_kernels`); the degridder's interpolation
likewise. The records, chunks, ``on_block`` checks and stage names are those
of the NumPy rung; the images differ from it only in the order of the
additions into a cell (rounding). The pruners' decimation along a full axis
(:meth:`~uvlab.gpu.gridders.pruning.Pruner.apply`: ``hybrid``'s and
``pruned-nn``'s v axis, the β-times oversampled grid) reads each fine row once
and adds it to the coarse rows it reaches (:func:`prune_columns_numba`),
where the NumPy rung reads the fine grid once per shift.

Which rung runs is decided in one place, :func:`cpu_rung`: numba when it is
importable, NumPy otherwise; the environment variable ``UVLAB_CPU_RUNG``
(``auto``, ``numba`` or ``numpy``) forces one. numba is imported lazily, as the
CUDA code imports CuPy, so ``uvlab.gpu`` imports without it.
"""

from __future__ import annotations

import functools
import os
import time

import numpy as np

from uvlab.gpu.blocks import BLOCK_CELLS, block_done, spans
from uvlab.gpu.timing import timed

#: The environment variable that forces a rung.
RUNG_ENV = "UVLAB_CPU_RUNG"
RUNGS = ("auto", "numba", "numpy")


@functools.lru_cache(maxsize=1)
def _loaded():
    """(the kernels module, None) or (None, why numba is not usable); tried once."""
    try:
        from uvlab.gpu.gridders import jit_kernels
    except Exception as exc:  # ImportError, or a numba broken against this NumPy
        return None, f"{exc.__class__.__name__}: {exc}"
    return jit_kernels, None


def cpu_rung() -> str:
    """``"numba"`` or ``"numpy"``: the rung the CPU separable gridder and degridder run.

    ``UVLAB_CPU_RUNG`` (read at each call) forces a rung; ``auto`` (the default)
    takes numba where it imports.

    Raises
    ------
    ValueError
        ``UVLAB_CPU_RUNG`` is not one of :data:`RUNGS`.
    ImportError
        ``UVLAB_CPU_RUNG=numba`` and numba is not importable.
    """
    want = os.environ.get(RUNG_ENV, "").strip().lower() or "auto"
    if want not in RUNGS:
        raise ValueError(f"{RUNG_ENV}={want!r} is not one of {', '.join(RUNGS)}")
    if want == "numpy":
        return "numpy"
    kernels, why = _loaded()
    if kernels is not None:
        return "numba"
    if want == "numba":
        raise ImportError(f"{RUNG_ENV}=numba but numba is not importable ({why})")
    return "numpy"


def _kernels():
    return _loaded()[0]


def _taps(rule, x):
    """(first cell int64, weights C-contiguous float64) of a rule's taps: one compiled type."""
    k0, w = rule.taps(x)
    return np.ascontiguousarray(k0, np.int64), np.ascontiguousarray(w, np.float64)


def _check_columns(k0u, lo: int, hi: int) -> None:
    """Every record's u taps within columns [lo, hi] (numba does not check bounds)."""
    if k0u.size and (k0u.min() < lo or k0u.max() > hi):
        raise ValueError(
            f"u taps outside the grid's columns {lo} … {hi}: records not in the half plane"
        )


def grid_into_numba(exts, xu, xv, values, plan_u, plan_v, chunk: int, timer=None, on_block=None):
    """:func:`~uvlab.gpu.gridders.separable.grid_into` by the compiled loop, in place.

    ``exts``: the unfolded half grids, (Mv, Mu/2 + 1 + 2·pad) complex128, C-contiguous
    (checked by the caller); ``values``: the records' values, one array per grid (a real
    array adds to the real part alone). The same records, chunks of ``chunk // (S_u·S_v)``
    records, blocks of :data:`~uvlab.gpu.blocks.BLOCK_CELLS` taps with ``on_block()``
    before each, and stages ("sort / bin" for the taps, once for all the grids; "grid"
    for the accumulation).
    """
    grid_taps = _kernels().grid_taps
    su, sv = plan_u.rule.support, plan_v.rule.support
    pad = su // 2 + 1
    width = exts[0].shape[1]
    flats = [e.view(np.float64) for e in exts]
    step = max(1, int(chunk) // (su * sv))
    for s in range(0, xu.size, step):
        sl = slice(s, min(xu.size, s + step))
        for part in spans(sl.stop - sl.start, BLOCK_CELLS // (su * sv)):
            block_done(on_block)
            rec = slice(sl.start + part.start, sl.start + part.stop)
            with timed(timer, "sort / bin"):
                k0u, wu = _taps(plan_u.rule, xu[rec])
                k0v, wv = _taps(plan_v.rule, xv[rec])
                _check_columns(k0u, -pad, width - pad - su)
                parts = []
                for v in values:
                    v = v[rec]
                    im = v.imag if np.iscomplexobj(v) else np.zeros(v.shape)
                    parts.append((np.ascontiguousarray(v.real, np.float64),
                                  np.ascontiguousarray(im, np.float64)))  # fmt: skip
            with timed(timer, "grid"):
                for flat, (vr, vi) in zip(flats, parts, strict=True):
                    grid_taps(flat, k0u, wu, k0v, wv, vr, vi, pad)
    block_done(on_block)


def interpolate_numba(half, xu, xv, plan_u, plan_v, chunk: int) -> np.ndarray:
    """:func:`~uvlab.gpu.gridders.degrid.interpolate_half` by the compiled loop.

    ``Σ_taps wv·wu·F`` of half-plane records (ξu ∈ [0, Mu/2]), chunk by chunk as
    the NumPy rung; (nvis,) complex128.
    """
    read_taps = _kernels().read_taps
    mu = plan_u.n_grid
    su, sv = plan_u.rule.support, plan_v.rule.support
    half = np.ascontiguousarray(half, dtype=np.complex128)
    out = np.empty(xu.size, dtype=np.complex128)
    step = max(1, int(chunk) // (su * sv))
    for s in range(0, xu.size, step):
        sl = slice(s, s + step)
        k0u, wu = _taps(plan_u.rule, xu[sl])
        k0v, wv = _taps(plan_v.rule, xv[sl])
        _check_columns(k0u, -(mu // 2), mu - su + 1)
        read_taps(half, k0u, wu, k0v, wv, mu, out[sl])
    return out


def prune_columns_numba(g, zs, lo: int, alpha: int) -> np.ndarray:
    """:meth:`~uvlab.gpu.gridders.pruning.Pruner.apply` of columns ``g`` by the compiled loop.

    Parameters
    ----------
    g : (α·M_c, cols) complex
        Columns of the fine periodic axis.
    zs : (n_s, α) float
        The taps by shift and phase; shift 0 is ``lo`` blocks before the output block.
    lo : int
    alpha : int

    Returns
    -------
    (M_c, cols) complex128, equal to the NumPy rung's to rounding.
    """
    fine = np.ascontiguousarray(g, dtype=np.complex128).view(np.float64)
    out = np.zeros((fine.shape[0] // alpha, fine.shape[1]))
    taps = np.ascontiguousarray(zs, dtype=np.float64)
    _kernels().prune_rows(fine, taps, int(lo), int(alpha), out)
    return out.view(np.complex128)


def warm() -> float | None:
    """Compile (or load from numba's cache) the loops on a few records; the seconds taken.

    None when the NumPy rung runs (numba missing or ``UVLAB_CPU_RUNG=numpy``). The
    window's worker may call it at start-up so that the first image does not wait
    for the compiler.
    """
    try:
        if cpu_rung() != "numba":
            return None
    except (ValueError, ImportError):
        return None
    k = _kernels()
    t0 = time.perf_counter()
    k0, w = np.zeros(2, np.int64), np.ones((2, 3))
    grid = np.zeros((4, 2 * 10))
    k.grid_taps(grid, k0, w, k0, w, np.ones(2), np.zeros(2), 2)
    k.read_taps(np.ones((4, 5), np.complex128), k0, w, k0, w, 8, np.empty(2, np.complex128))
    k.prune_rows(np.ones((4, 2)), np.ones((3, 2)), 1, 2, np.zeros((2, 2)))
    k.dot_rows(np.zeros((2, 2)), np.ones((2, 4)), np.ones((2, 4)))  # the DFT reference's
    return time.perf_counter() - t0
