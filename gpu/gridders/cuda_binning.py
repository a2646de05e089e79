"""The "sort / bin" stage of the CUDA gridders, with its NumPy reference.

Records are moved to the Hermitian half plane (as
:func:`~uvlab.gpu.gridders.separable.to_half_plane`), their window starts
computed by the axis rules, and they are counting-sorted by grid tile
(``gpu/kernels/grid_bin.cu``; Muscat 2021 ch. 3 pre-processing, cuFINUFFT's
bin sort). A tile covers ``tile_u × tile_v`` window starts; the u axis is
offset by ``pad`` extra columns so that windows straddling u = 0 start at
a non-negative column. The packed record holds the tile-local positions
(float32 keeps ~2e-6 cells there, where an absolute float32 coordinate near
4096 would be off by 1e-4 cells) and the visibility. The
tile's records are then cut into subproblems of at most ``maxsub`` records
each (one thread block each).

:func:`bin_reference` and :func:`subproblems` (any array module) are the
NumPy references the CPU tests check; :func:`bin_records` runs the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.cuda_compile import ctype
from uvlab.gpu.gridders.cuda_rules import TABLE_KINDS, AxisRule, GpuChain


@dataclass(frozen=True)
class TileLayout:
    """Grid and tile geometry of one gridding call.

    Attributes
    ----------
    n_u, n_v : int
        Full lengths of the u (half-plane) and v axes of the gridded grid.
    pad : int
        Extra u columns each side (window starts ≥ 0).
    tile_u, tile_v : int
        Window starts per tile along u and v.
    groups : int
        P: records of a tile are split by local row mod P (one-row kernel).
    """

    n_u: int
    n_v: int
    pad: int
    tile_u: int
    tile_v: int
    groups: int = 1

    @property
    def width(self) -> int:
        """Columns of the extended half grid: ``n_u/2 + 1 + 2·pad``."""
        return self.n_u // 2 + 1 + 2 * self.pad

    @property
    def ntile_u(self) -> int:
        return -(-self.width // self.tile_u)

    @property
    def ntile_v(self) -> int:
        return -(-self.n_v // self.tile_v)

    @property
    def ntiles(self) -> int:
        return self.ntile_u * self.ntile_v

    @property
    def nkeys(self) -> int:
        return self.ntiles * self.groups


def make_layout(chain: GpuChain, tile: tuple[int, int], groups: int = 1) -> TileLayout:
    """The layout of a chain's grid with ``tile = (tile_u, tile_v)``."""
    pad = chain.rule_u.support // 2 + 2
    return TileLayout(chain.rule_u.n_grid, chain.rule_v.n_grid, pad, tile[0], tile[1], groups)


def iparams(layout: TileLayout, ru: AxisRule, rv: AxisRule) -> np.ndarray:
    """(16,) int32 parameter block of the bin kernels (see grid_bin.cu)."""
    return np.array(
        [
            layout.n_u,
            layout.n_v,
            layout.pad,
            ru.rule_id,
            ru.support,
            ru.oversample,
            ru.half,
            rv.rule_id,
            rv.support,
            rv.oversample,
            rv.half,
            layout.tile_u,
            layout.tile_v,
            layout.ntile_u,
            layout.ntile_v,
            layout.groups,
        ],
        dtype=np.int32,
    )


def _units(rule: AxisRule) -> int:
    """Position units per cell: B for a table rule (q or x·B), else 1."""
    return rule.oversample if rule.kind in TABLE_KINDS else 1


def bin_reference(u, v, wvis, chain: GpuChain, layout: TileLayout) -> dict:
    """NumPy float64 twin of the bin kernels' per-record computation.

    Parameters
    ----------
    u, v : (nvis,) float, wavelengths
    wvis : (nvis,) complex
    chain, layout : as for the kernels

    Returns
    -------
    dict of (nrec,) arrays over records with nonzero wvis:
    ``key`` (int64), local positions ``pu``, ``pv``, ``vis`` (complex128,
    conjugated where mirrored), absolute window starts ``k0u`` (extended
    columns) and ``k0v`` (in [0, n_v)), and ``index`` into the input.
    """
    ru, rv, lay = chain.rule_u, chain.rule_v, layout
    vis = np.asarray(wvis, dtype=np.complex128)
    index = np.flatnonzero(vis != 0)
    vis = vis[index]
    xu = np.asarray(u, dtype=np.float64)[index] * ru.scale
    xu = xu - lay.n_u * np.rint(xu / lay.n_u)
    xv = -(np.asarray(v, dtype=np.float64)[index] * rv.scale)
    neg = xu < 0
    xu, xv, vis = np.where(neg, -xu, xu), np.where(neg, -xv, xv), np.where(neg, np.conj(vis), vis)
    xv = xv - lay.n_v * np.floor(xv / lay.n_v)
    k0u, pu = ru.window(xu + lay.pad)
    k0v, pv = rv.window(xv)
    wrap = np.floor_divide(k0v, lay.n_v)
    k0v = k0v - wrap * lay.n_v
    pv = pv - wrap * lay.n_v * _units(rv)
    tu = np.clip(k0u // lay.tile_u, 0, lay.ntile_u - 1)
    tv = np.clip(k0v // lay.tile_v, 0, lay.ntile_v - 1)
    ou, ov = tu * lay.tile_u - 1, tv * lay.tile_v - 1
    res = (k0v - ov) % lay.groups
    return {
        "key": (tv * lay.ntile_u + tu) * lay.groups + res,
        "pu": pu - ou * _units(ru),
        "pv": pv - ov * _units(rv),
        "vis": vis,
        "k0u": k0u,
        "k0v": k0v,
        "index": index,
    }


def counting_sort_reference(keys, nkeys: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, counts, offsets) of a stable counting sort of ``keys`` (NumPy)."""
    keys = np.asarray(keys, dtype=np.int64)
    counts = np.bincount(keys, minlength=nkeys)
    offsets = np.cumsum(counts) - counts
    return np.argsort(keys, kind="stable"), counts, offsets


def subproblems(counts, groups: int, maxsub: int, xp=np):
    """Cut each tile's records into thread-block subproblems (any array module).

    Parameters
    ----------
    counts : (ntiles·groups,) int
        Records per bin key ``tile·groups + g``.
    groups : int
    maxsub : int
        Records per subproblem (per group for ``groups`` > 1).

    Returns
    -------
    sub_tile, sub_chunk : (nsub,) int32
        Tile and chunk index of each subproblem, chunk c covering records
        ``c·maxsub … (c+1)·maxsub − 1`` of the tile (of each group).
    """
    if xp is not np and hasattr(xp, "RawKernel"):
        return _subproblems_cuda(counts, groups, maxsub)
    cnt = counts.reshape(-1, groups).max(axis=1)
    nsub = (cnt + (maxsub - 1)) // maxsub
    ends = xp.cumsum(nsub)
    total = int(ends[-1]) if ends.size else 0
    idx = xp.arange(total, dtype=ends.dtype)
    tile = xp.searchsorted(ends, idx, side="right")
    chunk = idx - (ends - nsub)[tile]
    return tile.astype(xp.int32), chunk.astype(xp.int32)


def _subproblems_cuda(counts, groups: int, maxsub: int):
    """:func:`subproblems` in two kernels and a scan (grid_bin.cu ``bin_nsub``, ``bin_subs``):
    ~0.05 ms where the array-module version's seven launches took ~0.26 ms (H100)."""
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    ntiles = int(counts.size) // groups
    nsub = cupy.empty(ntiles, dtype=cupy.int32)
    blocks = (max(1, -(-ntiles // 256)),)
    get_kernel("grid_bin.cu", "bin_nsub")(
        blocks, (256,), (cupy.ascontiguousarray(counts, dtype=cupy.int32), np.int32(ntiles),
                         np.int32(groups), np.int32(maxsub), nsub)
    )  # fmt: skip
    ends = cupy.cumsum(nsub, dtype=cupy.int64)
    total = int(ends[-1]) if ntiles else 0
    tile = cupy.empty(total, dtype=cupy.int32)
    chunk = cupy.empty(total, dtype=cupy.int32)
    get_kernel("grid_bin.cu", "bin_subs")(
        blocks, (256,), (nsub, ends, np.int32(ntiles), tile, chunk)
    )
    return tile, chunk


@dataclass(frozen=True, eq=False)
class BinPlan:
    """The sort / bin of one set of (u, v), to grid other visibilities at the same points.

    Every record is binned, zero or not, so the plan does not depend on the
    visibilities; :func:`fill_bins` writes new ones into ``recs``.

    Attributes
    ----------
    recs : (nvis, 4) cupy real
        ``(pu, pv, re, im)`` sorted by key; ``re, im`` those of the last fill.
    counts, offsets : (nkeys,) cupy int32
    code : (nvis,) cupy int32
        ``2·i + mirrored`` of the input record i in each sorted slot (every
        record is binned, so this is a permutation).
    subs : (sub_tile, sub_chunk)
        The subproblems (:func:`subproblems`).
    nvis : int
    """

    recs: object
    counts: object
    offsets: object
    code: object
    subs: tuple
    nvis: int


def plan_bins(u, v, chain: GpuChain, layout: TileLayout, real, maxsub: int) -> BinPlan:
    """Bin every record of (u, v) once; :func:`fill_bins` then reuses it for any visibilities."""
    import cupy

    n = int(u.size)
    if n >= 2**30:
        raise ValueError(f"{n} records: a bin plan codes destinations in int32 (< 2^30)")
    ones = cupy.ones(n, dtype=np.complex64 if np.dtype(real) == np.float32 else np.complex128)
    recs, counts, offsets, code = bin_records(u, v, ones, chain, layout, real, plan=True)
    subs = subproblems(counts, layout.groups, maxsub, cupy)
    return BinPlan(recs, counts, offsets, code, subs, n)


def fill_bins(plan: BinPlan, wvis):
    """Write ``wvis`` (nvis,) complex into the plan's sorted records; returns ``plan.recs``."""
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    if int(wvis.size) != plan.nvis:
        raise ValueError(f"{wvis.size} visibilities for a plan of {plan.nvis} records")
    tvis, tout = ctype(wvis.dtype), ctype(plan.recs.dtype)
    fill = get_kernel("grid_bin.cu", f"bin_fill<{tvis}, {tout}>")
    blocks = (max(1, -(-plan.nvis // 256)),)
    fill(blocks, (256,), (cupy.ascontiguousarray(wvis), np.int64(plan.nvis), plan.code, plan.recs))
    return plan.recs


def fill_reference(code, wvis, recs) -> np.ndarray:
    """NumPy twin of ``bin_fill``: ``recs`` (nvis, 4) with each slot's new (re, im)."""
    recs = np.array(recs, dtype=np.float64, copy=True)
    code = np.asarray(code)
    vis = np.asarray(wvis, dtype=np.complex128)[code >> 1]
    recs[:, 2] = vis.real
    recs[:, 3] = np.where(code & 1, -vis.imag, vis.imag)
    return recs


def bin_records(u, v, wvis, chain: GpuChain, layout: TileLayout, real, plan: bool = False):
    """Counting-sort records by tile on the GPU (kernels of grid_bin.cu).

    Parameters
    ----------
    u, v : (nvis,) cupy float32 or float64, wavelengths
    wvis : (nvis,) cupy complex64 or complex128
    chain, layout
    real : numpy.float32 or numpy.float64
        Precision of the packed records.
    plan : bool
        Keep records whose visibility is zero, and return each record's
        destination code too (:func:`plan_bins`).

    Returns
    -------
    recs : (nvis, 4) cupy ``real``
        ``(pu, pv, re, im)`` sorted by key (rows past the last record unused).
    counts, offsets : (nkeys,) cupy int32
    code : (nvis,) cupy int32, with ``plan`` only
        ``2·i + mirrored`` of the input record in each sorted slot.
    """
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    n = int(u.size)
    if n >= 2**31 - 1:
        raise ValueError(f"{n} records: the bin kernels index with int32 (< 2^31)")
    tin, tvis, tout = ctype(u.dtype), ctype(wvis.dtype), ctype(real)
    ip = cupy.asarray(iparams(layout, chain.rule_u, chain.rule_v))
    scales = (np.float64(chain.rule_u.scale), np.float64(chain.rule_v.scale))
    counts = cupy.zeros(layout.nkeys, dtype=cupy.int32)
    rank = cupy.empty(n, dtype=cupy.int32)
    recs = cupy.empty((n, 4), dtype=real)
    blocks = (max(1, -(-n // 256)),)
    count = get_kernel("grid_bin.cu", f"bin_count<{tin}, {tvis}>")
    keep = np.int32(1 if plan else 0)
    count(blocks, (256,), (u, v, wvis, np.int64(n), *scales, ip, keep, counts, rank))
    offsets = (cupy.cumsum(counts, dtype=cupy.int64) - counts).astype(cupy.int32)
    scatter = get_kernel("grid_bin.cu", f"bin_scatter<{tin}, {tvis}, {tout}>")
    code = cupy.empty(n, dtype=cupy.int32) if plan else None
    args = (u, v, wvis, np.int64(n), *scales, ip, keep, offsets, rank, recs)
    scatter(blocks, (256,), (*args, code if plan else np.uint64(0)))
    return (recs, counts, offsets, code) if plan else (recs, counts, offsets)
