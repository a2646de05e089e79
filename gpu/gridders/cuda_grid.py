"""The CUDA gridding pipeline: sort / bin → tile gridding → prune → c2r FFT → correct.

One function, :func:`dirty_chain`, runs a :class:`~uvlab.gpu.gridders.cuda_rules.GpuChain`
on cupy arrays, keeping everything on the device:

0. **compress** (``compress=True``) — records of one nearest cell summed
   (:mod:`~uvlab.gpu.gridders.compress`: cupy.argsort by cell key and a
   segment-sum kernel, ``gpu/kernels/grid_compress.cu``);
1. **sort / bin** — counting sort of the records by grid tile
   (:mod:`~uvlab.gpu.gridders.cuda_binning`) and the subproblem list;
2. **grid** — zero the Hermitian half grid, then one thread block per
   subproblem accumulates into a shared-memory tile with register-held
   running sums and conflict-free cell ownership (Romein 2012; Muscat 2021
   §4.1), and adds the tile to the grid with one vector atomic per nonzero
   cell (``gpu/kernels/grid_tiles.cu``): ``grid_tile2d`` for S×S windows,
   ``grid_tile_row`` when v is the nearest cell (hybrid, pruned-nn, nn);
3. **prune** — the column pruner (hybrid, pruned-nn);
4. **FFT** — one c2r 2-D cuFFT of the half grid;
5. **correct** — correction and crop fused in one kernel.

:class:`KernelConfig` holds the tunables (tile sizes, records per
subproblem, threads of the one-row kernel); the defaults were chosen on an
H200 (BENCHMARKS.md, gridding section).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from uvlab.gpu.cuda_compile import ctype
from uvlab.gpu.gridders.compress import compress as compress_records
from uvlab.gpu.gridders.compress import key_from_chain
from uvlab.gpu.gridders.cuda_binning import (
    TileLayout,
    bin_records,
    fill_bins,
    make_layout,
    plan_bins,
    subproblems,
)
from uvlab.gpu.gridders.cuda_post import correct_crop, irfft2, prune_rows
from uvlab.gpu.gridders.cuda_rules import AxisRule, GpuChain
from uvlab.gpu.timing import timed

#: Static shared memory a block may use without opting in.
SHARED_LIMIT = 48 * 1024
#: Shared bytes the owner groups' tile copies of grid_tile2d may take together.
GROUP_TILE_BYTES = 16 * 1024


@dataclass(frozen=True)
class KernelConfig:
    """Tunables of the tile gridders.

    Attributes
    ----------
    tile_2d : (int, int)
        Window starts per tile (u, v) of ``grid_tile2d``.
    maxsub_2d : int
        Records per thread block of ``grid_tile2d``.
    tile_row : (int, int)
        Tile of ``grid_tile_row`` (v in cells of the fine grid).
    maxsub_row : int
        Records per thread group of ``grid_tile_row``.
    threads_row : int
        Threads of ``grid_tile_row``: P = threads_row // S groups of S.
    batch_2d : int
        Records staged per batch by ``grid_tile2d`` (0: the most that fit).
    prune_rb : int
        Outputs per thread of the column pruner.
    groups_2d : bool
        Small windows (2·S² ≤ the block's threads): several owner groups per block,
        each with its own tile copy (:func:`tile_groups`); False: one group.
    threads_2d : int
        Threads of a ``grid_tile2d`` block (0: the S² owners rounded up to 32, at least 64).
    """

    tile_2d: tuple[int, int] = (16, 16)
    maxsub_2d: int = 1024
    tile_row: tuple[int, int] = (32, 32)
    maxsub_row: int = 128
    threads_row: int = 64
    batch_2d: int = 32
    prune_rb: int = 16
    groups_2d: bool = True
    threads_2d: int = 0


def _round32(n: int) -> int:
    return -(-n // 32) * 32


def block_threads(su: int, sv: int, rb: int) -> int:
    """Threads of a ``grid_tile2d`` block: 128 for 9…36 taps, else the S² owners rounded up to a
    warp, at least 64.

    Measured on an H100 at 4096² (BENCHMARKS.md): 128 threads with their owner groups beat
    64 there (S = 6 single 2.83 → 2.37 ms, S = 4 double 2.70 → 2.19 ms, S = 6 double with two
    groups 4.07 → 3.65 ms) and lost above.
    """
    taps = su * sv
    if 9 <= taps <= 36:
        return 128
    return max(64, _round32(taps))


def tile_groups(rb: int, su: int, sv: int, tile: tuple[int, int], nt: int) -> int:
    """G: owner groups of grid_tile2d, each with its own tile copy.

    As many groups of S×S threads as the block's ``nt`` threads hold (at most 8;
    so 1 from S = 6 on a 64-thread block), while their tiles take at most
    :data:`GROUP_TILE_BYTES` of shared memory; but two where the block holds two (double
    precision at S = 6: 3.65 ms against 4.07 with one, on an H100).
    """
    taps = su * sv
    one = (tile[1] + sv + 1) * (tile[0] + su + 1) * 2 * rb
    fit = min(nt // taps, 8, GROUP_TILE_BYTES // one)
    return max(1, fit, min(2, nt // taps))  # two groups even past the budget (≤ 2 tiles)


def batch_records(rb: int, su: int, sv: int, tile: tuple[int, int], groups: int = 1) -> int:
    """Records staged per batch by grid_tile2d so its shared memory fits (0: none)."""
    tile_bytes = groups * (tile[1] + sv + 1) * (tile[0] + su + 1) * 2 * rb
    for r in (128, 64, 32):
        if tile_bytes + r * (16 + 4 * rb + rb * (su + sv)) <= SHARED_LIMIT:
            return r
    return 0


@dataclass(frozen=True, eq=False)
class DeviceChain:
    """A chain's small device arrays in one precision (correctors, tables)."""

    corr_u: object
    corr_v: object
    table_u: object
    table_v: object


@lru_cache(maxsize=32)
def device_chain(chain: GpuChain, real, scaled: bool = True) -> DeviceChain:
    """Correctors and tables on the device, cached.

    ``scaled``: the gridder's scale ½·Mu·Mv folded into v; the degridder
    (whose forward FFT is unnormalised) takes them unscaled.
    """
    import cupy

    scale = 0.5 * chain.n_fft_u * chain.n_fft_v if scaled else 1.0

    def table(rule: AxisRule):
        data = rule.table if rule.table is not None else np.zeros(1)
        return cupy.asarray(data, dtype=real)

    return DeviceChain(
        cupy.asarray(chain.corr_u, dtype=real),
        cupy.asarray(chain.corr_v * scale, dtype=real),
        table(chain.rule_u),
        table(chain.rule_v),
    )


def plan_layout(chain: GpuChain, config: KernelConfig) -> tuple[TileLayout, int]:
    """Tile layout and records per subproblem of a chain's gridding kernel."""
    if chain.one_row:
        groups = max(1, config.threads_row // chain.rule_u.support)
        return make_layout(chain, config.tile_row, groups), config.maxsub_row
    return make_layout(chain, config.tile_2d), config.maxsub_2d


def grid_records(
    recs, counts, offsets, subs, chain, layout, maxsub, dev, real, config=None, gather=None
):
    """Launch the tile gridder on binned records; returns the (Mv, Mu/2 + 1) cupy half grid.

    ``subs`` is the (sub_tile, sub_chunk) pair of :func:`subproblems`; ``config`` the
    :class:`KernelConfig` (batch, owner groups and threads of ``grid_tile2d``).
    ``gather`` (``grid_tile2d`` only): ``(code, wvis)`` of a reused bin plan, each slot's
    visibility read from ``wvis`` (complex of ``real``'s precision) as records are staged,
    in place of the records' own (:func:`fused_fill`).
    """
    config = config or KernelConfig()
    batch, groups, threads = config.batch_2d, config.groups_2d, config.threads_2d
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    ru, rv = chain.rule_u, chain.rule_v
    cplx = np.complex64 if np.dtype(real) == np.float32 else np.complex128
    half = cupy.zeros((layout.n_v, layout.n_u // 2 + 1), dtype=cplx)
    sub_tile, sub_chunk = subs
    if sub_tile.size == 0:
        return half
    ct = ctype(real)
    common = (recs, offsets, counts, sub_tile, sub_chunk, np.int32(maxsub), half)
    common += (np.int32(layout.ntile_u), np.int32(layout.n_u), np.int32(layout.n_v))
    common += (np.int32(layout.pad),)
    u_args = (real(ru.beta), dev.table_u, np.int32(ru.oversample), np.int32(ru.half))
    tu, tv = layout.tile_u, layout.tile_v
    if chain.one_row:
        if gather is not None:
            raise ValueError("a gathered fill needs the 2-D tile gridder")
        su, p = ru.support, layout.groups
        nt = _round32(su * p)
        name = f"grid_tile_row<{ct}, {ru.rule_id}, {su}, {p}, {tu}, {tv}, {nt}>"
        args = common + u_args
    else:
        su, sv = ru.support, rv.support
        rb = np.dtype(real).itemsize
        nt = max(threads, _round32(su * sv)) if threads else block_threads(su, sv, rb)
        g = tile_groups(rb, su, sv, (tu, tv), nt) if groups else 1
        r = batch_records(rb, su, sv, (tu, tv), g)
        r = min(r, batch * (2 if g > 1 else 1)) if batch else r
        if r == 0:
            raise ValueError(f"support {su}×{sv} does not fit shared memory with tile {tu}×{tv}")
        name = (
            f"grid_tile2d<{ct}, {ru.rule_id}, {su}, {rv.rule_id}, {sv}, {tu}, {tv}, {nt}, {r}, {g}>"
        )
        v_args = (real(rv.beta), dev.table_v, np.int32(rv.oversample), np.int32(rv.half))
        code, wvis = gather if gather is not None else (np.uint64(0), np.uint64(0))
        args = common + u_args + v_args + (code, wvis)
    get_kernel("grid_tiles.cu", name)((int(sub_tile.size),), (nt,), args)
    return half


def fused_fill(chain: GpuChain) -> bool:
    """Whether a reused plan's visibilities are gathered by the grid kernel itself (the 2-D
    tile gridder) rather than filled into the records first (``bin_fill``).

    H100, 4096², 1.94e7 visibilities, conv ε = 1e-5 single: the separate fill took 0.44 ms.
    """
    return not chain.one_row


def _as_inputs(u, v, wvis, cplx):
    import cupy

    def real_in(a):
        a = cupy.asarray(a)
        ok = a.dtype in (np.float32, np.float64)
        return cupy.ascontiguousarray(a if ok else a.astype(np.float64))

    w = cupy.asarray(wvis)
    if w.dtype not in (np.complex64, np.complex128):
        w = w.astype(cplx)
    return real_in(u).ravel(), real_in(v).ravel(), cupy.ascontiguousarray(w).ravel()


def chain_plan(u, v, chain: GpuChain, *, precision="double", config=None, timer=None):
    """A :class:`~uvlab.gpu.gridders.cuda_binning.BinPlan` of (u, v) for ``chain``.

    :func:`dirty_chain` with ``plan=`` then grids any visibilities at these
    points without sorting them again (only :func:`~uvlab.gpu.gridders.cuda_binning.fill_bins`).
    """
    import cupy

    real = np.float32 if precision == "single" else np.float64
    config = config or KernelConfig()
    u, v, _ = _as_inputs(u, v, cupy.zeros(0, dtype=np.complex64), np.complex64)
    layout, maxsub = plan_layout(chain, config)
    with timed(timer, "sort / bin"):
        return plan_bins(u, v, chain, layout, real, maxsub)


def dirty_chain(
    u, v, wvis, chain: GpuChain, *, precision="double", timer=None, config=None, plan=None,
    compress=False,
):  # fmt: skip
    """Unnormalised dirty image ``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the GPU.

    Parameters
    ----------
    u, v : (nvis,) float32/float64 (cupy or numpy), wavelengths
    wvis : (nvis,) complex (cupy or numpy)
    chain : GpuChain
    precision : {"single", "double"}
        float32 records, complex64 grid and float32 accumulation, or float64.
    timer : StageTimer, optional
    config : KernelConfig, optional
    plan : BinPlan, optional
        The sort / bin of these (u, v) for this chain, precision and config
        (:func:`chain_plan`): only the visibilities are written into it.
    compress : bool
        Sum the records of each nearest cell before the bin (stage
        "compress"); ValueError unless the v rule is the nearest cell, and
        with a ``plan`` (made of the uncompressed points).

    Returns
    -------
    (N, N) cupy float32 or float64
    """
    import cupy

    if precision not in ("single", "double"):
        raise ValueError(f"precision must be 'single' or 'double', got {precision!r}")
    real = np.float32 if precision == "single" else np.float64
    cplx = np.complex64 if precision == "single" else np.complex128
    config = config or KernelConfig()
    u, v, wvis = _as_inputs(u, v, wvis, cplx)
    dev = device_chain(chain, real)
    layout, maxsub = plan_layout(chain, config)
    if u.size == 0:
        return cupy.zeros((chain.npix, chain.npix), dtype=real)
    if compress and plan is not None:
        raise ValueError("a bin plan holds the uncompressed points: compress without one")
    if compress:
        key = key_from_chain(chain, layout.pad)
        with timed(timer, "compress"):
            c = compress_records(u, v, wvis, key)
        u, v, wvis = c.u, c.v, c.wvis  # float64 / complex128: the cells' points exactly
    gather = None
    with timed(timer, "sort / bin"):
        if plan is not None and fused_fill(chain):  # gathered by the grid kernel
            gather = (plan.code, cupy.ascontiguousarray(wvis.astype(cplx, copy=False)))
            recs, counts, offsets, subs = plan.recs, plan.counts, plan.offsets, plan.subs
        elif plan is not None:  # the same points: the new visibilities into their slots
            recs, counts, offsets, subs = (
                fill_bins(plan, wvis),
                plan.counts,
                plan.offsets,
                plan.subs,
            )
        else:
            recs, counts, offsets = bin_records(u, v, wvis, chain, layout, real)
            subs = subproblems(counts, layout.groups, maxsub, cupy)
    with timed(timer, "grid"):
        half = grid_records(
            recs, counts, offsets, subs, chain, layout, maxsub, dev, real, config, gather
        )
    del recs
    if chain.pruner_v is not None:
        with timed(timer, "prune"):
            half = prune_rows(half, chain.pruner_v, config.prune_rb)
    with timed(timer, "FFT"):
        img = irfft2(half, chain.n_fft_v, chain.n_fft_u)
    del half
    with timed(timer, "correct"):
        return correct_crop(img, dev.corr_u, dev.corr_v, chain.npix, real)
