"""GPU direct predict: the ``predict_direct`` RawKernel (``gpu/kernels/predict_direct.cu``).

One thread per (row, block of CB channels), sources staged through shared
memory in tiles of 64 (SDP Memo 076 §2). Within a channel block the phasor
and the time-smearing sine advance by exact rotations, which needs uniformly
spaced channels of equal width inside each block; :func:`channel_blocks`
checks that on the host and otherwise falls back to CB = 1 (every channel
evaluated on its own, any frequencies).

Scalar voltage beams that differ per antenna (E-Jones, :func:`kernel_beam`) are read by
the kernel from device memory, laid out (time, ant, src, chan): each term of row
(t, p, q) is multiplied by E[t, p]·conj(E[t, q]) for its source and channel. The rows go
to the kernel in :func:`beam_row_order` (and their visibilities back in their own order),
so that a thread block's rows share a few antennas' beams in L1: on an H100 (64 MeerKAT
antennas, beams differing per antenna, 10⁴ sources; BENCHMARKS.md) full polarisation with
smearing went from 1.85e11 to 4.8e11 source·vis/s (float32) and 1.35e11 to 1.95e11 (float64).
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.cuda_compile import ctype, get_kernel
from uvlab.gpu.geometry import uvw_rate
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


#: Antenna tiles of :func:`beam_row_order`: rows of antennas p in one group of ``P_TILE``
#: and q in one of ``Q_TILE`` go together (8 × 16 pairs: one thread block's 128 rows).
P_TILE, Q_TILE = 8, 16


def beam_row_order(t, p, q):
    """The order in which the kernel takes rows with beams: by beam time, then antenna tile
    (p // 8, q // 16), then baseline. Rows of one baseline at different times stay together
    when the beam does not change with time (t all 0)."""
    import cupy

    t, p, q = (cupy.asarray(x, dtype=cupy.int64) for x in (t, p, q))
    nant = int(max(int(p.max()), int(q.max()))) + 1 if p.size else 1
    tiles_p, tiles_q = -(-nant // P_TILE), -(-nant // Q_TILE)
    tile = (t * tiles_p + p // P_TILE) * tiles_q + q // Q_TILE
    return cupy.argsort(tile * (nant * nant) + p * nant + q)


def kernel_beam(beam, dtype):
    """Scalar beams (time, ant, chan, src) → the kernel's (time, ant, src, chan) layout.

    Real beams stay real (``dtype``), complex ones become complex of ``dtype``'s precision.
    """
    import cupy

    b = cupy.asarray(beam)
    real = np.dtype(dtype)
    want = np.result_type(real, np.complex64) if b.dtype.kind == "c" else real
    return cupy.ascontiguousarray(b.transpose(0, 1, 3, 2).astype(want, copy=False))


def predict_rows_cuda(
    uvw, freq_hz, prep: PreparedSources, mode: str, smearing, dtype, cb=None, beam=None
):
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
    beam : (E, t, p, q) or None — E from :func:`kernel_beam` (time, ant, src, chan) and
        each row's (row,) indices into its time and antenna axes

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
    order = None
    if beam is not None and nrow > 0:
        order = beam_row_order(*beam[1:])
        uvw = uvw[order]
        beam = (beam[0], *(cupy.asarray(i)[order] for i in beam[1:]))
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

    beam_id, eb, rows_idx, bant = 0, cupy.zeros(1, dtype=real), cupy.zeros(3, np.int32), 1
    if beam is not None:
        eb, ti, pi, qi = beam
        if eb.shape[2:] != (prep.nsrc, nchan):
            raise ValueError(f"kernel beams must be (time, ant, {prep.nsrc}, {nchan})")
        beam_id = 2 if eb.dtype.kind == "c" else 1
        rows_idx = cupy.stack([cupy.asarray(i, dtype=cupy.int32) for i in (ti, pi, qi)])
        bant = int(eb.shape[1])
    mid = f"{ct}, {MODE_ID[mode]}, {b(gauss)}, {b(tsmear)}, {b(bsmear)}, {cb}, {beam_id}"
    name = f"predict_direct<{mid}>"
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
            eb,
            cupy.ascontiguousarray(rows_idx),
            np.int32(bant),
            out,
        ),
    )
    if order is not None:  # back to the rows' own order
        ordered, out = out, cupy.empty_like(out)
        out[order] = ordered
    return out
