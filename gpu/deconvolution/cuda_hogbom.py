"""Högbom's minor cycle on the GPU with few host synchronisations.

Beside :func:`uvlab.gpu.deconvolution.hogbom._loop_numpy`, with the same
results. Per iteration everything stays on the device: the argmax of |residual|
(times the mask), the iteration's record (peak, RMS, position, flux) and the
subtraction of the shifted PSF, by an elementwise kernel that reads the peak's
index from device memory. Whether to go on is a device flag, ``go = active and
peak > stop and peak ≤ limit``; once it is false, the remaining iterations of the
batch subtract zero. The host reads the flag once per ``batch`` iterations.
"""

from __future__ import annotations

import functools

import numpy as np

_SUBTRACT_BODY = r"""
const long long k = pos[0];
const long long c = p / 2;
const long long pr = (long long)(i / n) - k / n + c;
const long long pc = (long long)(i % n) - k % n + c;
if (pr >= 0 && pr < p && pc >= 0 && pc < p) {
    res -= amp[0] * psf[pr * p + pc];
}
"""


@functools.cache
def _subtract_kernel():
    """``res[r, c] -= amp·psf[r − j + P/2, c − i + P/2]`` where the PSF overlaps, (j, i) = pos."""
    import cupy

    return cupy.ElementwiseKernel(
        "raw float64 psf, raw int64 pos, raw float64 amp, int64 n, int64 p",
        "float64 res",
        _SUBTRACT_BODY,
        "uvlab_hogbom_subtract",
    )


@functools.cache
def _reductions():
    """(max |x|, Σ x²) as CuPy reduction kernels: one pass each, no temporary."""
    import cupy

    amax = cupy.ReductionKernel(
        "float64 x", "float64 y", "fabs(x)", "max(a, b)", "y = a", "0", "uvlab_abs_max"
    )
    sumsq = cupy.ReductionKernel(
        "float64 x", "float64 y", "x * x", "a + b", "y = a", "0", "uvlab_sum_sq"
    )
    return amax, sumsq


def image_stats_cupy(image, maskf=None):
    """(|peak| in the mask, |peak|, Σ x²) of a float64 cupy image: a (3,) device array."""
    import cupy

    amax, sumsq = _reductions()
    top = amax(image)
    peak = top if maskf is None else amax(image * maskf)
    return cupy.stack([peak, top, sumsq(image)])


def loop_cupy(residual, psf, maskf, gain, niter, stop, limit, batch=64):
    """The minor cycle on the device; ``residual`` (cupy, C-contiguous) is updated in place.

    Returns (flat positions, fluxes, peaks, rms, iterations done) as NumPy
    arrays, as :func:`uvlab.gpu.deconvolution.hogbom._loop_numpy` does.
    """
    import cupy

    n, p = residual.shape[0], psf.shape[0]
    niter, batch = int(niter), max(int(batch), 1)
    flat = residual.ravel()
    psf = cupy.ascontiguousarray(psf)
    mflat = None if maskf is None else cupy.ascontiguousarray(maskf).ravel()
    subtract = _subtract_kernel()
    pos_d = cupy.zeros(max(niter, 1), dtype=cupy.int64)
    flux_d = cupy.zeros(max(niter, 1), dtype=cupy.float64)
    go_d = cupy.zeros(max(niter, 1), dtype=cupy.bool_)
    peak_d = cupy.zeros(niter + 1, dtype=cupy.float64)
    rms_d = cupy.zeros(niter + 1, dtype=cupy.float64)
    active = cupy.ones((), dtype=cupy.bool_)
    start = 0
    while True:
        end = min(start + batch, niter + 1)
        for it in range(start, end):
            a = cupy.abs(flat) if mflat is None else cupy.abs(flat) * mflat
            idx = a.argmax()
            pk = cupy.take(a, idx)
            peak_d[it] = pk
            rms_d[it] = cupy.sqrt(cupy.dot(flat, flat) / flat.size)
            if it == niter:
                break
            go = active & (pk > stop) & (pk <= limit)  # NaN compares false: stops too
            active = go
            f = cupy.where(go, gain * cupy.take(flat, idx), 0.0)
            pos_d[it], flux_d[it], go_d[it] = idx, f, go
            subtract(psf, idx.reshape(1), f.reshape(1), n, p, residual)
        if end > niter or not bool(active.get()):  # the one host read per batch
            break
        start = end
    n_done = int(go_d[:niter].sum().get()) if niter else 0
    return (
        pos_d[:n_done].get().astype(np.int64),
        flux_d[:n_done].get(),
        peak_d[: n_done + 1].get(),
        rms_d[: n_done + 1].get(),
        n_done,
    )
