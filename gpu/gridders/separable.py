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

Steps 1–2 and the chain are this module's; steps 3–5 (the half grid to the image) are
:mod:`~uvlab.gpu.gridders.half_image`'s.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.blocks import BLOCK_CELLS, block_done, spans
from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.compress import compress as compress_records
from uvlab.gpu.gridders.compress import key_from_plans
from uvlab.gpu.gridders.direct_prune import direct_plans
from uvlab.gpu.gridders.half_image import correct, fold_half, half_to_uncorrected
from uvlab.gpu.gridders.half_plane import half_plane_coords
from uvlab.gpu.gridders.jit_grid import cpu_rung, grid_into_numba, grid_threads
from uvlab.gpu.timing import timed


def to_half_plane(xu, xv, vis, n_u: int):
    """Wrap ξu into [−Mu/2, Mu/2] and mirror negative ξu: Hermitian half-plane records."""
    xu, xv, neg = half_plane_coords(xu, xv, n_u)
    return xu, xv, np.where(neg, np.conj(vis), vis)


def banded_bincount(idx, weights, out, on_block=None) -> None:
    """``out += np.bincount(idx, weights, minlength=out.size)``, a band of cells at a time.

    ``weights`` and ``out`` may be sequences of the same length (several sums over the
    same ``idx``: the bands are found once). Each band's records keep their order (a
    stable sort by band), so every cell's sum is the same as in one ``bincount``;
    ``on_block()`` is called before each band of :data:`~uvlab.gpu.blocks.BLOCK_CELLS`
    cells.
    """
    if isinstance(out, np.ndarray):
        weights, out = [weights], [out]
    size = out[0].size
    if size <= BLOCK_CELLS:
        for w, o in zip(weights, out, strict=True):
            block_done(on_block)
            o += np.bincount(idx, w, minlength=size)
        return
    nbands = -(-size // BLOCK_CELLS)
    band = (idx // BLOCK_CELLS).astype(np.uint16 if nbands < 1 << 16 else np.int64)
    order = np.argsort(band, kind="stable")  # a radix sort of 16-bit keys
    bounds = np.concatenate([[0], np.cumsum(np.bincount(band, minlength=nbands))])
    del band
    for b, cells in enumerate(spans(size, BLOCK_CELLS)):
        block_done(on_block)
        sel = order[bounds[b] : bounds[b + 1]]
        local = idx[sel] - cells.start
        for w, o in zip(weights, out, strict=True):
            o[cells] += np.bincount(local, w[sel], minlength=cells.stop - cells.start)


def _chunk_taps(xu, xv, values, plan_u: AxisPlan, plan_v: AxisPlan, width: int, timer,
                on_block):  # fmt: skip
    """(cell index, [weight·Re v (and weight·Im v for complex v) for v in values]) of every
    tap of a chunk's records.

    Computed for :data:`~uvlab.gpu.blocks.BLOCK_CELLS` taps at a time (each record's
    taps alone decide its entries, so the arrays are those of one pass), with
    ``on_block()`` before each block.
    """
    su, sv = plan_u.rule.support, plan_v.rule.support
    mv, pad = plan_v.n_grid, su // 2 + 1
    ju, jv = np.arange(su), np.arange(sv)
    taps = su * sv
    idx = np.empty(xu.size * taps, dtype=np.int64)
    parts = [p for v in values for p in ((v.real, v.imag) if np.iscomplexobj(v) else (v,))]
    sums = [np.empty(idx.size) for _ in parts]
    for part in spans(xu.size, BLOCK_CELLS // taps):
        block_done(on_block)
        out = slice(part.start * taps, part.stop * taps)
        with timed(timer, "sort / bin"):
            k0u, wu = plan_u.rule.taps(xu[part])
            k0v, wv = plan_v.rule.taps(xv[part])
            rows = ((k0v[:, None] + jv) % mv) * width
            idx[out] = (rows[:, :, None] + (k0u[:, None] + ju + pad)[:, None, :]).ravel()
            wt = wv[:, :, None] * wu[:, None, :]
            for p, acc in zip(parts, sums, strict=True):
                acc[out] = (wt * p[part][:, None, None]).ravel()
    return idx, sums


def grid_half_plane(
    xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None, on_block=None,
    *, threads: int = 1,
):  # fmt: skip
    """Grid half-plane records onto the Hermitian half of the (fine) grid.

    ``on_block()``, when given, is called before each chunk of records and
    between the blocks of a chunk (a cancel check, :mod:`uvlab.gpu.blocks`).

    Returns
    -------
    (Mv, Mu/2 + 1) complex128, Mu and Mv the ``n_grid`` of the plans.
    """
    ext = grid_extended(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block, threads=threads)
    with timed(timer, "grid"):
        return fold_half(ext, plan_u.n_grid, plan_u.rule.support // 2 + 1, on_block)


def extended_shape(plan_u: AxisPlan, plan_v: AxisPlan) -> tuple[int, int]:
    """(Mv, Mu/2 + 1 + 2·pad): the unfolded half grid :func:`grid_into` adds to."""
    return plan_v.n_grid, plan_u.n_grid // 2 + 1 + 2 * (plan_u.rule.support // 2 + 1)


def grid_into(
    ext, xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None,
    on_block=None, *, threads: int = 1,
) -> None:  # fmt: skip
    """Add half-plane records into ``ext``, the unfolded half grid, in place.

    Parameters
    ----------
    ext : (Mv, Mu/2 + 1 + 2·pad) complex128, C-contiguous, or a list of them
        :func:`extended_shape`; column c holds u cell ``c − pad``, ``pad = S_u // 2 + 1``.
        Records gridded into it in several calls sum as if gridded in one, to rounding
        (what a grid made in parts, :mod:`uvlab.gpu.imaging.grid_parts`, relies on).
    xu, xv : (nrec,)
        Half-plane records (:func:`half_plane_records`).
    vis : (nrec,) complex or real, or a list of them (one per grid of ``ext``)
        The records' values; the taps are computed once for all the grids (a real
        array's values add to the real part alone).
    chunk : int
        Tap entries per block of records (memory bound).
    threads : int
        Threads the numba rung's fused loop may grid on (the grid does not depend on
        it; :func:`~uvlab.gpu.gridders.jit_grid.grid_threads` makes 0 the CPUs there).
    """
    exts, values = ([ext], [vis]) if isinstance(ext, np.ndarray) else (list(ext), list(vis))
    shape = extended_shape(plan_u, plan_v)
    if any(e.shape != shape or not e.flags.c_contiguous for e in exts):
        raise ValueError(f"grid of shape {exts[0].shape} is not this chain's unfolded half grid")
    if cpu_rung() == "numba":
        grid_into_numba(exts, xu, xv, values, plan_u, plan_v, chunk, timer, on_block,
                        threads=grid_threads(threads))  # fmt: skip
        return
    su, sv = plan_u.rule.support, plan_v.rule.support
    targets = []  # strided views: the bincounts add into the grids themselves
    for e, v in zip(exts, values, strict=True):
        flat = e.reshape(-1)
        targets += [flat.real, flat.imag] if np.iscomplexobj(v) else [flat.real]
    step = max(1, int(chunk) // (su * sv))
    for s in range(0, xu.size, step):
        sl = slice(s, s + step)
        idx, sums = _chunk_taps(
            xu[sl], xv[sl], [v[sl] for v in values], plan_u, plan_v, shape[1], timer, on_block
        )
        with timed(timer, "grid"):
            banded_bincount(idx, sums, targets, on_block)


def grid_extended(
    xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None, on_block=None,
    *, threads: int = 1,
):  # fmt: skip
    """Grid half-plane records onto the half grid with its extra u columns, unfolded.

    The taps of each chunk go in by one ``np.bincount`` (this, the NumPy rung) or,
    where numba imports, by a compiled loop (:mod:`~uvlab.gpu.gridders.jit_grid`,
    chosen by :func:`~uvlab.gpu.gridders.jit_grid.cpu_rung`); the two differ by
    rounding only.

    Returns
    -------
    (Mv, Mu/2 + 1 + 2·pad) complex128
        Column c holds u cell ``c − pad``, ``pad = S_u // 2 + 1``
        (:func:`~uvlab.gpu.gridders.half_image.fold_half` makes it the Hermitian half).
    """
    with timed(timer, "grid"):
        ext = np.zeros(extended_shape(plan_u, plan_v), dtype=np.complex128)
    grid_into(ext, xu, xv, vis, plan_u, plan_v, chunk, timer, on_block, threads=threads)
    return ext


def records_to_image(
    xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer=None, on_block=None,
    *, threads: int = 1,
) -> np.ndarray:  # fmt: skip
    """Grid, prune and inverse-FFT half-plane records: the uncorrected (N, N) image.

    Steps 2–4 of the module's chain (the records already in grid cells of the
    plans and in the half plane, :func:`to_half_plane`); the caller corrects.

    Returns
    -------
    (N, N) float64, ``Re Σ_k F_k·exp(2πi·k·n/M)`` of the pruned grid.
    """
    half = grid_half_plane(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block, threads=threads)
    return half_to_uncorrected(half, plan_u, plan_v, timer, on_block)


def half_plane_records(
    u, v, wvis, plan_u: AxisPlan, plan_v: AxisPlan, *, compress: bool = False, timer=None
):
    """Step 1: (ξu, ξv, vis) of the records in the plans' grid cells, in the half plane.

    ``compress`` sums the records of each nearest cell first
    (:func:`~uvlab.gpu.gridders.compress.compress`, stage "compress").
    """
    if compress:
        key = key_from_plans(plan_u, plan_v)
        with timed(timer, "compress"):
            c = compress_records(u, v, wvis, key)
        u, v, wvis = c.u, c.v, c.wvis
    with timed(timer, "sort / bin"):
        return to_half_plane(
            plan_u.coords(u), -plan_v.coords(v), np.asarray(wvis, np.complex128), plan_u.n_grid
        )


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
    threads: int = 1,
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
    threads : int
        Threads the gridding may use (:func:`grid_into`; 0: the CPUs available).

    Returns
    -------
    (N, N) float64
    """
    plan_u, plan_v = direct_plans((plan_u, plan_v), on_block)  # numba: pruned u cells direct
    xu, xv, vis = half_plane_records(u, v, wvis, plan_u, plan_v, compress=compress, timer=timer)
    block_done(on_block)
    img = records_to_image(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block, threads=threads)
    return correct(img, plan_u, plan_v, timer)


def plans_dirty(u, v, wvis, plans, params, *, timer=None, on_block=None) -> np.ndarray:
    """:func:`separable_dirty` with an algorithm's (u, v) plans and its GridParams.

    ``params`` gives ``chunk``, ``compress`` and ``threads``; ``plans`` is what the algorithm's
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
        threads=params.threads,
    )
