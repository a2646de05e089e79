"""The exact reference predict from a model image: a direct Fourier sum, in float64.

``V_k = Σ_{j,i} img[j, i]·exp(+2πi·(u_k·l_i + v_k·m_j))`` (DESIGN §1 without
the w-term), the adjoint of :func:`uvlab.gpu.gridders.dft.dirty_dft`.

Two exact evaluations: for a dense image the sum is separable,
``V_k = Σ_i A[k, i]·(B @ img)[k, i]`` with ``A = exp(2πi u l_i)`` and
``B = exp(2πi v m_j)`` (one GEMM per chunk of visibilities); for a sparse
image (few nonzero pixels) the sum runs over those pixels only. Array-generic:
numpy or cupy in, the same out.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed


def predict_dft(img, u, v, spec: ImageSpec, *, chunk: int = 4096, sparse: bool | None = None):
    """Visibilities of a model image by the direct sum, complex128.

    Parameters
    ----------
    img : (N, N) float or complex
        ``img[j, i]`` at ``l_i = −(i − N/2)·cell``, ``m_j = (j − N/2)·cell``, Jy per pixel.
    u, v : (nvis,) float
        Wavelengths (numpy or cupy; the result follows).
    spec : ImageSpec
    chunk : int
        Visibilities per product (bounds memory at ``chunk·N`` complex numbers,
        or ``chunk·nnz`` for the sparse sum).
    sparse : bool, optional
        Sum over the nonzero pixels only; default: when they are fewer than N²/16.

    Returns
    -------
    (nvis,) complex128
    """
    xp = get_xp(u)
    u = xp.asarray(u, dtype=xp.float64).ravel()
    v = xp.asarray(v, dtype=xp.float64).ravel()
    img = xp.asarray(img)
    img = img.astype(xp.complex128 if img.dtype.kind == "c" else xp.float64)
    lax = xp.asarray(spec.l_axis())
    max_ = xp.asarray(spec.m_axis())
    out = xp.empty(u.size, dtype=xp.complex128)
    nnz = int(xp.count_nonzero(img))
    if sparse is None:
        sparse = nnz < img.size // 16
    if sparse:
        jj, ii = xp.nonzero(img)
        vals, lp, mp = img[jj, ii].astype(xp.complex128), lax[ii], max_[jj]
        step = max(1, chunk * img.shape[0] // max(nnz, 1))
        for s in range(0, u.size, step):
            e = slice(s, s + step)
            ph = xp.outer(u[e], lp) + xp.outer(v[e], mp)
            out[e] = xp.exp(2j * np.pi * ph) @ vals
        return out
    for s in range(0, u.size, chunk):
        e = slice(s, s + chunk)
        a = xp.exp(2j * np.pi * xp.outer(u[e], lax))
        b = xp.exp(2j * np.pi * xp.outer(v[e], max_))
        out[e] = xp.sum(a * (b @ img), axis=1)
    return out


def predict(img, u, v, spec: ImageSpec, params=None, *, w=None, timer=None):
    """:func:`predict_dft` under the degridders' signature, timed as ``"grid"``.

    The catalogue's ``dft`` degridder: ``params`` and ``w`` are not used (no w-term).
    """
    with timed(timer, "grid"):
        return predict_dft(img, u, v, spec)
