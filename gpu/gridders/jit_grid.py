"""The numba rung of the CPU separable gridder, degridder and pruner (STYLE §2's ladder).

The NumPy rung (:func:`uvlab.gpu.gridders.separable.grid_extended`) forms an
index and a weight per tap (nvis × S_u·S_v int64 and float64 entries) and sums
them with ``np.bincount``; most of a NumPy ``conv`` image's time goes there.
This rung accumulates the taps straight into the extended grid with a compiled
loop over records × S_v × S_u (:mod:`~uvlab.gpu.gridders.jit_kernels`); the
degridder's interpolation likewise. Where both axes read a table by nearest
lookup (``nn``, ``nn-oversampled``, ``pruned-nn``, ``conv``'s table) or evaluate
the ES kernel exactly (``conv`` from an accuracy, as ``uvlab image`` makes it),
the loop forms each record's taps itself (:func:`axis_form`), and the records go
in order of the band of grid rows they reach (a counting sort), so that a band's
rows stay in the caches: records in time order jump across a grid far larger
than the caches. Other rules (linear lookup, other exact kernels) keep the plan's
tap rule, vectorised in NumPy (first cell and S weights per axis and record).
The ``on_block`` checks and stage names are those of the NumPy rung; the images
differ from it only in the order of the additions into a cell and in the last
bit of an exponential (rounding). The pruners' decimation along a full axis
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
from uvlab.gpu.gridders.tables import ExactTaps, NearestTaps, TableTaps
from uvlab.gpu.timing import timed

#: Records ordered together by band before gridding (memory: ~40 B each).
SPAN_RECORDS = 1 << 22
#: Grid rows per band of that order (at least S, :func:`band_rows`): narrow bands share
#: a dense uv plane's records among threads; a band's taps reach BAND_ROWS + S − 1 rows.
BAND_ROWS = 8
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


def grid_into_numba(
    exts, xu, xv, values, plan_u, plan_v, chunk: int, timer=None, on_block=None, threads: int = 1
):  # fmt: skip
    """:func:`~uvlab.gpu.gridders.separable.grid_into` by the compiled loop, in place.

    ``exts``: the unfolded half grids, (Mv, Mu/2 + 1 + 2·pad) complex128, C-contiguous
    (checked by the caller); ``values``: the records' values, one array per grid (a real
    array adds to the real part alone). The same records, chunks of ``chunk // (S_u·S_v)``
    records, blocks of :data:`~uvlab.gpu.blocks.BLOCK_CELLS` taps with ``on_block()``
    before each, and stages ("sort / bin" for the taps, once for all the grids; "grid"
    for the accumulation).
    """
    forms = axis_form(plan_u.rule), axis_form(plan_v.rule)
    if None not in forms:
        _grid_fused(exts, xu, xv, values, forms, timer, on_block, threads)
        return
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


def axis_form(rule):
    """(form, table, β, D, shape, S) of a rule the fused loops evaluate themselves, or None.

    A table read by nearest lookup (``NearestTaps`` is the table [1], β = 1) or the
    ES kernel evaluated exactly (:data:`~uvlab.gpu.gridders.jit_kernels.EXACT_ES`);
    other rules (linear lookup, other exact kernels) keep the NumPy tap rule.
    """
    if isinstance(rule, NearestTaps):
        return (0, np.ones(1), 1, 0, 0.0, 1)
    if isinstance(rule, TableTaps) and rule.lookup == "nearest":
        table = np.ascontiguousarray(rule.table, np.float64)
        return (0, table, int(rule.oversample), int(rule.half), 0.0, int(rule.support))
    if isinstance(rule, ExactTaps) and getattr(rule.kernel, "name", None) == "es":
        return (1, np.ones(1), 1, 0, float(rule.kernel.shape), int(rule.support))
    return None


def band_phases(mv: int, rows: int, support: int) -> list[list[int]]:
    """The bands of ``rows`` rows of an ``mv``-row grid in phases whose bands share no row.

    Band b's taps reach rows b·R … (b + 1)·R + S − 2, R = ``rows`` ≥ S, so two even (or
    two odd) bands never meet, except through the wrap onto the first rows: the bands
    whose taps pass the grid's last row each get a phase of their own, at the end.
    """
    nband = -(-mv // rows)
    wraps = [b for b in range(nband) if (b + 1) * rows + support - 2 >= mv]
    body = [b for b in range(nband) if b not in wraps]
    return [p for p in (body[0::2], body[1::2]) if p] + [[b] for b in wraps]


def _grid_fused(exts, xu, xv, values, forms, timer=None, on_block=None, threads: int = 1):
    """:func:`grid_into_numba` where both axes have an :func:`axis_form`.

    The records of a span (:data:`SPAN_RECORDS` at most) are ordered by band of
    :data:`BAND_ROWS` grid rows (:func:`~uvlab.gpu.gridders.jit_kernels.band_order`,
    stage "sort / bin"), then gridded band by band with their taps formed in the
    compiled loop (:func:`~uvlab.gpu.gridders.jit_kernels.grid_fused`): a band's rows
    stay in the caches, where records in time order jump across the grid. The bands
    go in :func:`band_phases`; within a phase no two bands share a row, so ``threads``
    threads grid its bands at once (the loop releases the GIL), and the grids do not
    depend on how many: each band is added by one thread in record order, phase after
    phase. ``on_block()`` runs before each block of about
    :data:`~uvlab.gpu.blocks.BLOCK_CELLS` taps, on the thread gridding it (a check that
    raises ends the gridding). The sums differ from the tap arrays' by the order of
    additions (rounding).
    """
    k = _kernels()
    axu, axv = forms
    su, sv = axu[5], axv[5]
    pad = su // 2 + 1
    width = exts[0].shape[1]
    mv = exts[0].shape[0]
    flats = [e.view(np.float64) for e in exts]
    per_block = max(1, BLOCK_CELLS // (su * sv))
    threads = max(1, int(threads))
    for s in range(0, xu.size, SPAN_RECORDS):
        block_done(on_block)
        sl = slice(s, min(xu.size, s + SPAN_RECORDS))
        with timed(timer, "sort / bin"):
            xs = np.ascontiguousarray(xu[sl], np.float64)
            ys = np.ascontiguousarray(xv[sl], np.float64)
            _check_columns(np.array(k.first_columns(xs, axu)), -pad, width - pad - su)
            order, first = k.band_order(ys, axv, mv, band_rows(sv))
            re = np.zeros((len(values), sl.stop - sl.start))
            im = np.zeros_like(re)
            for g, v in enumerate(values):
                re[g] = v[sl].real
                if np.iscomplexobj(v):
                    im[g] = v[sl].imag

        def add_band(b, halt, order=order, first=first, xs=xs, ys=ys, re=re, im=im):
            """Band b's records, block by block (records in order; taps once per pair),
            until ``halt`` is set (another band's check raised)."""
            for a in range(int(first[b]), int(first[b + 1]), per_block):
                if halt.is_set():
                    return
                block_done(on_block)
                hi = min(a + per_block, int(first[b + 1]))
                for g in range(0, len(flats), 2):
                    pair = flats[g : g + 2]
                    k.grid_fused(pair[0], pair[-1], len(pair) == 2, order, a, hi, xs, ys,
                                 axu, axv, re[g : g + 2], im[g : g + 2], pad)  # fmt: skip

        rows = band_rows(sv)
        for phase in band_phases(mv, rows, sv):
            with timed(timer, "grid"):
                _each(add_band, phase, first, threads)
    block_done(on_block)


def band_rows(support: int) -> int:
    """Grid rows per band: :data:`BAND_ROWS`, or S where the kernel is wider (so that a
    band's taps never reach the next band but one, :func:`band_phases`)."""
    return max(BAND_ROWS, int(support))


def _each(fn, bands, first, threads: int) -> None:
    """``fn(b, halt)`` for every band of a phase: on the caller's thread alone, or on up
    to ``threads`` threads, the fullest bands first (no two bands of a phase share a row).

    The first exception (a cancel check that raised) sets ``halt``, so that the other
    bands stop before their next block, and is raised here once every band has stopped.
    """
    import threading

    halt = threading.Event()
    bands = [b for b in bands if first[b + 1] > first[b]]
    if threads == 1 or len(bands) < 2:
        for b in bands:
            fn(b, halt)
        return
    bands.sort(key=lambda b: int(first[b] - first[b + 1]))  # fullest first

    def run(b):
        try:
            fn(b, halt)
        except BaseException:
            halt.set()
            raise

    futures = [_pool(threads).submit(run, b) for b in bands]
    for f in futures:
        f.exception()  # wait for every band, so that none writes after this returns
    for f in futures:
        if f.exception() is not None:
            raise f.exception()


@functools.lru_cache(maxsize=4)
def _pool(threads: int):
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=threads, thread_name_prefix="uvlab-grid")


def grid_threads(threads: int) -> int:
    """Threads for the compiled gridder: ``threads``, or the CPUs this process may use for 0."""
    if int(threads) > 0:
        return int(threads)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def interpolate_numba(half, xu, xv, plan_u, plan_v, chunk: int) -> np.ndarray:
    """:func:`~uvlab.gpu.gridders.degrid.interpolate_half` by the compiled loop.

    ``Σ_taps wv·wu·F`` of half-plane records (ξu ∈ [0, Mu/2]), chunk by chunk as
    the NumPy rung; (nvis,) complex128.
    """
    k = _kernels()
    read_taps = k.read_taps
    mu = plan_u.n_grid
    su, sv = plan_u.rule.support, plan_v.rule.support
    half = np.ascontiguousarray(half, dtype=np.complex128)
    out = np.empty(xu.size, dtype=np.complex128)
    forms = axis_form(plan_u.rule), axis_form(plan_v.rule)
    if None not in forms:  # the taps formed in the compiled loop, records by band
        for s in range(0, xu.size, SPAN_RECORDS):
            sl = slice(s, s + SPAN_RECORDS)
            xs = np.ascontiguousarray(xu[sl], np.float64)
            ys = np.ascontiguousarray(xv[sl], np.float64)
            _check_columns(np.array(k.first_columns(xs, forms[0])), -(mu // 2), mu - su + 1)
            order = k.band_order(ys, forms[1], half.shape[0], band_rows(sv))[0]
            k.read_fused(half, order, xs, ys, *forms, mu, out[sl])
        return out
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
    x = np.array([1.2, 2.7])
    for ax in ((0, np.ones(7), 2, 3, 0.0, 3), (1, np.ones(1), 1, 0, 2.3, 3)):
        order = k.band_order(x, ax, 4, BAND_ROWS)[0]
        k.first_columns(x, ax)
        k.grid_fused(grid, grid, False, order, 0, 2, x, x, ax, ax, np.ones((1, 2)),
                     np.zeros((1, 2)), 2)  # fmt: skip
        k.read_fused(np.ones((4, 5), np.complex128), order, x, x, ax, ax, 8,
                     np.empty(2, np.complex128))  # fmt: skip
    k.dot_rows(np.zeros((2, 2)), np.ones((2, 4)), np.ones((2, 4)))  # the DFT reference's
    return time.perf_counter() - t0
