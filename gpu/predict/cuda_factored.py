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

import functools
from dataclasses import dataclass

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
    cplx = np.dtype(np.result_type(real, np.complex64))
    ant_uvw = cupy.ascontiguousarray(cupy.asarray(ant_uvw, dtype=cupy.float64))
    ntime = ant_uvw.shape[0]
    a1 = cupy.asarray(ant1, dtype=cupy.int32)
    a2 = cupy.asarray(ant2, dtype=cupy.int32)
    nbl, nchan, nsrc = len(a1), len(freq_hz), prep.nsrc
    shape = (ntime, nbl, nchan) if mode == "scalar" else (ntime, nbl, nchan, 2, 2)
    out = cupy.zeros(shape, dtype=cplx)
    if min(ntime, nbl, nchan, nsrc) == 0:
        return out
    _check_method(method, mode, beam)
    ops = _operands(ant_uvw, a1, a2, freq_hz, prep, mode, method, real, cplx, npos, beam)
    per_time = _bytes_per_time(ops)
    step = chunk_from_budget(per_time, ntime, device_budget("gpu"))
    gather = get_kernel("predict_factored.cu", f"gather<{ops.ct}, {MODE_ID[mode]}>")
    block = functools.partial(_block, ops, gather, out)
    for _ in iter_chunked(block, ntime, step, what="times", bytes_per_unit=per_time):
        pass
    return out


def _check_method(method: str, mode: str, beam) -> None:
    """Refuse what ``"fused"`` cannot do: full polarisation, beams."""
    if method == "fused" and mode != "scalar":
        raise ValueError("method 'fused' is for scalar mode only")
    if method == "fused" and beam is not None:
        raise ValueError("method 'fused' takes no beams; use 'gemm'")


@dataclass(frozen=True)
class _Operands:
    """One call's arguments on the device, shared by its blocks of times.

    ``ant_uvw`` (time, nant, 3) float64 m; ``a1``, ``a2`` (bl,) int32; ``lmn1``
    (src, 3) with n − 1 and ``lmn_soa`` its (3, src) transpose; ``chan_k`` (chan,)
    ν/c in 1/m; ``wts`` the weights of :func:`_weights`; ``nw`` the operand slots per
    (time, channel) (1, or 5 for I, Q, U, V and K); ``npos`` the sources with I ≥ 0;
    ``beam`` the voltage beams in ``real`` (multiplied inside ``build_k``:
    ``real_beam``) or ``cplx``, or None.
    """

    mode: str
    method: str
    real: np.dtype
    cplx: np.dtype
    ant_uvw: object
    a1: object
    a2: object
    nant: int
    nbl: int
    nchan: int
    nsrc: int
    npol: int
    nw: int
    npos: int
    lmn1: object
    lmn_soa: object
    chan_k: object
    wts: object
    beam: object
    real_beam: bool

    @property
    def ct(self) -> str:
        """The kernels' C type of ``real``."""
        return ctype(self.real)

    @property
    def item(self) -> int:
        """Bytes of one complex value."""
        return self.cplx.itemsize


def _operands(ant_uvw, a1, a2, freq_hz, prep, mode, method, real, cplx, npos, beam) -> _Operands:
    """The rest of :func:`predict_antennas_cuda`'s arguments on the device, with these."""
    import cupy

    cbeam, real_beam = None, False
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
    nsrc = prep.nsrc
    return _Operands(
        mode=mode, method=method, real=real, cplx=cplx, ant_uvw=ant_uvw, a1=a1, a2=a2,
        nant=ant_uvw.shape[1], nbl=len(a1), nchan=len(freq_hz), nsrc=nsrc, npol=prep.npol,
        nw=nw, npos=nsrc if npos is None else int(npos), lmn1=lmn1, lmn_soa=lmn_soa,
        chan_k=chan_k, wts=wts, beam=cbeam, real_beam=real_beam,
    )  # fmt: skip


def _bytes_per_time(ops: _Operands) -> int:
    """Device bytes one time of a block takes: V for every pair, and the gemm operands."""
    vbytes = ops.nchan * ops.npol * ops.nant * ops.nant * ops.item
    xbytes = 0 if ops.method == "fused" else ops.nchan * ops.nw * ops.nant * ops.nsrc * ops.item
    return vbytes + xbytes


def _block(ops: _Operands, gather, out, sl: slice) -> None:
    """Times ``sl``: V = K·diag(B)·Kᴴ per (time, channel), then its rows into ``out[sl]``."""
    import cupy

    nt = sl.stop - sl.start
    nb = nt * ops.nchan
    vfull = cupy.empty((nb, ops.npol, ops.nant, ops.nant), dtype=ops.cplx)
    uvw_t = ops.ant_uvw[sl]
    if ops.method == "fused":
        _fused_products(ops, uvw_t, nb, vfull)
    else:
        x = _build_k(ops, uvw_t, sl, nb)
        handle = cupy.cuda.device.get_cublas_handle()
        if ops.mode == "scalar":
            _scalar_products(ops, handle, x, vfull, nb)
        else:
            _polarised_products(ops, handle, x, vfull, nb)
        del x
    _gather(ops, gather, vfull, out[sl], nt)


def _fused_products(ops: _Operands, uvw_t, nb: int, vfull) -> None:
    """``vis_fused``: K tiles in shared memory, V's lower triangle in registers."""
    ntile = -(-ops.nant // ANT_TILE)
    ts = FUSED_SOURCES_PER_TILE[ops.ct]
    kern = get_kernel("predict_factored.cu", f"vis_fused<{ops.ct}, {ts}>")
    kern(
        (nb, ntile * (ntile + 1) // 2),
        (256,),
        (
            uvw_t, ops.lmn1, ops.wts, ops.chan_k, np.int32(ops.nant), np.int32(ops.nsrc),
            np.int32(ops.nchan), vfull,
        ),
    )  # fmt: skip


def _build_k(ops: _Operands, uvw_t, sl: slice, nb: int):
    """``build_k``'s operands (nb, nw, nant, src) for times ``sl``, the beams applied."""
    import cupy

    x = cupy.empty((nb, ops.nw, ops.nant, ops.nsrc), dtype=ops.cplx)
    build = get_kernel("predict_factored.cu", f"build_k<{ops.ct}>")
    nbj = nb * ops.nw
    grid = (min(-(-ops.nsrc // 256), 64), min(nbj, 65535), min(-(-nbj // 65535), 65535))
    args = (
        uvw_t,
        ops.lmn_soa,
        ops.wts,
        ops.chan_k,
        np.int32(ops.nant),
        np.int32(ops.nsrc),
        np.int32(ops.nchan),
        np.int32(ops.nw),
        np.int64(nbj),
        *_beam_args(ops.beam if ops.beam is not None and ops.real_beam else None, sl),
        x,
    )
    build(grid, (256,), args)
    if ops.beam is not None and not ops.real_beam:
        nt, nchan, nant, nsrc = sl.stop - sl.start, ops.nchan, ops.nant, ops.nsrc
        eb = beam_times(ops.beam, sl)
        eb = cupy.broadcast_to(eb.transpose(0, 2, 1, 3), (nt, nchan, nant, nsrc))
        x *= eb.reshape(nb, 1, nant, nsrc)
    return x


def _scalar_products(ops: _Operands, handle, x, vfull, nb: int) -> None:
    """V = X₊·X₊ᴴ − X₋·X₋ᴴ over the sources with I ≥ 0 and those with I < 0."""
    nant, nsrc, npos = ops.nant, ops.nsrc, ops.npos
    base, vp = x.data.ptr, vfull.data.ptr
    stride = nant * nsrc
    groups = [(0, npos, 1.0), (npos, nsrc - npos, -1.0)]
    beta = 0.0
    for s0, k, alpha in groups:
        if k == 0:
            continue
        ptr = base + s0 * ops.item
        _gemm(
            handle, ops.cplx, nant, nant, k, alpha, ptr, nsrc, stride, ptr, nsrc, stride, beta,
            vp, nant, nant * nant, nb,
        )  # fmt: skip
        beta = 1.0


def _polarised_products(ops: _Operands, handle, x, vfull, nb: int) -> None:
    """[K·I, K·Q, K·U, K·V] stacked, times Kᴴ: the four Stokes products in one gemm."""
    nant, nsrc = ops.nant, ops.nsrc
    base, vp = x.data.ptr, vfull.data.ptr
    stride = ops.nw * nant * nsrc
    kptr = base + 4 * nant * nsrc * ops.item
    _gemm(
        handle, ops.cplx, nant, 4 * nant, nsrc, 1.0, kptr, nsrc, stride, base, nsrc, stride,
        0.0, vp, nant, 4 * nant * nant, nb,
    )  # fmt: skip


def _gather(ops: _Operands, gather, vfull, dest, nt: int) -> None:
    """The rows' (p, q) pairs of ``vfull`` into ``dest`` (conjugated for p < q)."""
    n = nt * ops.nbl * ops.nchan
    launch_1d(
        gather,
        n,
        (vfull, ops.a1, ops.a2, np.int32(ops.nant), np.int32(ops.nbl), np.int32(ops.nchan),
         np.int64(n), dest),
    )  # fmt: skip


def _beam_args(beam, sl: slice) -> tuple:
    """``build_k``'s (beam pointer, its time count, its antenna count) for times ``sl``."""
    if beam is None:
        return (np.uint64(0), np.int32(1), np.int32(1))
    beam = beam_times(beam, sl)  # a slice of the (C-contiguous) time axis stays contiguous
    return (beam, np.int32(beam.shape[0]), np.int32(beam.shape[1]))
