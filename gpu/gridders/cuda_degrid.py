"""The CUDA degridder: correct → pad / r2c FFT → interpolate (``gpu/kernels/degrid.cu``).

The CUDA gridding chain of :mod:`~uvlab.gpu.gridders.cuda_grid` run
backwards, on the same :class:`~uvlab.gpu.gridders.cuda_rules.GpuChain`
(same tap rules, same correctors, same grids):

1. **correct** — ``pad_correct``: the model image times ``corr_v[j]·corr_u[i]``
   placed on a zero (Mv, Mu) real grid at the pixel offsets mod M;
2. **FFT** — one forward r2c 2-D cuFFT (``cupyx.scipy.fft.rfft2``), the
   Hermitian half grid ``F(k) = Σ_n img'(n)·exp(−2πi·k·n/M)``;
3. **grid** (here: interpolate) — ``degrid_interp``, one thread per
   visibility: coordinates in float64, moved to the half plane, taps by the
   axis rules, ``Σ wv·wu·F`` with the mirrored columns read conjugated. No
   sort: the gather has no write conflicts.

:func:`emulate_predict` is its NumPy twin (float64, the kernels' arithmetic
step for step: :meth:`AxisRule.window` / :meth:`AxisRule.weights` and
:func:`~uvlab.gpu.gridders.degrid.read_half`); the CPU tests check it against
:func:`~uvlab.gpu.gridders.degrid.separable_predict`, the GPU tests the
kernels against it. ``precision="single"`` keeps float64 coordinates
(absolute float32 cells near 4096 would be off by 1e-4 cells) but float32
weights, grid and sums.
"""

from __future__ import annotations

import logging

import numpy as np

from uvlab.gpu.cuda_compile import ctype
from uvlab.gpu.gridders.cuda_grid import DeviceChain, device_chain
from uvlab.gpu.gridders.cuda_gridders import cached_chain
from uvlab.gpu.gridders.cuda_rules import GpuChain
from uvlab.gpu.gridders.degrid import half_plane_coords, image_to_half, read_half
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed

log = logging.getLogger(__name__)

#: Threads per block of degrid_interp.
THREADS = 256


def emulate_predict(img, u, v, chain: GpuChain) -> np.ndarray:
    """The CUDA degridder in NumPy float64, step for step; (nvis,) complex128.

    ``img`` real (N, N); u, v wavelengths (host arrays).
    """
    ru, rv = chain.rule_u, chain.rule_v
    xu = np.asarray(u, dtype=np.float64) * ru.scale
    xv = -np.asarray(v, dtype=np.float64) * rv.scale
    xu, xv, neg = half_plane_coords(xu, xv, ru.n_grid)
    half = image_to_half(img, chain.corr_u, chain.corr_v, ru.n_grid, rv.n_grid)
    k0u, pu = ru.window(xu)
    k0v, pv = rv.window(xv)
    wu, wv = ru.weights(k0u, pu), rv.weights(k0v, pv)
    rows = (k0v[:, None] + np.arange(rv.support))[:, :, None]
    cols = (k0u[:, None] + np.arange(ru.support))[:, None, :]
    vis = np.einsum("nab,na,nb->n", read_half(half, rows, cols, ru.n_grid), wv, wu)
    return np.where(neg, np.conj(vis), vis)


def pad_correct(img, chain: GpuChain, dev: DeviceChain, real):
    """(Mv, Mu) cupy ``real`` grid: the corrected image at the pixel offsets, zeros elsewhere."""
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    mu, mv, n = chain.rule_u.n_grid, chain.rule_v.n_grid, chain.npix
    img = cupy.ascontiguousarray(img)
    if img.dtype not in (np.float32, np.float64):
        img = img.astype(real)
    grid = cupy.empty((mv, mu), dtype=real)
    kern = get_kernel("degrid.cu", f"pad_correct<{ctype(img.dtype)}, {ctype(real)}>")
    kern(
        (-(-mu // 256), mv),
        (256,),
        (img, grid, dev.corr_u, dev.corr_v, np.int32(n), np.int32(mu), np.int32(mv)),
    )
    return grid


def interpolate(half, u, v, chain: GpuChain, dev: DeviceChain, real):
    """``degrid_interp`` of float64 cupy u, v from the half grid; (nvis,) cupy complex."""
    import cupy

    from uvlab.gpu.cuda_compile import get_kernel

    ru, rv = chain.rule_u, chain.rule_v
    cplx = np.complex64 if np.dtype(real) == np.float32 else np.complex128
    out = cupy.empty(u.size, dtype=cplx)
    if u.size == 0:
        return out
    name = f"degrid_interp<{ctype(real)}, {ru.rule_id}, {ru.support}, {rv.rule_id}, {rv.support}>"
    args = (u, v, np.int64(u.size), np.float64(ru.scale), np.float64(rv.scale), half)
    args += (np.int32(ru.n_grid), np.int32(rv.n_grid))
    args += (real(ru.beta), dev.table_u, np.int32(ru.oversample), np.int32(ru.half))
    args += (real(rv.beta), dev.table_v, np.int32(rv.oversample), np.int32(rv.half), out)
    get_kernel("degrid.cu", name)((-(-u.size // THREADS),), (THREADS,), args)
    return out


def predict_chain(img, u, v, chain: GpuChain, *, precision: str = "double", timer=None):
    """Visibilities ``Σ img·exp(+2πi(u·l + v·m))`` of a model image on the GPU.

    Parameters
    ----------
    img : (N, N) float or complex (cupy or numpy)
        A complex image is degridded as its real and imaginary parts.
    u, v : (nvis,) float, wavelengths (cupy or numpy; float64 used)
    chain : GpuChain
    precision : {"single", "double"}
        float32 weights, grid and sums (complex64 out), or float64 throughout.
    timer : StageTimer, optional
        Stages "correct" (pad and correct), "FFT" and "grid" (interpolation).

    Returns
    -------
    (nvis,) cupy complex64 or complex128
    """
    import cupy
    import cupyx.scipy.fft as cufft

    if precision not in ("single", "double"):
        raise ValueError(f"precision must be 'single' or 'double', got {precision!r}")
    real = np.float32 if precision == "single" else np.float64
    img = cupy.asarray(img)
    if img.dtype.kind == "c":
        re = predict_chain(img.real, u, v, chain, precision=precision, timer=timer)
        im = predict_chain(img.imag, u, v, chain, precision=precision, timer=timer)
        return re + 1j * im
    u = cupy.ascontiguousarray(cupy.asarray(u, dtype=np.float64).ravel())
    v = cupy.ascontiguousarray(cupy.asarray(v, dtype=np.float64).ravel())
    dev = device_chain(chain, real, scaled=False)
    with timed(timer, "correct"):
        grid = pad_correct(img, chain, dev, real)
    with timed(timer, "FFT"):
        half = cufft.rfft2(grid, overwrite_x=True)
    del grid
    with timed(timer, "grid"):
        return interpolate(half, u, v, chain, dev, real)


def predict_gpu(algorithm, img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
    """Degridding by a separable algorithm on the GPU (the catalogue's ``degrid_cuda``).

    Parameters
    ----------
    algorithm : Algorithm
        Its catalogue record: ``plans`` gives the chain, ``degrid`` the host
        fallback (w-stacking, the host-only ``ducc``, a non-ES kernel evaluated
        exactly, a pruned chain: ``hybrid``, ``pruned-nn``), whose result is
        copied to the device.
    img : (N, N) float or complex
    u, v : (nvis,) float, wavelengths
    spec : ImageSpec
    params : GridParams
        ``precision`` picks float32 or float64 arithmetic.
    w : (nvis,) float, optional
        Used only by the host fallback (ducc0's w-gridder).
    timer : StageTimer, optional

    Returns
    -------
    (nvis,) cupy complex64 (single) or complex128 (double)
    """
    import cupy

    chain = cached_chain(algorithm, spec, params)
    if chain is None or chain.pruner_v is not None:
        from uvlab.gpu.backend import to_numpy

        log.info("degridding by %s with %s runs on the host", algorithm.name, params)
        fn = algorithm.degridder()
        wh = None if w is None else to_numpy(w)
        vis = fn(to_numpy(img), to_numpy(u), to_numpy(v), spec, params, w=wh, timer=timer)
        cplx = np.complex64 if params.precision == "single" else np.complex128
        return cupy.asarray(vis, dtype=cplx)
    return predict_chain(img, u, v, chain, precision=params.precision, timer=timer)
