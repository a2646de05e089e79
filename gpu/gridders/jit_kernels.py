"""The compiled loops of the numba rung: the separable gridder's, degridder's and pruner's,
and the DFT reference's products (:func:`dot_rows`).

Imported only through :mod:`uvlab.gpu.gridders.jit_grid`, which imports this
module lazily (as the CUDA code imports CuPy) and falls back to the NumPy rung
when numba is not importable. Each loop runs over records × S_v × S_u in
record order, with the taps the plan's tap rule computed in NumPy; no index
or weight array per tap is formed. ``cache=True`` writes the machine code next
to this file (or in numba's per-user cache directory), so a machine compiles
each loop once; ``nogil=True`` lets the window's GUI thread run meanwhile.
The callers check that every column index stays inside the grid (numba does
not check bounds).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def grid_taps(grid, k0u, wu, k0v, wv, vis_re, vis_im, pad):  # pragma: no cover - compiled
    """Add ``wv·wu·V`` of every tap of every record to the extended half grid, in place.

    Parameters
    ----------
    grid : (Mv, 2·W) float64
        The complex (Mv, W) extended grid viewed as float64: column c of u cell
        ``c − pad`` at ``2c`` (real) and ``2c + 1`` (imaginary).
    k0u, k0v : (n,) int64
        First u cell and first v cell of each record (v wrapped mod Mv here).
    wu : (n, S_u) float64
    wv : (n, S_v) float64
    vis_re, vis_im : (n,) float64
    pad : int
        Extra columns before u cell 0.

    Each tap's product is ``(wv·wu)·Re V`` and ``(wv·wu)·Im V``, as the NumPy
    rung forms it, so only the order of the additions into a cell differs.
    """
    mv = grid.shape[0]
    su = wu.shape[1]
    sv = wv.shape[1]
    for r in range(k0u.size):
        c0 = 2 * (k0u[r] + pad)
        vr = vis_re[r]
        vi = vis_im[r]
        for a in range(sv):
            row = (k0v[r] + a) % mv
            wa = wv[r, a]
            for b in range(su):
                t = wa * wu[r, b]
                grid[row, c0 + 2 * b] += t * vr
                grid[row, c0 + 2 * b + 1] += t * vi


@numba.njit(cache=True, nogil=True)
def read_taps(half, k0u, wu, k0v, wv, n_u, out):  # pragma: no cover - compiled
    """``out[r] = Σ_a wv[r, a]·Σ_b wu[r, b]·F(k0v + a, k0u + b)``, F read from its Hermitian half.

    Parameters
    ----------
    half : (Mv, Mu/2 + 1) complex128
        Columns 0 … Mu/2 of the periodic grid F.
    k0u, k0v : (n,) int64
        First u cell (columns in [−Mu/2, Mu]) and first v cell (wrapped here).
    wu : (n, S_u) float64
    wv : (n, S_v) float64
    n_u : int
        Mu.
    out : (n,) complex128
        Written.

    Columns outside 0 … Mu/2 read ``conj F(−row, −col)``, as
    :func:`uvlab.gpu.gridders.half_plane.read_half` does.
    """
    for r in range(k0u.size):
        out[r] = _read_record(half, k0u[r], wu[r], k0v[r], wv[r], n_u)


@numba.njit(cache=True, nogil=True, inline="always")
def _read_record(half, k0u, wu, k0v, wv, n_u):  # pragma: no cover - compiled
    """``Σ_a wv[a]·Σ_b wu[b]·F(k0v + a, k0u + b)`` of one record (:func:`read_taps`)."""
    mv = half.shape[0]
    h = n_u // 2
    acc_re = 0.0
    acc_im = 0.0
    for a in range(wv.size):
        row = (k0v + a) % mv
        mrow = (mv - row) % mv
        s_re = 0.0
        s_im = 0.0
        for b in range(wu.size):
            col = k0u + b
            w = wu[b]
            if col >= 0 and col <= h:
                val = half[row, col]
                s_re += w * val.real
                s_im += w * val.imag
            else:
                val = half[mrow, -col if col < 0 else n_u - col]
                s_re += w * val.real
                s_im -= w * val.imag
        acc_re += wv[a] * s_re
        acc_im += wv[a] * s_im
    return complex(acc_re, acc_im)


@numba.njit(cache=True, nogil=True)
def prune_rows(fine, taps, lo, alpha, out):  # pragma: no cover - compiled
    """``out[k] += Σ_{s,a} taps[s, a]·fine[((k + s − lo)·α + a) mod M_f]``, in place.

    Parameters
    ----------
    fine : (M_f, C) float64
        Columns of the fine periodic axis (complex columns viewed as float pairs).
    taps : (n_s, α) float64
        The pruner's taps by shift s and phase a
        (:meth:`uvlab.gpu.gridders.pruning.Pruner._blocks`).
    lo : int
        Blocks of padding before block 0 (``−s_min``).
    alpha : int
        α, ``M_f = α·M_c``.
    out : (M_c, C) float64
        Zeros on entry.

    Each fine row is read once and added to the ``n_s`` coarse rows it reaches
    (the NumPy rung reads the fine grid once per shift).
    """
    mf = fine.shape[0]
    mc = out.shape[0]
    ns = taps.shape[0]
    nc = fine.shape[1]
    for j in range(mf):
        a = j % alpha
        b = j // alpha
        for s in range(ns):
            w = taps[s, a]
            if w != 0.0:
                k = (b - s + lo) % mc
                for c in range(nc):
                    out[k, c] += w * fine[j, c]


#: Axis forms of the fused loops (:func:`uvlab.gpu.gridders.jit_grid.axis_form`).
TABLE, EXACT_ES = 0, 1


@numba.njit(cache=True, nogil=True, inline="always")
def _first_cell(x, ax):  # pragma: no cover - compiled
    """First cell of a record's taps on axis ``ax`` = (form, table, β, D, shape, S).

    A table read by nearest lookup: ``k0 = ⌈(q − D)/β⌉``, ``q = ⌊x·β + ½⌋``
    (:meth:`~uvlab.gpu.gridders.tables.TableTaps.taps`); the ES kernel evaluated
    exactly: ``k0 = ⌈x − S/2⌉`` (:class:`~uvlab.gpu.gridders.tables.ExactTaps`).
    Returns (k0, q) (q unused for the exact kernel).
    """
    if ax[0] == TABLE:
        q = np.int64(np.floor(x * ax[2] + 0.5))
        return -((ax[3] - q) // ax[2]), q
    return np.int64(np.ceil(x - ax[5] / 2.0)), np.int64(0)


@numba.njit(cache=True, nogil=True, inline="always")
def _axis_taps(x, ax, out):  # pragma: no cover - compiled
    """First cell of a record's taps on axis ``ax``; ``out`` gets their S weights.

    The steps of the NumPy tap rules for one record: ``table[(k0 + b)·β − q + D]``, or
    ``exp(shape·(√(1 − (z/(S/2))²) − 1))`` at ``z = (k0 − x) + b`` (0 where the root's
    argument is not positive), as :func:`uvlab.gpu.gridders.gcf.kernel_function`'s ES.
    """
    k0, q = _first_cell(x, ax)
    if ax[0] == TABLE:
        table, beta, half = ax[1], ax[2], ax[3]
        for b in range(out.size):
            out[b] = table[(k0 + b) * beta - q + half]
    else:
        shape, zh = ax[4], ax[5] / 2.0
        for b in range(out.size):
            z = (k0 - x) + b
            y = 1.0 - (z / zh) ** 2
            out[b] = np.exp(shape * (np.sqrt(y) - 1.0)) if y > 0 else 0.0
    return k0


@numba.njit(cache=True, nogil=True)
def first_columns(xu, ax):  # pragma: no cover - compiled
    """(least, greatest) first u cell of the records' taps on axis ``ax``."""
    lo = np.int64(2**62)
    hi = -lo
    for r in range(xu.size):
        k0 = _first_cell(xu[r], ax)[0]
        lo = min(lo, k0)
        hi = max(hi, k0)
    return lo, hi


@numba.njit(cache=True, nogil=True)
def band_order(xv, ax, mv, rows):  # pragma: no cover - compiled
    """The records' indices ordered by band of ``rows`` grid rows (their first v tap's,
    wrapped mod ``mv``), in record order within a band: a stable counting sort, O(n).

    Gridding in this order keeps the rows a band's taps reach in the caches. Returns
    (order, first): band b's records are ``order[first[b]:first[b + 1]]``.
    """
    nband = (mv + rows - 1) // rows
    start = np.zeros(nband + 1, np.int64)
    band = np.empty(xv.size, np.int64)
    for r in range(xv.size):
        b = (_first_cell(xv[r], ax)[0] % mv) // rows
        band[r] = b
        start[b + 1] += 1
    for b in range(nband):
        start[b + 1] += start[b]
    first = start.copy()
    order = np.empty(xv.size, np.int64)
    for r in range(xv.size):
        b = band[r]
        order[start[b]] = r
        start[b] += 1
    return order, first


@numba.njit(cache=True, nogil=True, inline="always")
def _add_record(grid, k0v, c0, wu, wv, vr, vi):  # pragma: no cover - compiled
    """Add one record's ``(wv·wu)·V`` into the extended half grid (:func:`grid_taps`)."""
    mv = grid.shape[0]
    for a in range(wv.size):
        row = (k0v + a) % mv
        wa = wv[a]
        for b in range(wu.size):
            t = wa * wu[b]
            grid[row, c0 + 2 * b] += t * vr
            grid[row, c0 + 2 * b + 1] += t * vi


@numba.njit(cache=True, nogil=True)
def grid_fused(
    g0, g1, two, order, lo, hi, xu, xv, axu, axv, vis_re, vis_im, pad
):  # pragma: no cover
    """:func:`grid_taps` of records ``order[lo:hi]`` into one or two grids, each record's
    taps formed here once.

    Parameters
    ----------
    g0, g1 : (Mv, 2·W) float64
        The extended half grids viewed as float64 (:func:`grid_taps`); ``g1`` only
        when ``two`` (else any array of that type, untouched).
    two : bool
    order : (n,) int64
        The records in the order gridded (:func:`band_order`).
    lo, hi : int
        The part of ``order`` gridded by this call.
    xu, xv : (n,) float64
        Half-plane grid coordinates.
    axu, axv : tuple
        Each axis' (form, table, β, D, shape, S) (:func:`_first_cell`).
    vis_re, vis_im : (1 or 2, n) float64
        Each grid's record values.
    pad : int

    Each record adds to each grid the products ``(wv·wu)·Re V`` that :func:`grid_taps`
    adds given the NumPy tap rule's weights; only the order of the records differs
    (rounding). No (n, S) index or weight arrays are formed.
    """
    wu = np.empty(axu[5])
    wv = np.empty(axv[5])
    for i in range(lo, hi):
        r = order[i]
        c0 = 2 * (_axis_taps(xu[r], axu, wu) + pad)
        k0v = _axis_taps(xv[r], axv, wv)
        _add_record(g0, k0v, c0, wu, wv, vis_re[0, r], vis_im[0, r])
        if two:
            _add_record(g1, k0v, c0, wu, wv, vis_re[1, r], vis_im[1, r])


@numba.njit(cache=True, nogil=True)
def read_fused(half, order, xu, xv, axu, axv, n_u, out):  # pragma: no cover - compiled
    """:func:`read_taps` of every record, in ``order``, each record's taps formed here.

    ``out[r]`` is the sum :func:`read_taps` forms for record r given the NumPy tap
    rule's weights, its terms in the same order; ``order`` (:func:`band_order`) only
    keeps the rows read in the caches.
    """
    wu = np.empty(axu[5])
    wv = np.empty(axv[5])
    for i in range(order.size):
        r = order[i]
        k0u = _axis_taps(xu[r], axu, wu)
        k0v = _axis_taps(xv[r], axv, wv)
        out[r] = _read_record(half, k0u, wu, k0v, wv, n_u)


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def dot_rows(out, b, a):  # pragma: no cover - compiled
    """``out[j, i] += Σ_t b[j, t]·a[i, t]``, in place: ``out += b @ a.T`` on one thread.

    Parameters
    ----------
    out : (nm, nl) float64
    b : (nm, n) float64, C-contiguous
    a : (nl, n) float64, C-contiguous

    The DFT reference's real product (:func:`uvlab.gpu.gridders.dft.dirty_dft`)
    for small images: there the product is too small for BLAS's threads, which on
    a loaded machine wait on each other for longer than the sum takes. The sums
    may be reassociated (vectorised), so they differ from BLAS's in rounding only.
    """
    nm, n = b.shape
    nl = a.shape[0]
    for j in range(nm):
        for i in range(nl):
            s = 0.0
            for t in range(n):
                s += b[j, t] * a[i, t]
            out[j, i] += s
