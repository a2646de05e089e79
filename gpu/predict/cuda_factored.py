"""GPU per-antenna predict: V = K·diag(B)·Kᴴ per (time, channel) (Montblanc, matvis).

Two ways, both in ``gpu/kernels/predict_factored.cu``:

- ``"gemm"``: one fused elementwise kernel (``build_k``) writes the operands
  ``K·w`` (and K) for a block of (time, channel) pairs, then ONE strided-batched
  complex product on cuBLAS (``cgemmStridedBatched`` / ``zgemmStridedBatched``,
  the Hermitian operand through ``CUBLAS_OP_C``, so no conjugated copy exists).
  Scalar mode writes a single operand ``X = K·√|I|`` and forms ``X·Xᴴ`` over the
  positive sources minus the same over the negative ones (sources are sorted
  by sign once, on the host); full polarisation stacks ``K·I, K·Q, K·U, K·V``
  over ``K`` and multiplies by ``Kᴴ`` once.
- ``"fused"`` (scalar mode): ``vis_fused`` makes the K tiles in shared memory
  and accumulates the lower triangle of V in registers, so K never touches
  device memory.

A ``gather`` kernel then picks the (p, q) pairs of the rows (conjugating for
p < q) and writes ``(time, bl, chan[, 2, 2])``.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.cuda_compile import ctype, get_kernel, launch_1d
from uvlab.gpu.predict.beams import beam_times
from uvlab.gpu.predict.chunking import chunk_from_budget, device_budget, iter_chunked
from uvlab.gpu.predict.cuda_direct import MODE_ID
from uvlab.gpu.predict.direct import PreparedSources

OP_N, OP_C = 0, 2  # cublasOperation_t
ANT_TILE = 64
FUSED_SOURCES_PER_TILE = {"float": 32, "double": 16}


def _gemm(
    handle,
    cplx,
    m,
    n,
    k,
    alpha,
    a_ptr,
    lda,
    stride_a,
    b_ptr,
    ldb,
    stride_b,
    beta,
    c_ptr,
    ldc,
    stride_c,
    batch,
):
    """C = op_C(A)·B per batch (column-major), i.e. row-major R = B_rows·A_rowsᴴ.

    CuPy's cuBLAS wrappers take alpha and beta as host pointers (pointer mode host).
    """
    from cupy_backends.cuda.libs import cublas

    fn = cublas.cgemmStridedBatched if cplx == np.complex64 else cublas.zgemmStridedBatched
    scalars = np.array([alpha, beta], dtype=cplx)  # kept alive across the call
    ptr = scalars.ctypes.data
    mode = cublas.getPointerMode(handle)
    if mode != 0:
        cublas.setPointerMode(handle, 0)  # CUBLAS_POINTER_MODE_HOST
    try:
        fn(
            handle,
            OP_C,
            OP_N,
            m,
            n,
            k,
            ptr,
            a_ptr,
            lda,
            stride_a,
            b_ptr,
            ldb,
            stride_b,
            ptr + scalars.itemsize,
            c_ptr,
            ldc,
            stride_c,
            batch,
        )
    finally:
        if mode != 0:
            cublas.setPointerMode(handle, mode)


def _weights(prep: PreparedSources, mode: str, method: str, real):
    """(nw, chan, nsrc) weights for ``build_k`` or (chan, nsrc) for ``vis_fused``."""
    import cupy

    st = prep.stokes  # (chan, nsrc, npol)
    if method == "fused":
        return cupy.ascontiguousarray(st[:, :, 0].astype(real))
    if mode == "scalar":
        return cupy.ascontiguousarray(cupy.sqrt(cupy.abs(st[:, :, 0]))[None].astype(real))
    ones = cupy.ones(st.shape[:2], dtype=real)[None]
    w = cupy.concatenate([cupy.moveaxis(st, 2, 0).astype(real), ones], axis=0)
    return cupy.ascontiguousarray(w)


def predict_antennas_cuda(
    ant_uvw,
    ant1,
    ant2,
    freq_hz,
    prep: PreparedSources,
    mode: str,
    dtype,
    method: str = "gemm",
    npos: int | None = None,
    beam=None,
):
    """Per-antenna predict on the GPU; point sources, no smearing.

    Parameters
    ----------
    ant_uvw : (time, nant, 3) float64, metres
    ant1, ant2 : (bl,) int
    freq_hz : (chan,) float64
    prep : PreparedSources on CuPy, point sources; for scalar ``"gemm"`` the
        sources must be sorted with I ≥ 0 first and ``npos`` give their count.
    method : "gemm" | "fused" ("fused" is scalar only)
    beam : (time or 1, nant or 1, chan, src) or None — scalar voltage beams E_ps ("gemm"
        only), in the order of ``prep``'s sources. The operands ``build_k`` writes carry
        them (K → E·K in every slot, so the product is (K·E·w)·(K·E)ᴴ): a real beam is
        multiplied inside the kernel, a complex one by an elementwise CuPy multiply.

    Returns
    -------
    cupy (time, bl, chan) or (time, bl, chan, 2, 2) complex
    """
    import cupy

    real = np.dtype(dtype)
    ct = ctype(real)
    cplx = np.dtype(np.result_type(real, np.complex64))
    ant_uvw = cupy.ascontiguousarray(cupy.asarray(ant_uvw, dtype=cupy.float64))
    ntime, nant = ant_uvw.shape[:2]
    a1 = cupy.asarray(ant1, dtype=cupy.int32)
    a2 = cupy.asarray(ant2, dtype=cupy.int32)
    nbl, nchan, nsrc, npol = len(a1), len(freq_hz), prep.nsrc, prep.npol
    shape = (ntime, nbl, nchan) if mode == "scalar" else (ntime, nbl, nchan, 2, 2)
    out = cupy.zeros(shape, dtype=cplx)
    if min(ntime, nbl, nchan, nsrc) == 0:
        return out
    if method == "fused" and mode != "scalar":
        raise ValueError("method 'fused' is for scalar mode only")
    if method == "fused" and beam is not None:
        raise ValueError("method 'fused' takes no beams; use 'gemm'")
    if beam is not None:
        beam = cupy.asarray(beam)
        cbeam = beam.astype(cplx if beam.dtype.kind == "c" else real, copy=False)
        real_beam = beam.dtype.kind != "c"  # multiplied inside build_k, else after it
        if real_beam:
            cbeam = cupy.ascontiguousarray(cbeam)
    lmn1 = prep.lmn.copy()
    lmn1[:, 2] -= 1.0
    lmn_soa = cupy.ascontiguousarray(lmn1.T)
    chan_k = cupy.asarray(np.asarray(freq_hz, dtype=np.float64) / C_LIGHT)
    wts = _weights(prep, mode, method, real)
    nw = 1 if (method == "fused" or mode == "scalar") else 5
    npos = nsrc if npos is None else int(npos)
    item = cplx.itemsize
    vbytes = nchan * npol * nant * nant * item
    xbytes = 0 if method == "fused" else nchan * nw * nant * nsrc * item
    per_time = vbytes + xbytes
    step = chunk_from_budget(per_time, ntime, device_budget("gpu"))
    gather = get_kernel("predict_factored.cu", f"gather<{ct}, {MODE_ID[mode]}>")

    def block(sl: slice):
        nt = sl.stop - sl.start
        nb = nt * nchan
        vfull = cupy.empty((nb, npol, nant, nant), dtype=cplx)
        uvw_t = ant_uvw[sl]
        if method == "fused":
            ntile = -(-nant // ANT_TILE)
            ts = FUSED_SOURCES_PER_TILE[ct]
            kern = get_kernel("predict_factored.cu", f"vis_fused<{ct}, {ts}>")
            kern(
                (nb, ntile * (ntile + 1) // 2),
                (256,),
                (uvw_t, lmn1, wts, chan_k, np.int32(nant), np.int32(nsrc), np.int32(nchan), vfull),
            )
        else:
            x = cupy.empty((nb, nw, nant, nsrc), dtype=cplx)
            build = get_kernel("predict_factored.cu", f"build_k<{ct}>")
            nbj = nb * nw
            grid = (min(-(-nsrc // 256), 64), min(nbj, 65535), min(-(-nbj // 65535), 65535))
            args = (
                uvw_t,
                lmn_soa,
                wts,
                chan_k,
                np.int32(nant),
                np.int32(nsrc),
                np.int32(nchan),
                np.int32(nw),
                np.int64(nbj),
                *_beam_args(cbeam if beam is not None and real_beam else None, sl),
                x,
            )
            build(grid, (256,), args)
            if beam is not None and not real_beam:
                eb = beam_times(cbeam, sl)
                eb = cupy.broadcast_to(eb.transpose(0, 2, 1, 3), (nt, nchan, nant, nsrc))
                x *= eb.reshape(nb, 1, nant, nsrc)
            handle = cupy.cuda.device.get_cublas_handle()
            base, vp = x.data.ptr, vfull.data.ptr
            if mode == "scalar":
                stride = nant * nsrc
                groups = [(0, npos, 1.0), (npos, nsrc - npos, -1.0)]
                beta = 0.0
                for s0, k, alpha in groups:
                    if k == 0:
                        continue
                    ptr = base + s0 * item
                    _gemm(
                        handle,
                        cplx,
                        nant,
                        nant,
                        k,
                        alpha,
                        ptr,
                        nsrc,
                        stride,
                        ptr,
                        nsrc,
                        stride,
                        beta,
                        vp,
                        nant,
                        nant * nant,
                        nb,
                    )
                    beta = 1.0
            else:
                stride = nw * nant * nsrc
                kptr = base + 4 * nant * nsrc * item
                _gemm(
                    handle,
                    cplx,
                    nant,
                    4 * nant,
                    nsrc,
                    1.0,
                    kptr,
                    nsrc,
                    stride,
                    base,
                    nsrc,
                    stride,
                    0.0,
                    vp,
                    nant,
                    4 * nant * nant,
                    nb,
                )
            del x
        dest = out[sl]
        launch_1d(
            gather,
            nt * nbl * nchan,
            (
                vfull,
                a1,
                a2,
                np.int32(nant),
                np.int32(nbl),
                np.int32(nchan),
                np.int64(nt * nbl * nchan),
                dest,
            ),
        )
        return None

    for _ in iter_chunked(block, ntime, step, what="times", bytes_per_unit=per_time):
        pass
    return out


def _beam_args(beam, sl: slice) -> tuple:
    """``build_k``'s (beam pointer, its time count, its antenna count) for times ``sl``."""
    if beam is None:
        return (np.uint64(0), np.int32(1), np.int32(1))
    beam = beam_times(beam, sl)  # a slice of the (C-contiguous) time axis stays contiguous
    return (beam, np.int32(beam.shape[0]), np.int32(beam.shape[1]))
