"""After the CUDA gridding: column pruner, c2r FFT, fused correction and crop.

- :func:`prune_rows` runs ``gpu/kernels/grid_post.cu``'s ``prune_rows``: the
  polyphase column pruner of Muscat (2021) alg. 2.7 along axis 0; its NumPy
  reference is :meth:`uvlab.gpu.gridders.pruning.Pruner.apply`.
- :func:`half_to_image` does one complex-to-real 2-D FFT of the Hermitian
  half grid (cuFFT through ``cupyx.scipy.fft.irfft2``, whose plans CuPy
  caches) and then :func:`correct_crop` in one kernel; the NumPy reference
  is :func:`correct_crop_reference` (and
  :func:`uvlab.gpu.gridders.half_image.half_to_image`).

The gridded half grid holds ``G(k) + conj G(−k)`` (twice the NumPy
``fold_half``), so the scale folded into the v corrector is
``½·Mu·Mv`` (undoing both that and the 1/(Mu·Mv) of the inverse FFT).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.cuda_compile import ctype
from uvlab.gpu.gridders.pruning import Pruner

#: Outputs per thread of the pruner, and the α with a compile-time kernel.
PRUNE_RB = 16
PRUNE_ALPHAS = (1, 2, 4, 8, 16)


def polyphase(pruner: Pruner) -> tuple[np.ndarray, int]:
    """Pruner taps as ``(shifts, α)`` blocks and the first shift (Muscat eq. 7.1)."""
    d = np.arange(-pruner.half, pruner.half + 1)
    s, a = d // pruner.alpha, d % pruner.alpha
    zs = np.zeros((s.max() - s.min() + 1, pruner.alpha))
    zs[s - s.min(), a] = pruner.taps
    return zs, int(s.min())


def prune_rows_reference(grid, pruner: Pruner) -> np.ndarray:
    """NumPy twin of the ``prune_rows`` kernel's polyphase sum (axis 0).

    ``out[c] = Σ_s Σ_a zs[s, a]·in[((c + s + smin) mod Mc)·α + a]``; equals
    :meth:`Pruner.apply` (``out[c] = Σ_d Z[d]·in[(c·α + d) mod Mf]``).
    """
    grid = np.asarray(grid)
    zs, smin = polyphase(pruner)
    mc = grid.shape[0] // pruner.alpha
    blocks = grid.reshape(mc, pruner.alpha, *grid.shape[1:])
    out = np.zeros((mc, *grid.shape[1:]), dtype=np.result_type(grid, np.complex128))
    c = np.arange(mc)
    for s in range(zs.shape[0]):
        out += np.tensordot(zs[s], blocks[(c + s + smin) % mc], axes=([0], [1]))
    return out


def correct_crop_reference(img, corr_u, corr_v, npix: int) -> np.ndarray:
    """``img[(j − N/2) mod Mv, (i − N/2) mod Mu]·corr_v[j]·corr_u[i]`` (NumPy)."""
    n = np.arange(npix) - npix // 2
    mv, mu = img.shape
    return img[np.ix_(n % mv, n % mu)] * np.outer(corr_v, corr_u)


def prune_rows(grid, pruner: Pruner, rb: int = PRUNE_RB):
    """Decimate axis 0 of a (α·Mc, C) cupy complex grid to (Mc, C) with the pruner.

    ``rb`` outputs per thread (registers hold them; each input row is loaded
    once per thread).
    """
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    mf, ncol = grid.shape
    alpha = pruner.alpha
    if mf % alpha:
        raise ValueError(f"axis of {mf} cells is not a multiple of α = {alpha}")
    mc = mf // alpha
    zs, smin = polyphase(pruner)
    if max(-smin, zs.shape[0] - 1 + smin) > mc:
        raise ValueError("pruning kernel wider than the pruned grid")
    real = np.float32 if grid.dtype == np.complex64 else np.float64
    ct = ctype(real)
    z = cupy.asarray(zs.ravel(), dtype=real)
    out = cupy.empty((mc, ncol), dtype=grid.dtype)
    blocks = (-(-ncol // 32), -(-mc // (8 * rb)))
    if alpha in PRUNE_ALPHAS and zs.shape[0] <= 64:
        name = f"prune_rows<{ct}, {alpha}, {zs.shape[0]}, {rb}>"
        args = (grid, out, z, np.int32(mc), np.int32(ncol), np.int32(smin))
    else:
        name = f"prune_rows_any<{ct}, {rb}>"
        args = (grid, out, z, np.int32(mc), np.int32(ncol), np.int32(smin), np.int32(alpha))
        args += (np.int32(zs.shape[0]),)
    get_kernel("grid_post.cu", name)(blocks, (32, 8), args)
    return out


def irfft2(half, n_v: int, n_u: int):
    """Unnormalised-by-caller c2r 2-D FFT: ``(1/(Mu·Mv)) Σ F·e^{+2πi…}``, (Mv, Mu) real."""
    try:
        import cupyx.scipy.fft as cufft

        return cufft.irfft2(half, s=(n_v, n_u), overwrite_x=True)
    except ImportError:  # pragma: no cover - cupyx always ships with cupy
        import cupy

        return cupy.fft.irfft2(half, s=(n_v, n_u))


def correct_crop(img, corr_u, corr_v, npix: int, real):
    """Fused correction and crop of the c2r output (one kernel).

    Parameters
    ----------
    img : (Mv, Mu) cupy float
    corr_u, corr_v : (N,) cupy ``real``, scale already folded into corr_v
    npix : int
    real : numpy.float32 or numpy.float64, output precision

    Returns
    -------
    (N, N) cupy ``real``
    """
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    mv, mu = img.shape
    out = cupy.empty((npix, npix), dtype=real)
    kern = get_kernel("grid_post.cu", f"correct_crop<{ctype(img.dtype)}, {ctype(real)}>")
    kern(
        (-(-npix // 256), npix),
        (256,),
        (img, out, corr_u, corr_v, np.int32(npix), np.int32(mu), np.int32(mv)),
    )
    return out
