"""NumPy references of the CUDA tile gridders and of the whole CUDA pipeline.

:func:`grid_bins_reference` performs, in float64 and vectorised, exactly the
arithmetic of ``grid_tile2d`` / ``grid_tile_row`` on binned records: window
starts recomputed from the tile-local positions, tap weights by the axis
rules, cells placed from the tile origin, and the flush's Hermitian fold.
:func:`emulate_dirty` chains it with :func:`~.cuda_binning.bin_reference`,
the NumPy pruner, ``numpy.fft.irfft2`` and
:func:`~.cuda_post.correct_crop_reference`: the CUDA pipeline step for step
on the CPU. The CPU tests check it against the NumPy gridders
(:mod:`uvlab.gpu.gridders.separable`), the GPU tests check the kernels
against it and against the NumPy gridders.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.cuda_binning import TileLayout, bin_reference
from uvlab.gpu.gridders.cuda_post import correct_crop_reference
from uvlab.gpu.gridders.cuda_rules import GpuChain


def local_footprint(binned: dict, chain: GpuChain) -> tuple[np.ndarray, np.ndarray]:
    """Tile-local window starts (k0u, k0v) the kernels recompute from the positions."""
    return (
        chain.rule_u.start_from_position(binned["pu"]),
        chain.rule_v.start_from_position(binned["pv"]),
    )


def grid_bins_reference(binned: dict, chain: GpuChain, layout: TileLayout) -> np.ndarray:
    """The half grid the tile kernels produce from binned records.

    Parameters
    ----------
    binned : dict
        From :func:`~uvlab.gpu.gridders.cuda_binning.bin_reference`.
    chain, layout

    Returns
    -------
    (n_v, n_u/2 + 1) complex128
        ``G(k) + conj G(−k)`` on the Hermitian half (twice
        :func:`~uvlab.gpu.gridders.half_image.fold_half`).
    """
    ru, rv, lay = chain.rule_u, chain.rule_v, layout
    k0u, k0v = local_footprint(binned, chain)
    wu = ru.weights(k0u, binned["pu"])
    wv = rv.weights(k0v, binned["pv"])
    tile = binned["key"] // lay.groups
    ou = (tile % lay.ntile_u) * lay.tile_u - 1
    ov = (tile // lay.ntile_u) * lay.tile_v - 1
    rows = (ov + k0v)[:, None] + np.arange(rv.support)  # (n, Sv), unwrapped
    cols = (ou + k0u - lay.pad)[:, None] + np.arange(ru.support)  # (n, Su): u cell k
    vals = binned["vis"][:, None, None] * wv[:, :, None] * wu[:, None, :]
    r = np.broadcast_to((rows % lay.n_v)[:, :, None], vals.shape).ravel()
    k = np.broadcast_to(cols[:, None, :], vals.shape).ravel()
    vals = vals.ravel()
    h, mu, mv = lay.n_u // 2, lay.n_u, lay.n_v
    out = np.zeros((mv, h + 1), dtype=np.complex128)
    direct = (k >= 0) & (k <= h)
    np.add.at(out, (r[direct], k[direct]), vals[direct])
    mirror = (k <= 0) | (k >= h)
    rm = (-r[mirror]) % mv
    km = np.where(k[mirror] <= 0, -k[mirror], mu - k[mirror])
    ok = (km >= 0) & (km <= h)
    np.add.at(out, (rm[ok], km[ok]), np.conj(vals[mirror][ok]))
    return out


def emulate_dirty(u, v, wvis, chain: GpuChain, layout: TileLayout) -> np.ndarray:
    """The CUDA pipeline in NumPy float64: bin, grid, prune, c2r FFT, correct + crop.

    Returns
    -------
    (N, N) float64, ``Re Σ wvis·exp(−2πi(u·l + v·m))``
    """
    binned = bin_reference(u, v, wvis, chain, layout)
    half = grid_bins_reference(binned, chain, layout)
    if chain.pruner_v is not None:
        half = chain.pruner_v.apply(half, axis=0)
    img = np.fft.irfft2(half, s=(chain.n_fft_v, chain.n_fft_u))
    scale = 0.5 * chain.n_fft_u * chain.n_fft_v
    return correct_crop_reference(img, chain.corr_u, chain.corr_v * scale, chain.npix)
