"""The Hermitian half plane: where the gridders, the degridder and compression put records.

A grid of a real image is Hermitian, so only its u ≥ 0 half is gridded; a record with
u < 0 is mirrored, ``(u, v, V) → (−u, −v, V*)`` (DESIGN §1, Cotton 2014's "gridFlipKernel").
A degridder reads the half grid of its model (:func:`image_to_half`), the other half by
symmetry (:func:`read_half`): the separable degridders and w-projection's.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.gridders.correction import pixel_offsets


def half_plane_coords(xu, xv, n_u: int):
    """Wrap ξu into [−Mu/2, Mu/2] and mirror negative ξu: (ξu, ξv, mirrored mask).

    ``xu``, ``xv`` in grid cells (any array module); the mask says which records'
    visibilities are to be conjugated.
    """
    xp = get_xp(xu)
    xu = xu - n_u * xp.rint(xu / n_u)
    neg = xu < 0
    return xp.where(neg, -xu, xu), xp.where(neg, -xv, xv), neg


def padded_image(img, corr_u, corr_v, n_u: int, n_v: int) -> np.ndarray:
    """The corrected real image at cells ``(n_v mod Mv, n_u mod Mu)`` of a zero grid."""
    img = np.asarray(img, dtype=np.float64)
    n = pixel_offsets(img.shape[0])
    grid = np.zeros((n_v, n_u))
    grid[np.ix_(n % n_v, n % n_u)] = img * np.outer(corr_v, corr_u)
    return grid


def image_to_half(img, corr_u, corr_v, n_u: int, n_v: int) -> np.ndarray:
    """Correct, zero-pad and forward real-FFT a real (N, N) image.

    Returns
    -------
    (Mv, Mu/2 + 1) complex128
        ``F(kv, ku) = Σ_n img[n]·corr·exp(−2πi(kv·n_v/Mv + ku·n_u/Mu))``.
    """
    return np.fft.rfft2(padded_image(img, corr_u, corr_v, n_u, n_v))


def read_half(half: np.ndarray, rows, cols, n_u: int) -> np.ndarray:
    """``F(rows, cols)`` of the full periodic grid from its Hermitian half.

    ``rows`` are wrapped mod Mv; ``cols`` lie in [−Mu/2, Mu]: columns outside
    0 … Mu/2 read ``conj F(−row, −col)``.
    """
    n_v = half.shape[0]
    h = n_u // 2
    rows = rows % n_v
    inside = (cols >= 0) & (cols <= h)
    cm = np.where(cols < 0, -cols, n_u - cols)
    rm = (-rows) % n_v
    direct = half[rows, np.clip(cols, 0, h)]
    mirror = np.conj(half[rm, np.clip(cm, 0, h)])
    return np.where(inside, direct, mirror)
