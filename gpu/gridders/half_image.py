"""The Hermitian half grid to the image: steps 3–5 of the separable chain (DESIGN §2).

The gridders (:mod:`~uvlab.gpu.gridders.separable`, w-stacking's and w-projection's
planes, a grid made in parts) grid onto a half plane with a few extra u columns;
:func:`fold_half` folds them back (Cotton 2014, "gridFlipKernel") into the exact Hermitian
half of ``(G(k) + G*(−k))/2``. :func:`half_to_uncorrected` then prunes it (Muscat's
pruners, :mod:`~uvlab.gpu.gridders.pruning`) and inverse-FFTs it
(:func:`half_to_image`: c2c along v keeping the N needed rows, c2r along u keeping N
columns, times ``Mu·Mv``), and :func:`correct` multiplies by the two axis correctors.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.blocks import BLOCK_CELLS, block_done, spans
from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.correction import pixel_offsets
from uvlab.gpu.gridders.pruning import flip_rows
from uvlab.gpu.timing import timed


def fold_half(
    ext: np.ndarray, n_u: int, pad: int, on_block=None, *, inplace: bool = False
) -> np.ndarray:
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
    inplace : bool
        Fold into ``ext`` itself (no grid-sized copy; ``ext`` is spent) and return a view
        of its columns ``pad … pad + Mu/2``; the values are those of the copy.

    Returns
    -------
    (Mv, Mu/2 + 1) complex
        Columns 0 … Mu/2 of ``F(k) = (G(k) + conj G(−k))/2`` with G the
        periodic full-plane grid.
    """
    h = n_u // 2
    if pad > h:
        raise ValueError(f"grid of {n_u} cells too small for {pad} fold columns")
    # u cells k = 0, −1, …, −pad mirror onto 0 … pad; k = Mu/2 + pad … Mu/2 onto
    # Mu/2 − pad … Mu/2 (copied first: in place, the scaling below overwrites them).
    left = ext[:, pad::-1]
    right = ext[:, 2 * pad + h : pad + h - 1 : -1]
    if inplace:
        left, right = left.copy(), right.copy()
        out = ext[:, pad : pad + h + 1]
    else:
        out = np.empty((ext.shape[0], h + 1), dtype=np.result_type(ext, 0.5))
    for rows in spans(ext.shape[0], BLOCK_CELLS // (h + 1)):
        block_done(on_block)
        np.multiply(0.5, ext[rows, pad : pad + h + 1], out=out[rows])
    out[:, : pad + 1] += 0.5 * np.conj(flip_rows(left))
    out[:, h - pad : h + 1] += 0.5 * np.conj(flip_rows(right))
    return out


def half_to_image(
    half: np.ndarray, n_u: int, npix: int, on_block=None, *, inplace: bool = False
) -> np.ndarray:
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
    inplace : bool
        Keep the v-transformed rows in ``half``'s first N rows (``half`` is spent): no
        (N, Mu/2 + 1) complex array beside the grid (0.49 GiB for a 2N PSF at 2880²,
        σ = 2); the values are the same.

    Returns
    -------
    (N, N) float64, ``[j, i]`` at offsets ``(j − N/2, i − N/2)``.
    """
    n_v = half.shape[0]
    n = pixel_offsets(npix)
    if inplace and half.dtype == np.complex128 and npix <= n_v:
        rows = half[:npix]  # a block's columns are read whole before its rows are written
    else:
        rows = np.empty((npix, half.shape[1]), dtype=np.complex128)
    for cols in spans(half.shape[1], BLOCK_CELLS // n_v):
        block_done(on_block)
        rows[:, cols] = np.fft.ifft(half[:, cols], axis=0)[n % n_v] * n_v
    # the u transform a block of rows at a time: no (N, Mu) temporary
    img = np.empty((npix, npix))
    for part in spans(npix, BLOCK_CELLS // n_u):
        block_done(on_block)
        img[part] = np.fft.irfft(rows[part], n=n_u, axis=1)[:, n % n_u] * n_u
    return img


def half_to_uncorrected(
    half: np.ndarray, plan_u: AxisPlan, plan_v: AxisPlan, timer=None, on_block=None, *,
    inplace: bool = False,
) -> np.ndarray:  # fmt: skip
    """Prune and inverse-FFT the Hermitian half grid: the uncorrected (N, N) image.

    Steps 3–4 of the separable chain; the caller corrects (:func:`correct`). ``inplace``:
    ``half`` is spent (:func:`half_to_image`'s).
    """
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
        return half_to_image(half, plan_u.n_fft, plan_u.npix, on_block, inplace=inplace)


def correct(img: np.ndarray, plan_u: AxisPlan, plan_v: AxisPlan, timer=None) -> np.ndarray:
    """Step 5, in place: ``img`` times the outer product of the two axis correctors."""
    with timed(timer, "correct"):
        img *= plan_v.corrector[:, None] * plan_u.corrector[None, :]
    return img
