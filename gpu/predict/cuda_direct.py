"""GPU direct predict: the ``predict_direct`` RawKernel (``gpu/kernels/predict_direct.cu``).

One thread per (row, block of CB channels), sources staged through shared
memory in tiles of 64 (SDP Memo 076 §2). Within a channel block the phasor
and the time-smearing sine advance by exact rotations, which needs uniformly
spaced channels of equal width inside each block; :func:`channel_blocks`
checks that on the host and otherwise falls back to CB = 1 (every channel
evaluated on its own, any frequencies).
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.geometry import uvw_rate
from uvlab.gpu.predict.cuda_compile import ctype, get_kernel
from uvlab.gpu.predict.direct import PreparedSources

#: Channels per thread, by (precision, Stokes accumulators); measured on an H200
#: (MeerKAT, 10⁴ sources, BENCHMARKS.md): more channels per thread amortise the
#: per-(row, source) float64 phase and trigonometry until registers run out.
CHANNEL_BLOCK = {("float", 1): 32, ("float", 4): 16, ("double", 1): 16, ("double", 4): 8}

MODE_ID = {"scalar": 0, "linear": 1, "circular": 2}
THREADS = 128


def channel_blocks(freq_hz, widths_hz, cb: int):
    """Per-block first frequency and spacing, as ν/c, or None if not uniform.

    Parameters
    ----------
    freq_hz : (chan,) float64
    widths_hz : (chan,) float64 or None
    cb : channels per block

    Returns
    -------
    (k0, dk) : two (nblk,) float64 arrays in 1/m, or None when some block's
    channels are not equally spaced to within a few ulps, or their widths differ.
    """
    freq = np.asarray(freq_hz, dtype=np.float64)
    nchan = len(freq)
    nblk = -(-nchan // cb)
    k0 = np.empty(nblk)
    dk = np.zeros(nblk)
    for b in range(nblk):
        f = freq[b * cb : (b + 1) * cb]
        k0[b] = f[0] / C_LIGHT
        if len(f) > 1:
            step = (f[-1] - f[0]) / (len(f) - 1)
            lin = f[0] + step * np.arange(len(f))
            if np.max(np.abs(f - lin)) > 4 * np.finfo(np.float64).eps * np.max(np.abs(f)):
                return None
            dk[b] = step / C_LIGHT
        if widths_hz is not None:
            wb = widths_hz[b * cb : (b + 1) * cb]
            if np.any(wb != wb[0]):
                return None
    return k0, dk


def predict_rows_cuda(uvw, freq_hz, prep: PreparedSources, mode: str, smearing, dtype, cb=None):
    """Visibilities of a block of rows on the GPU.

    Parameters
    ----------
    uvw : (row, 3) float64, metres (NumPy or CuPy)
    freq_hz : (chan,) float64 (NumPy)
    prep : PreparedSources on CuPy (lmn float64, stokes (chan, nsrc, npol) of ``dtype``)
    mode : "scalar" | "linear" | "circular"
    smearing : Smearing or None
    dtype : numpy.float32 or numpy.float64
    cb : channels per thread (default :data:`CHANNEL_BLOCK`)

    Returns
    -------
    cupy (row, chan) or (row, chan, 2, 2) complex
    """
    import cupy

    real = np.dtype(dtype)
    ct = ctype(real)
    cplx = np.result_type(real, np.complex64)
    freq = np.asarray(freq_hz, dtype=np.float64)
    nchan = len(freq)
    uvw = cupy.ascontiguousarray(cupy.asarray(uvw, dtype=cupy.float64))
    nrow = uvw.shape[0]
    shape = (nrow, nchan) if mode == "scalar" else (nrow, nchan, 2, 2)
    out = cupy.empty(shape, dtype=cplx)
    if nrow == 0 or nchan == 0:
        return out
    if prep.nsrc == 0:
        out.fill(0)
        return out
    tsmear = bool(smearing is not None and smearing.time)
    bsmear = bool(smearing is not None and smearing.band)
    widths = smearing.widths(nchan) if smearing is not None else np.zeros(nchan)
    cb = cb or CHANNEL_BLOCK[(ct, prep.npol)]
    blocks = channel_blocks(freq, widths if bsmear else None, cb)
    if blocks is None:
        cb = 1
        blocks = channel_blocks(freq, None, 1)
    k0, dk = blocks
    gauss = prep.quad is not None

    if tsmear:
        rate = uvw_rate(uvw, smearing.dec0_rad) * (math.pi * smearing.int_s)
        rate = cupy.ascontiguousarray(rate.astype(real))
    else:
        rate = cupy.zeros((1, 3), dtype=real)
    lmn1 = prep.lmn.copy()
    lmn1[:, 2] -= 1.0
    quad = prep.quad.astype(real) if gauss else cupy.zeros((1, 3), dtype=real)
    stokes = cupy.ascontiguousarray(prep.stokes.astype(real, copy=False))
    chan_k = cupy.asarray(freq / C_LIGHT, dtype=real)
    chan_bw = cupy.asarray(math.pi * widths / C_LIGHT, dtype=real)

    def b(x):
        return "true" if x else "false"

    name = f"predict_direct<{ct}, {MODE_ID[mode]}, {b(gauss)}, {b(tsmear)}, {b(bsmear)}, {cb}>"
    kernel = get_kernel("predict_direct.cu", name)
    grid = (-(-nrow // THREADS), len(k0))
    kernel(
        grid,
        (THREADS,),
        (
            uvw,
            rate,
            cupy.ascontiguousarray(lmn1),
            cupy.ascontiguousarray(quad),
            stokes,
            cupy.asarray(k0),
            cupy.asarray(dk),
            chan_k,
            chan_bw,
            np.int32(nrow),
            np.int32(prep.nsrc),
            np.int32(nchan),
            out,
        ),
    )
    return out
