"""The separable 2-D pipeline every NumPy gridder runs (DESIGN §2, Cotton 2014).

Given one :class:`~uvlab.gpu.gridders.axis.AxisPlan` per axis:

1. **sort / bin** — grid coordinates ``ξu = u·Mu·cell``, ``ξv = −v·Mv·cell``
   (the sign of v makes both axes inverse FFTs, see below); every record is
   moved into the half plane ``0 ≤ ξu ≤ Mu/2`` by periodicity and, where
   needed, Hermitian conjugation ``(ξ, V) → (−ξ, V*)``, which leaves
   ``Re Σ V·e^{…}`` unchanged; then tap indices and weights are computed.
2. **grid** — one ``np.bincount`` per chunk (real and imaginary parts), or
   a compiled loop where numba imports (:mod:`~uvlab.gpu.gridders.jit_grid`), onto a
   half-plane grid with a few extra u columns for kernels straddling u = 0 or
   u = Mu/2; the extra columns are then folded back, conjugated and
   v-mirrored (Cotton 2014, "gridFlipKernel"), into the exact Hermitian half
   of ``(G(k) + G*(−k))/2``.
3. **prune** — optional decimation of the v axis, then the u axis
   (Muscat's column and row pruners, :mod:`~uvlab.gpu.gridders.pruning`).
4. **FFT** — inverse c2c along v keeping the N needed rows, then c2r along u
   keeping N columns; times ``Mu·Mv`` so that the image is the plain sum
   ``Re Σ_k G_k·exp(+2πi·k·n/M)``.
5. **correct** — multiply by the outer product of the two axis correctors.

With ``l = −(i − N/2)·cell`` and ``m = (j − N/2)·cell`` (ImageSpec), pixel
offsets ``n_u = i − N/2``, ``n_v = j − N/2`` give ``exp(2πi·ξu·n_u/Mu) =
exp(−2πi·u·l)`` and ``exp(2πi·ξv·n_v/Mv) = exp(−2πi·v·m)``: the DESIGN §1 sign.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.blocks import BLOCK_CELLS, block_done, spans
from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.compress import compress as compress_records
from uvlab.gpu.gridders.compress import key_from_plans
from uvlab.gpu.gridders.correction import pixel_offsets
from uvlab.gpu.gridders.half_plane import half_plane_coords
from uvlab.gpu.gridders.jit_grid import cpu_rung, grid_extended_numba
from uvlab.gpu.gridders.pruning import flip_rows
from uvlab.gpu.timing import timed


def to_half_plane(xu, xv, vis, n_u: int):
    """Wrap ξu into [−Mu/2, Mu/2] and mirror negative ξu: Hermitian half-plane records."""
    xu, xv, neg = half_plane_coords(xu, xv, n_u)
    return xu, xv, np.where(neg, np.conj(vis), vis)


def fold_half(ext: np.ndarray, n_u: int, pad: int, on_block=None) -> np.ndarray:
    """Hermitian half ``(G + G')/2`` of a grid gridded with extra u columns.

    Parameters
    ----------
    ext : (Mv, Mu/2 + 1 + 2·pad) complex
        Column c holds u cell ``k = c − pad`` (not wrapped).
    n_u : int
        Mu.
    pad : int
        Extra columns each side (≤ Mu/2).
    on_block : callable() -> None, optional
        Called between blocks of rows (a cancel check, :mod:`uvlab.gpu.blocks`).

    Returns
    -------
    (Mv, Mu/2 + 1) complex
        Columns 0 … Mu/2 of ``F(k) = (G(k) + conj G(−k))/2`` with G the
        periodic full-plane grid.
    """
    h = n_u // 2
    if pad > h:
        raise ValueError(f"grid of {n_u} cells too small for {pad} fold columns")
    out = np.empty((ext.shape[0], h + 1), dtype=np.result_type(ext, 0.5))
    for rows in spans(ext.shape[0], BLOCK_CELLS // (h + 1)):
        block_done(on_block)
        np.multiply(0.5, ext[rows, pad : pad + h + 1], out=out[rows])
    # u cells k = 0, −1, …, −pad mirror onto 0 … pad.
    out[:, : pad + 1] += 0.5 * np.conj(flip_rows(ext[:, pad::-1]))
    # u cells k = Mu/2 + pad … Mu/2 mirror onto Mu/2 − pad … Mu/2.
    out[:, h - pad : h + 1] += 0.5 * np.conj(flip_rows(ext[:, 2 * pad + h : pad + h - 1 : -1]))
    return out


def half_to_image(half: np.ndarray, n_u: int, npix: int, on_block=None) -> np.ndarray:
    """Real image ``Re Σ_k F_k·exp(2πi·k·n/M)`` at the N central offsets.

    Parameters
    ----------
    half : (Mv, Mu/2 + 1) complex
        Hermitian half of the full-plane grid F.
    n_u : int
        Mu, full length of the u axis.
    npix : int
        N.
    on_block : callable() -> None, optional
        Called between blocks of columns of the v transform (a cancel check).

    Returns
    -------
    (N, N) float64, ``[j, i]`` at offsets ``(j − N/2, i − N/2)``.
    """
    n_v = half.shape[0]
    n = pixel_offsets(npix)
    rows = np.empty((npix, half.shape[1]), dtype=np.complex128)
    for cols in spans(half.shape[1], BLOCK_CELLS // n_v):
        block_done(on_block)
        rows[:, cols] = np.fft.ifft(half[:, cols], axis=0)[n % n_v] * n_v
    block_done(on_block)
    return np.fft.irfft(rows, n=n_u, axis=1)[:, n % n_u] * n_u


def banded_bincount(idx, weights, out: np.ndarray, on_block=None) -> None:
    """``out += np.bincount(idx, weights, minlength=out.size)``, a band of cells at a time.

    Each band's records keep their order, so every cell's sum is the same as in
    one ``bincount``; ``on_block()`` is called before each band of
    :data:`~uvlab.gpu.blocks.BLOCK_CELLS` cells.
    """
    if out.size <= BLOCK_CELLS:
        block_done(on_block)
        out += np.bincount(idx, weights, minlength=out.size)
        return
    band = idx // BLOCK_CELLS
    for b, cells in enumerate(spans(out.size, BLOCK_CELLS)):
        block_done(on_block)
        sel = band == b
        out[cells] += np.bincount(
            idx[sel] - cells.start, weights[sel], minlength=cells.stop - cells.start
        )


def _chunk_taps(xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, width: int, timer, on_block):
    """(cell index, weight·Re V, weight·Im V) of every tap of a chunk's records.

    Computed for :data:`~uvlab.gpu.blocks.BLOCK_CELLS` taps at a time (each record's
    taps alone decide its entries, so the arrays are those of one pass), with
    ``on_block()`` before each block.
    """
    su, sv = plan_u.rule.support, plan_v.rule.support
    mv, pad = plan_v.n_grid, su // 2 + 1
    ju, jv = np.arange(su), np.arange(sv)
    taps = su * sv
    idx = np.empty(xu.size * taps, dtype=np.int64)
    w_re, w_im = np.empty(idx.size), np.empty(idx.size)
    for part in spans(xu.size, BLOCK_CELLS // taps):
        block_done(on_block)
        out = slice(part.start * taps, part.stop * taps)
        with timed(timer, "sort / bin"):
            k0u, wu = plan_u.rule.taps(xu[part])
            k0v, wv = plan_v.rule.taps(xv[part])
            rows = ((k0v[:, None] + jv) % mv) * width
            idx[out] = (rows[:, :, None] + (k0u[:, None] + ju + pad)[:, None, :]).ravel()
            wt = wv[:, :, None] * wu[:, None, :]
            w_re[out] = (wt * vis[part].real[:, None, None]).ravel()
            w_im[out] = (wt * vis[part].imag[:, None, None]).ravel()
    return idx, w_re, w_im


def grid_half_plane(
    xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None, on_block=None
):
    """Grid half-plane records onto the Hermitian half of the (fine) grid.

    ``on_block()``, when given, is called before each chunk of records and
    between the blocks of a chunk (a cancel check, :mod:`uvlab.gpu.blocks`).

    Returns
    -------
    (Mv, Mu/2 + 1) complex128, Mu and Mv the ``n_grid`` of the plans.
    """
    ext = grid_extended(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block)
    with timed(timer, "grid"):
        return fold_half(ext, plan_u.n_grid, plan_u.rule.support // 2 + 1, on_block)


def grid_extended(
    xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None, on_block=None
):
    """Grid half-plane records onto the half grid with its extra u columns, unfolded.

    The taps of each chunk go in by one ``np.bincount`` (this, the NumPy rung) or,
    where numba imports, by a compiled loop (:mod:`~uvlab.gpu.gridders.jit_grid`,
    chosen by :func:`~uvlab.gpu.gridders.jit_grid.cpu_rung`); the two differ by
    rounding only.

    Returns
    -------
    (Mv, Mu/2 + 1 + 2·pad) complex128
        Column c holds u cell ``c − pad``, ``pad = S_u // 2 + 1``
        (:func:`fold_half` makes it the Hermitian half).
    """
    if cpu_rung() == "numba":
        return grid_extended_numba(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block)
    mu, mv = plan_u.n_grid, plan_v.n_grid
    su, sv = plan_u.rule.support, plan_v.rule.support
    pad = su // 2 + 1
    width = mu // 2 + 1 + 2 * pad
    size = mv * width
    re = np.zeros(size)
    im = np.zeros(size)
    step = max(1, int(chunk) // (su * sv))
    for s in range(0, xu.size, step):
        sl = slice(s, s + step)
        idx, w_re, w_im = _chunk_taps(
            xu[sl], xv[sl], vis[sl], plan_u, plan_v, width, timer, on_block
        )
        with timed(timer, "grid"):
            banded_bincount(idx, w_re, re, on_block)
            banded_bincount(idx, w_im, im, on_block)
    with timed(timer, "grid"):
        re, im = re.reshape(mv, width), im.reshape(mv, width)
        ext = np.empty((mv, width), dtype=np.complex128)
        for rows in spans(mv, BLOCK_CELLS // width):
            block_done(on_block)
            ext[rows] = re[rows] + 1j * im[rows]
        return ext


def records_to_image(
    xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None, on_block=None
) -> np.ndarray:
    """Grid, prune and inverse-FFT half-plane records: the uncorrected (N, N) image.

    Steps 2–4 of the module's chain (the records already in grid cells of the
    plans and in the half plane, :func:`to_half_plane`); the caller corrects.

    Returns
    -------
    (N, N) float64, ``Re Σ_k F_k·exp(2πi·k·n/M)`` of the pruned grid.
    """
    half = grid_half_plane(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block)
    block_done(on_block)
    if plan_v.pruner is not None:
        with timed(timer, "prune"):
            half = plan_v.pruner.apply(half, axis=0, on_block=on_block)
        block_done(on_block)
    if plan_u.pruner is not None:
        with timed(timer, "prune"):
            half = plan_u.pruner.apply_half(half, plan_u.n_grid, on_block=on_block)
        block_done(on_block)
    with timed(timer, "FFT"):
        return half_to_image(half, plan_u.n_fft, plan_u.npix, on_block)


def separable_dirty(
    u,
    v,
    wvis,
    plan_u: AxisPlan,
    plan_v: AxisPlan,
    *,
    chunk: int = 1 << 22,
    timer=None,
    compress: bool = False,
    on_block=None,
) -> np.ndarray:
    """Unnormalised dirty image ``Re Σ wvis·exp(−2πi(u·l + v·m))`` by gridding.

    Parameters
    ----------
    u, v : (nvis,) float
        Wavelengths.
    wvis : (nvis,) complex
        Weighted visibilities.
    plan_u, plan_v : AxisPlan
        The chain along l (u) and m (v); same N.
    chunk : int
        Tap entries per chunk (memory bound).
    timer : StageTimer, optional
    compress : bool
        Sum the records of each nearest cell first
        (:func:`~uvlab.gpu.gridders.compress.compress`, stage "compress");
        ValueError unless the v axis is a nearest-cell axis.
    on_block : callable() -> None, optional
        Called between blocks of work (chunks of records, pruner blocks, the
        stages): a cancel check, which stops the imaging by raising. The image
        does not depend on it.

    Returns
    -------
    (N, N) float64
    """
    if compress:
        key = key_from_plans(plan_u, plan_v)
        with timed(timer, "compress"):
            c = compress_records(u, v, wvis, key)
        u, v, wvis = c.u, c.v, c.wvis
        block_done(on_block)
    with timed(timer, "sort / bin"):
        xu, xv, vis = to_half_plane(
            plan_u.coords(u), -plan_v.coords(v), np.asarray(wvis, np.complex128), plan_u.n_grid
        )
    block_done(on_block)
    img = records_to_image(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block)
    with timed(timer, "correct"):
        img *= plan_v.corrector[:, None] * plan_u.corrector[None, :]
    return img


def plans_dirty(u, v, wvis, plans, params, *, timer=None, on_block=None) -> np.ndarray:
    """:func:`separable_dirty` with an algorithm's (u, v) plans and its GridParams.

    ``params`` gives ``chunk`` and ``compress``; ``plans`` is what the algorithm's
    plan function returns. Every separable algorithm's flat (no w-term) image.
    """
    plan_u, plan_v = plans
    return separable_dirty(
        u,
        v,
        wvis,
        plan_u,
        plan_v,
        chunk=params.chunk,
        timer=timer,
        compress=params.compress,
        on_block=on_block,
    )
