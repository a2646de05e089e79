"""G-Jones on the GPU: ``V_pq ← G_p·V_pq·G_qᴴ`` in one kernel (``gpu/kernels/gains.cu``).

Beside :func:`uvlab.gpu.predict.gains.apply_gains` (the NumPy/CuPy array reference,
whose gathers and batched 2×2 products made the full-polarisation case several times
slower than the prediction itself on an H100): one thread per (time, baseline,
channel) reads its two antennas' gains and updates the visibility in place.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.cuda_compile import ctype, get_kernel


def apply_gains_cuda(vis, gains, ant1, ant2):
    """In place on ``vis`` (cupy, C-contiguous) and returned; shapes as ``apply_gains``.

    Parameters
    ----------
    vis : (time, bl, chan) or (time, bl, chan, 2, 2) cupy complex64/complex128
    gains : (time or 1, ant, chan) or (time or 1, ant, chan, 2, 2) complex (cast to vis's)
    ant1, ant2 : (bl,) int
    """
    import cupy

    if not vis.flags.c_contiguous:
        raise ValueError("apply_gains_cuda needs C-contiguous visibilities")
    g = cupy.ascontiguousarray(cupy.asarray(gains), dtype=vis.dtype)
    npol = 4 if vis.ndim == 5 else 1
    gj = 4 if g.ndim == 5 else 1
    if gj == 4 and npol == 1:
        raise ValueError("2×2 gains need 2×2 visibilities (mode 'linear' or 'circular')")
    ntime, nbl, nchan = vis.shape[:3]
    n = ntime * nbl * nchan
    if n == 0:
        return vis
    p = cupy.asarray(ant1, dtype=cupy.int64)
    q = cupy.asarray(ant2, dtype=cupy.int64)
    kern = get_kernel("gains.cu", f"apply_gains<{ctype(vis.dtype)}, {npol}, {gj}>")
    args = (vis, g, p, q, np.int64(n), np.int32(nbl), np.int32(nchan))
    kern((-(-n // 256),), (256,), (*args, np.int32(g.shape[1]), np.int32(g.shape[0])))
    return vis
