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
    :func:`uvlab.gpu.gridders.degrid.read_half` does.
    """
    mv = half.shape[0]
    h = n_u // 2
    su = wu.shape[1]
    sv = wv.shape[1]
    for r in range(k0u.size):
        acc_re = 0.0
        acc_im = 0.0
        for a in range(sv):
            row = (k0v[r] + a) % mv
            mrow = (mv - row) % mv
            s_re = 0.0
            s_im = 0.0
            for b in range(su):
                col = k0u[r] + b
                w = wu[r, b]
                if col >= 0 and col <= h:
                    val = half[row, col]
                    s_re += w * val.real
                    s_im += w * val.imag
                else:
                    val = half[mrow, -col if col < 0 else n_u - col]
                    s_re += w * val.real
                    s_im -= w * val.imag
            acc_re += wv[r, a] * s_re
            acc_im += wv[r, a] * s_im
        out[r] = complex(acc_re, acc_im)


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
