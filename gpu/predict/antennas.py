"""Predict from per-antenna geometry: every baseline at every time.

:func:`predict_antennas` chooses a method: the per-antenna factorisation
V = K·diag(B)·Kᴴ per (time, channel) for point sources without smearing
(:mod:`uvlab.gpu.predict.factored`, :mod:`uvlab.gpu.predict.cuda_factored`),
per-antenna phasors weighted per baseline for Stokes I on the CPU with
smearing or Gaussians (:mod:`uvlab.gpu.predict.factored_smearing`), and
otherwise the rows ``uvw_p − uvw_q`` summed directly
(:func:`uvlab.gpu.predict.rows.predict_rows`, whose module notes give the
precision). Beams (E) and gains (G) apply as the docstring says.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp, resolve_device, to_numpy
from uvlab.gpu.predict import terms
from uvlab.gpu.predict.beam_fold import fold_if_uniform
from uvlab.gpu.predict.chunking import PredictMemoryError
from uvlab.gpu.predict.direct import prepare_sources
from uvlab.gpu.predict.rows import check_inputs, predict_rows, vis_shape
from uvlab.gpu.sources import SourceArrays

METHODS = ("auto", "gemm", "fused", "weighted", "direct")

#: method="auto" for point sources without smearing. On an H200 (BENCHMARKS.md) the cuBLAS
#: product beats the fused kernel (2.6e12 vs 2.0e12 source·vis/s in float32, 2.3e12 vs
#: 0.9e12 in float64); "fused" needs no K operands in memory and is the fallback for scalar.
AUTO_METHOD = "gemm"

#: method="auto" on the CPU in scalar mode with smearing or Gaussians: per-antenna phasors
#: weighted per baseline (:mod:`uvlab.gpu.predict.factored_smearing`). On the default lab
#: scene (1.45e6 visibilities, 5 sources; 2-core machine, runs interleaved) it predicts in
#: 0.12–0.19 s (float64) and 0.06–0.10 s (float32) what "direct" takes 0.75–1.0 s and
#: 0.47–0.61 s for (1.8–2.5 s and 1.2–2.0 s on a busier machine), at the same accuracy.
AUTO_SMEARED_CPU = "weighted"


def predict_antennas(
    ant_uvw,
    ant1,
    ant2,
    freq_hz,
    sources: SourceArrays,
    *,
    mode: str = "scalar",
    smearing: terms.Smearing | None = None,
    dtype=np.float64,
    device: str = "auto",
    method: str = "auto",
    host: bool = True,
    beam=None,
    gains=None,
):
    """Visibilities from per-antenna uvw for a set of baselines at every time.

    Without smearing and with point sources only, uses the per-antenna
    factorisation V = K·diag(B)·Kᴴ per (time, channel)
    (:mod:`uvlab.gpu.predict.factored`, :mod:`uvlab.gpu.predict.cuda_factored`).
    With smearing or Gaussians, Stokes I on the CPU takes the per-antenna phasors
    times per-baseline smearing and shape factors
    (:mod:`uvlab.gpu.predict.factored_smearing`); otherwise the rows
    ``uvw_p − uvw_q`` are summed directly.

    Parameters
    ----------
    ant_uvw : (time, nant, 3) float, metres — per-antenna (u, v, w) about a common origin
    ant1, ant2 : (bl,) int — antennas p and q of each baseline
    freq_hz : (chan,) float, Hz
    sources, mode, smearing, dtype, device, host : as :func:`predict_rows`
    method : {"auto", "gemm", "fused", "weighted", "direct"}
        "gemm" (the "auto" choice for point sources without smearing): K operands
        in device memory and one batched complex product (cuBLAS on the GPU,
        ``numpy.matmul`` on the CPU); when the operands of even one time do not fit,
        scalar mode falls back to "fused" and full polarisation to "direct".
        "fused" (GPU, scalar): K made in shared memory inside the product kernel.
        "weighted" (CPU, scalar; the "auto" choice there with smearing or
        Gaussians): Σ_s S_s·K_p·conj(K_q)·ζ_time·ζ_band·G per baseline, one
        exponential per antenna. "direct": rows ``uvw_p − uvw_q`` summed by the row
        kernel (the "auto" choice otherwise with smearing or Gaussians).
    beam : (time or 1, nant or 1, chan, src) real or complex, optional
        Scalar voltage beams E_ps(t, ν) (E-Jones, :mod:`uvlab.gpu.predict.beams`), the
        same on both feeds. Folded into the per-antenna terms (K_ps → E_ps·K_ps) by
        "gemm" and "weighted"; "direct" multiplies each row's terms by E_p·conj(E_q)
        (on the GPU inside the row kernel, :mod:`uvlab.gpu.predict.cuda_direct`). One
        beam for every antenna and time scales the fluxes instead. "fused" becomes "gemm".
        Or (time or 1, nant or 1, chan, src, 2, 2) complex Jones matrices E_ps in the
        feed basis of ``mode`` ([[xx, xy], [yx, yy]] or [[rr, rl], [lr, ll]]): each
        source's term becomes E_p·X_s·E_qᴴ. Mode "linear" or "circular" only (a
        ValueError for "scalar"); "auto" and "gemm" become "direct", the only path that
        sums 2×2 products per row (the array-module sum, on NumPy or CuPy; a beam the same
        at every antenna and time is folded into the sources' apparent brightness E·B·Eᴴ
        instead).
    gains : (time or 1, nant, chan) complex, or (time or 1, nant, chan, 2, 2), optional
        Antenna gains (G-Jones, :mod:`uvlab.gpu.predict.gains`), applied after the source
        sum: V_pq ← G_p·V_pq·G_qᴴ. 2×2 gains need mode "linear" or "circular".

    Returns
    -------
    (time, bl, chan) complex, or (time, bl, chan, 2, 2) for linear/circular.
    """
    vis = _predict_antennas(
        ant_uvw, ant1, ant2, freq_hz, sources, mode=mode, smearing=smearing, dtype=dtype,
        device=device, method=method, host=host and gains is None, beam=beam,
    )  # fmt: skip
    if gains is None:
        return vis
    from uvlab.gpu.predict.gains import apply_gains

    xp = get_xp(vis)
    g = xp.asarray(gains)
    if g.ndim not in (3, 5) or g.shape[1] != np.shape(ant_uvw)[1] or g.shape[2] != len(freq_hz):
        raise ValueError(
            f"gains must be (time, {np.shape(ant_uvw)[1]} antennas, {len(freq_hz)} channels"
            f"[, 2, 2]), got {tuple(g.shape)}"
        )
    if g.shape[0] not in (1, np.shape(ant_uvw)[0]):
        raise ValueError(f"gains have {g.shape[0]} times, the data {np.shape(ant_uvw)[0]}")
    vis = apply_gains(vis, g, to_numpy(ant1), to_numpy(ant2), xp)
    return to_numpy(vis) if host else vis


def _check_beam(beam, shape: tuple, xp):
    """``beam`` on ``xp``, checked against (time, nant, chan, src[, 2, 2])."""
    b = xp.asarray(beam)
    ok = b.ndim in (4, 6) and all(
        b.shape[i] in ((1, shape[i]) if i < 2 else (shape[i],)) for i in range(4)
    )
    if not ok or (b.ndim == 6 and b.shape[4:] != (2, 2)):
        raise ValueError(
            f"beam must be (time or 1, nant or 1, chan, src[, 2, 2]) = ({shape[0]}, "
            f"{shape[1]}, {shape[2]}, {shape[3]}), got {tuple(b.shape)}"
        )
    return b


def _predict_antennas(
    ant_uvw, ant1, ant2, freq_hz, sources, *, mode, smearing, dtype, device, method, host, beam
):
    if method not in METHODS:
        raise ValueError(f"method {method!r} is not one of {', '.join(METHODS)}")
    dev = resolve_device(device)
    freq = np.asarray(freq_hz, dtype=np.float64)
    real = check_inputs(np.shape(ant_uvw), freq, dtype, mode)
    if np.ndim(ant_uvw) != 3:
        raise ValueError(f"ant_uvw must have shape (time, nant, 3), got {np.shape(ant_uvw)}")
    ant1 = np.asarray(to_numpy(ant1), dtype=np.int64)
    ant2 = np.asarray(to_numpy(ant2), dtype=np.int64)
    ntime, nant = np.shape(ant_uvw)[:2]
    if ant1.shape != ant2.shape or ant1.ndim != 1:
        raise ValueError("ant1 and ant2 must be 1-D arrays of equal length")
    if len(ant1) and (min(ant1.min(), ant2.min()) < 0 or max(ant1.max(), ant2.max()) >= nant):
        raise ValueError(f"antenna indices must lie in [0, {nant})")
    smear = smearing is not None and smearing.active
    if beam is not None:
        beam = _check_beam(beam, (ntime, nant, len(freq), sources.nsrc), get_xp(device=dev))
        if method == "fused":
            method = "gemm"
        method = _jones_method(beam, mode, method)
    if method == "auto":
        if not (smear or sources.has_gaussians):
            method = AUTO_METHOD
        elif dev == "cpu" and mode == "scalar":
            method = AUTO_SMEARED_CPU
        else:
            method = "direct"
    if method == "weighted":
        if mode != "scalar" or dev != "cpu":
            raise ValueError("method 'weighted' predicts Stokes I (mode 'scalar') on the CPU")
        from uvlab.gpu.predict.factored_smearing import predict_factored_smeared

        prep = prepare_sources(sources, freq, "scalar", real, np)
        return predict_factored_smeared(
            to_numpy(ant_uvw), ant1, ant2, freq, prep, smearing, real,
            beam=None if beam is None else to_numpy(beam),
        )  # fmt: skip
    if method != "direct" and (smear or sources.has_gaussians):
        raise ValueError(f"method {method!r} needs point sources and no smearing")
    if method != "direct":
        try:
            vis = _factored(ant_uvw, ant1, ant2, freq, sources, mode, real, dev, method, beam)
            return to_numpy(vis) if host else vis
        except PredictMemoryError:
            # the K operands do not fit even for one time: make K on chip instead
            # (scalar) or sum rows directly
            if dev != "gpu" or method != "gemm":
                raise
        if mode == "scalar" and beam is None:
            vis = _factored(ant_uvw, ant1, ant2, freq, sources, mode, real, dev, "fused")
            return to_numpy(vis) if host else vis
    xp = get_xp(device=dev)
    row_beam = None
    if beam is not None:  # each row's time and antennas on the beam's axes
        t_idx = np.repeat(
            np.arange(ntime) if beam.shape[0] > 1 else np.zeros(ntime, int), len(ant1)
        )
        on_ant = beam.shape[1] > 1
        p_idx = np.tile(ant1 if on_ant else np.zeros_like(ant1), ntime)
        q_idx = np.tile(ant2 if on_ant else np.zeros_like(ant2), ntime)
        row_beam = (beam, t_idx, p_idx, q_idx)  # a uniform one is folded into the fluxes
    a_uvw = xp.asarray(ant_uvw, dtype=xp.float64)
    rows = (a_uvw[:, ant1] - a_uvw[:, ant2]).reshape(-1, 3)
    vis = predict_rows(
        rows, freq, sources, mode=mode, smearing=smearing, dtype=real, device=dev, host=host,
        row_beam=row_beam,
    )  # fmt: skip
    return vis.reshape(vis_shape((ntime, len(ant1)), len(freq), mode))


def _jones_method(beam, mode: str, method: str) -> str:
    """2×2 Jones beams: the direct sum only (the factored paths take scalar beams)."""
    from uvlab.gpu.predict.beams import check_jones_mode, is_jones

    if not is_jones(beam):
        return method
    check_jones_mode(mode)
    if method not in ("auto", "gemm", "direct"):
        raise ValueError(f"2×2 Jones beams are summed directly, not by method {method!r}")
    return "direct"


def _factored(ant_uvw, ant1, ant2, freq, sources, mode, real, dev, method, beam=None):
    if dev == "cpu":
        from uvlab.gpu.predict.factored import predict_factored

        prep = prepare_sources(sources, freq, mode, real, np)
        prep, beam = fold_if_uniform(prep, beam, np)
        return predict_factored(ant_uvw, ant1, ant2, freq, prep, mode, real, np, beam=beam)
    from uvlab.gpu.predict.cuda_factored import predict_antennas_cuda

    npos = None
    if mode == "scalar" and method == "gemm":
        negative = sources.stokes[:, 0] < 0
        order = np.argsort(negative, kind="stable")
        sources = sources.select(order)
        npos = int(np.count_nonzero(~negative))
        if beam is not None:
            beam = beam[..., get_xp(beam).asarray(order)]
    import cupy

    prep = prepare_sources(sources, freq, mode, real, cupy)
    prep, beam = fold_if_uniform(prep, beam, cupy)
    return predict_antennas_cuda(
        ant_uvw, ant1, ant2, freq, prep, mode, real, method, npos, beam=beam
    )
