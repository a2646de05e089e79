"""The exact reference image: a direct Fourier sum per pixel, in float64.

``I(l, m) = Re Σ_k wvis_k · exp(−2πi·(u_k·l + v_k·m [+ w_k·(n − 1)]))``

Without the w-term the kernel is separable, ``exp(−2πi u l)·exp(−2πi v m)``,
so the sum over visibilities is one matrix product per chunk:
``I[j, i] = Re Σ_k B[k, j]·wvis_k·A[k, i]`` with ``A = exp(−2πi u l_i)`` and
``B = exp(−2πi v m_j)``. This is still the exact DFT (no approximation),
just evaluated in O(N·nvis) phase factors plus a GEMM. Only the real part is
wanted, so the product is a real one of the interleaved (re, im) pairs:
``Re(b·a) = Re(conj b)·Re a + Im(conj b)·Im a``, i.e. ``conj(B)`` and ``wvis·A``
viewed as float64 (half the flops of a complex GEMM; on the GPU cuBLAS's complex
product, as before).
On the CPU the phase factors come by recurrence along the evenly spaced l and
m axes (:func:`uvlab.gpu.gridders.phasors.axis_phasors`: one exponential per
16 columns instead of one per column), over cache-sized blocks of visibilities
(:data:`CPU_BLOCK_BYTES`), and a small image's product (a subsampled reference) is
the numba rung's one-thread loop where numba imports (:data:`JIT_PRODUCT_PIXELS`).
With the w-term, every pixel is summed directly.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.blocks import block_done
from uvlab.gpu.gridders.phasors import axis_phasors
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed

#: Bytes of phase factors per block of visibilities on the CPU (the l and m factors of a
#: block stay in cache between their making and the matrix product).
CPU_BLOCK_BYTES = 4 * 2**20
#: Images of at most this many pixels take the numba rung's product
#: (:func:`~uvlab.gpu.gridders.jit_kernels.dot_rows`, one thread) where it runs; larger
#: ones, and the NumPy rung, BLAS's. BLAS's threads, on a product this small and a
#: loaded 2-core machine, took 0.2–7 s where the loop takes 0.6 s (the default scene's
#: reference: 32² pixels, 1.45e6 visibilities).
JIT_PRODUCT_PIXELS = 64 * 64


def dirty_dft(
    u, v, wvis, spec: ImageSpec, *, w=None, wterm: bool = False, pixels=None, chunk: int = 65536,
    on_block=None,
):  # fmt: skip
    """Unnormalised exact dirty image on ``spec``'s grid.

    Parameters
    ----------
    u, v, w : (nvis,) float
        Coordinates in wavelengths (numpy or cupy; the result follows).
    wvis : (nvis,) complex
        Weighted visibilities.
    spec : ImageSpec
    wterm : bool
        Include ``w·(n − 1)`` (requires ``w``); slower: O(N²·nvis) exponentials.
    pixels : int, optional
        Evaluate only every ``pixels``-th row and column (a labelled,
        subsampled reference for large images on the CPU). The result then
        has shape ``(ceil(N/k), ceil(N/k))`` at pixels ``0, k, 2k, ...``.
    chunk : int
        Visibilities per matrix product (bounds memory).
    on_block : callable() -> None, optional
        Called before each chunk (a cancel check, :mod:`uvlab.gpu.blocks`).

    Returns
    -------
    (N, N) or subsampled float64 array: ``img[j, i]`` at ``l_i``, ``m_j``.
    """
    xp = get_xp(u)
    step = int(pixels or 1)
    lax = xp.asarray(spec.l_axis()[::step])
    max_ = xp.asarray(spec.m_axis()[::step])
    u = xp.asarray(u, dtype=xp.float64)
    v = xp.asarray(v, dtype=xp.float64)
    wvis = xp.asarray(wvis, dtype=xp.complex128)
    out = xp.zeros((max_.size, lax.size), dtype=xp.float64)
    if wterm:
        if w is None:
            raise ValueError("wterm=True needs w coordinates")
        w = xp.asarray(w, dtype=xp.float64)
        ll, mm = xp.meshgrid(lax, max_)
        nm1 = xp.sqrt(xp.clip(1.0 - ll * ll - mm * mm, 0.0, None)) - 1.0
        for s in range(0, u.size, max(1, chunk // 64)):
            block_done(on_block)
            e = slice(s, s + max(1, chunk // 64))
            ph = u[e, None, None] * ll + v[e, None, None] * mm + w[e, None, None] * nm1
            out += xp.real(xp.tensordot(wvis[e], xp.exp(-2j * np.pi * ph), axes=1))
        return out
    lax, max_ = spec.l_axis()[::step], spec.m_axis()[::step]
    block = chunk
    if xp is np:  # cache-sized blocks of the chunk
        block = max(512, CPU_BLOCK_BYTES // (16 * (lax.size + max_.size)))
    for s in range(0, u.size, chunk):
        block_done(on_block)
        for b0 in range(s, min(u.size, s + chunk), block):
            e = slice(b0, min(u.size, s + chunk, b0 + block))
            a = axis_phasors(u[e], lax, -1)  # (nl, n): exp(−2πi u l)
            a *= wvis[None, e]
            b = axis_phasors(v[e], max_, +1)  # (nm, n): conj exp(−2πi v m)
            _accumulate(out, b, a)
    return out


def _accumulate(out, b, a) -> None:
    """``out += Re(conj(b) @ a.T)``: on the CPU the real product of the (re, im) pairs, by
    the numba rung's loop for small images, else BLAS; on the GPU cuBLAS's complex one."""
    if not isinstance(out, np.ndarray):
        out += (b.conj() @ a.T).real
        return
    b, a = b.view(np.float64), a.view(np.float64)
    if out.size <= JIT_PRODUCT_PIXELS:
        from uvlab.gpu.gridders.jit_grid import _kernels, cpu_rung

        if cpu_rung() == "numba":
            _kernels().dot_rows(out, b, a)
            return
    out += b @ a.T


def dirty(u, v, wvis, spec: ImageSpec, params=None, *, w=None, timer=None, on_block=None):
    """:func:`dirty_dft` under the gridders' signature, timed as ``"grid"``.

    The catalogue's ``dft`` (:mod:`uvlab.gpu.gridders.registry`): ``params``
    and ``w`` are not used (no w-term). Array-generic: numpy or cupy in,
    the same out.
    """
    with timed(timer, "grid"):
        return dirty_dft(u, v, wvis, spec, on_block=on_block)
