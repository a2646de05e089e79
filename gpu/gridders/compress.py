"""Full compression of the records (Muscat 2021 §3.2.4, "Full Compression").

Records that fall in the same cell of the *virtual NN grid* are gridded
identically, so they can be summed before gridding with no effect on the
image: each occupied cell is then gridded once. Muscat sums every record of
the stream that lands on the same cell ("full compression", as opposed to
adding only neighbours of the stream), and all his GRecs/s figures are for
the compressed stream.

What a cell is follows the tap rule of each axis, so that the result is exact
(equal to the uncompressed image to float rounding):

- a nearest-cell axis (``nn``, ``nn-oversampled``, the v axis of ``hybrid``
  and ``pruned-nn``, the u axis of ``pruned-nn``) quantises a record to
  ``k = ⌊x + ½⌋``;
- a GCF table read by nearest lookup (hybrid's u axis by default, and the
  GPU's fused pruner rule of ``pruned-nn``) quantises it to the table point
  ``q = ⌊x·B + ½⌋``: the record is moved there before its taps are read
  (Muscat §2.4.2), which is why his virtual NN grid is Nβ × Nβ for hybrid too;
- an exact or linearly interpolated GCF (hybrid with ``exact`` or
  ``lookup="linear"``) does not quantise u: records are then merged only when
  their u (as stored: a record and its Hermitian twin are not merged) is
  identical and their v cell matches — exact, but it merges little.

The v axis must be a nearest-cell axis (every algorithm with one has it
there); ``conv`` cannot be compressed.

Keys are computed on the Hermitian half plane exactly as the gridders do
(:func:`~uvlab.gpu.gridders.separable.to_half_plane` on the CPU; the bin
kernel's arithmetic, with its ``pad`` shift of u and its wrap of v, on the
GPU), records are sorted by key and each run of equal keys summed
(:func:`segment_sum`: ``np.add.reduceat`` here, a one-thread-per-cell kernel
in ``gpu/kernels/grid_compress.cu`` on the GPU). Each cell comes back as one
record (u, v in wavelengths, float64; visibility complex128) placed at the
cell's own point, from which the gridder's rounding recovers the same cell.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.gridders.half_plane import half_plane_coords
from uvlab.gpu.gridders.tables import NearestTaps, TableTaps


@dataclass(frozen=True)
class CompressKey:
    """How records are keyed to cells of the virtual NN grid.

    Attributes
    ----------
    n_u, n_v : int
        Full lengths (cells) of the u and v axes of the gridded grid.
    scale_u, scale_v : float
        Cells per wavelength along u and v.
    units_u : int
        Quantisation points per u cell (1: nearest cell, B: a table read by
        nearest lookup); 0: u is not quantised (merged only when identical).
    pad : int
        The GPU bin kernel's u shift (columns): rounding is done at ``x + pad``.
    wrap_v : bool
        Wrap v into [0, n_v) before rounding (the GPU bin kernel's order).
    """

    n_u: int
    n_v: int
    scale_u: float
    scale_v: float
    units_u: int
    pad: int = 0
    wrap_v: bool = False


def rule_units(rule) -> int:
    """Quantisation points per cell of a tap rule (NumPy or GPU).

    1 for the nearest cell, B for a table read by nearest lookup, 0 for an
    exact or linearly interpolated kernel (no quantisation).
    """
    if isinstance(rule, NearestTaps):
        return 1
    if isinstance(rule, TableTaps):
        return int(rule.oversample) if rule.lookup == "nearest" else 0
    kind = getattr(rule, "kind", None)  # cuda_rules.AxisRule
    if kind == "nearest":
        return 1
    if kind == "table":
        return int(rule.oversample)
    return 0  # ExactTaps, "es", "linear"


def check_compressible(rule_v, name: str = "this algorithm") -> None:
    """ValueError unless the v axis is a nearest-cell axis (compression needs one)."""
    if not (isinstance(rule_v, NearestTaps) or getattr(rule_v, "kind", None) == "nearest"):
        raise ValueError(
            f"compress needs a nearest-cell axis (nn, nn-oversampled, hybrid, pruned-nn); "
            f"{name} has none"
        )


def key_from_plans(plan_u, plan_v) -> CompressKey:
    """The key of a NumPy chain (:class:`~uvlab.gpu.gridders.axis.AxisPlan` pair)."""
    check_compressible(plan_v.rule)
    return CompressKey(
        plan_u.n_grid,
        plan_v.n_grid,
        plan_u.n_grid * plan_u.cell_rad,
        plan_v.n_grid * plan_v.cell_rad,
        rule_units(plan_u.rule),
    )


def key_from_chain(chain, pad: int) -> CompressKey:
    """The key of a GPU chain, rounding as the bin kernel does (``pad`` from its layout)."""
    ru, rv = chain.rule_u, chain.rule_v
    check_compressible(rv)
    return CompressKey(ru.n_grid, rv.n_grid, ru.scale, rv.scale, rule_units(ru), pad, True)


@dataclass(frozen=True)
class Compressed:
    """Compressed records: one per occupied cell.

    Attributes
    ----------
    u, v : (ncell,) float64, wavelengths
    wvis : (ncell,) complex128
    n_in : int
        Records in (nonzero visibilities).
    """

    u: object
    v: object
    wvis: object
    n_in: int

    @property
    def n_out(self) -> int:
        return int(self.u.size)

    @property
    def ratio(self) -> float:
        """Records in ÷ records out (≥ 1)."""
        return self.n_in / self.n_out if self.n_out else float("nan")


def _xp(a):
    from uvlab.gpu.backend import get_xp

    return get_xp(a)


def cell_keys(u, v, key: CompressKey, xp=np):
    """Half-plane quantities and the int64 cell key of each record.

    Returns
    -------
    k : (n,) int64
        Equal for records of one cell, only for them.
    ku : (n,) int64 or None
        Quantised u (points of ``units_u`` per cell); None when not quantised.
    kv : (n,) int64
        v cell in [0, n_v).
    neg : (n,) bool
        The record is mirrored into the half plane ``(u, v, V) → (−u, −v, V*)``.
    """
    x, y, neg = half_plane_coords(u * key.scale_u, -(v * key.scale_v), key.n_u)
    if key.wrap_v:
        y = y - key.n_v * xp.floor(y / key.n_v)
    kv = xp.floor(y + 0.5).astype(xp.int64) % key.n_v
    if key.units_u:
        b = key.units_u
        ku = xp.floor((x + key.pad) * b + 0.5).astype(xp.int64) - key.pad * b
        width = (key.n_u // 2) * b + 1
        return kv * width + ku, ku, kv, neg
    # u not quantised: dense rank of the exact u values (records of one u share ``neg``).
    order = xp.argsort(u)
    us = u[order]
    new = xp.concatenate([xp.ones(1, dtype=bool), us[1:] != us[:-1]])
    rank = xp.empty(u.size, dtype=xp.int64)
    rank[order] = xp.cumsum(new, dtype=xp.int64) - 1
    return rank * key.n_v + kv, None, kv, neg


def segment_sum(vis, order, starts, xp=np):
    """Sum of ``vis[order[starts[s]:starts[s+1]]]`` for every segment s.

    Parameters
    ----------
    vis : (n,) complex128
    order : (n,) int64
        Record order (sorted by key).
    starts : (nseg,) int64
        First position in ``order`` of each segment, increasing, ``starts[0] = 0``.

    Returns
    -------
    (nseg,) complex128
    """
    if xp is np:
        return np.add.reduceat(vis[order], starts) if starts.size else vis[:0]
    from uvlab.gpu.cuda_compile import get_kernel, launch_1d

    nseg = int(starts.size)
    out = xp.empty(nseg, dtype=xp.complex128)
    ends = xp.concatenate([starts[1:], xp.asarray([order.size], dtype=xp.int64)])
    kernel = get_kernel("grid_compress.cu", "segment_sum")
    launch_1d(kernel, nseg, (vis, order, starts, ends, np.int64(nseg), out))
    return out


def compress(u, v, wvis, key: CompressKey) -> Compressed:
    """Sum the records of each cell (any array module; CuPy sums with a kernel).

    Parameters
    ----------
    u, v : (nvis,) float, wavelengths
    wvis : (nvis,) complex
        Weighted visibilities; zeros are dropped.
    key : CompressKey

    Returns
    -------
    Compressed
        In the inputs' array module. A gridder of the same chain gives the
        same image from it as from the inputs.
    """
    xp = _xp(u)
    u = xp.asarray(u, dtype=xp.float64).ravel()
    v = xp.asarray(v, dtype=xp.float64).ravel()
    vis = xp.asarray(wvis).ravel().astype(xp.complex128)
    nz = vis != 0
    if not bool(nz.all()):
        u, v, vis = u[nz], v[nz], vis[nz]
    n_in = int(u.size)
    if n_in == 0:
        return Compressed(u, v, vis, 0)
    k, ku, kv, neg = cell_keys(u, v, key, xp)
    vis = xp.where(neg, xp.conj(vis), vis)  # half-plane visibilities
    order = xp.argsort(k)
    ks = k[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), ks[1:] != ks[:-1]]))
    sums = segment_sum(vis, order, starts, xp)
    first = order[starts]
    kv = kv[first].astype(xp.float64)
    if ku is not None:
        # The cell's own point, in the half plane (never mirrored again).
        cu = (ku[first].astype(xp.float64) / key.units_u) / key.scale_u
        return Compressed(cu, -kv / key.scale_v, sums, n_in)
    # Exact u: keep the records' own u (so its rounding is reproduced bit for
    # bit) and give v and V in the orientation the gridder will mirror back.
    m = neg[first]
    cv = xp.where(m, kv / key.scale_v, -kv / key.scale_v)
    return Compressed(u[first], cv, xp.where(m, xp.conj(sums), sums), n_in)
