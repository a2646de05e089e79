"""Per-antenna factorisation of the point-source predict (Montblanc's EK / B-sum, matvis).

Without smearing or Gaussian shapes the phase of a baseline splits into two
antenna terms, ``K_ps(t,ν) = exp(+2πi·(ν/c)·(u_p·l_s + v_p·m_s + w_p·(n_s − 1)))``,
so for every (time, channel)

    V = K · diag(B) · Kᴴ      (nant × nsrc) · (nsrc × nsrc) · (nsrc × nant)

is one complex matrix product; the (p, q) pairs of the rows are gathered
from the nant × nant result afterwards. ``uvw_p`` are per-antenna (u, v, w)
about any common origin: only differences enter. This module is the array-
module version (NumPy on the CPU, also valid for CuPy); the GPU path with a
fused K kernel and cuBLAS lives in :mod:`uvlab.gpu.predict.cuda_factored`.
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.predict import terms
from uvlab.gpu.predict.direct import PreparedSources, combine_pol

#: Bytes of temporaries per (time, channel, antenna, source) element.
BYTES_PER_K = 48


def antenna_phasors(ant_uvw, freq_hz, lmn, dtype, xp=np):
    """K[t, c, a, s] = exp(+2πi·(ν_c/c)·τ_as(t)); phases reduced in float64 before any cast.

    Parameters
    ----------
    ant_uvw : (time, nant, 3) float64, metres
    freq_hz : (chan,) float64
    lmn : (nsrc, 3) float64

    Returns
    -------
    (time, chan, nant, nsrc) complex of ``dtype`` precision
    """
    tau = terms.delay_m(ant_uvw, lmn, xp)  # (time, nant, src)
    k = xp.asarray(freq_hz, dtype=xp.float64) / C_LIGHT
    phase = tau[:, None, :, :] * k[None, :, None, None]
    phase -= xp.rint(phase)
    return xp.exp((2j * math.pi) * phase.astype(dtype, copy=False))


def factored_block(
    ant_uvw, ant1, ant2, freq_hz, prep: PreparedSources, mode: str, dtype, xp=np, beam=None
):
    """Visibilities of a block of times from the per-antenna product.

    Parameters
    ----------
    ant_uvw : (time, nant, 3) float64, metres
    ant1, ant2 : (bl,) int — the baseline p and q (uvw = uvw_p − uvw_q)
    prep : PreparedSources — point sources only (``prep.quad is None``)
    beam : (time or 1, ant or 1, chan, src) or None — scalar voltage beams E_ps of these
        times, folded into K (K_ps → E_ps·K_ps, so V = (K·E)·diag(B)·(K·E)ᴴ)

    Returns
    -------
    (time, bl, chan) or (time, bl, chan, 2, 2) complex
    """
    if prep.quad is not None:
        raise ValueError("the per-antenna factorisation needs point sources")
    kmat = antenna_phasors(ant_uvw, freq_hz, prep.lmn, dtype, xp)  # (t, c, a, s)
    if beam is not None:
        eb = xp.transpose(xp.asarray(beam), (0, 2, 1, 3))  # (t, c, a, s)
        kmat *= eb.astype(kmat.dtype if xp.iscomplexobj(eb) else kmat.real.dtype, copy=False)
    stokes = prep.stokes.astype(kmat.dtype)  # (c, s, npol)
    weighted = kmat[:, :, None, :, :] * stokes.transpose(0, 2, 1)[None, :, :, None, :]
    # V[t, c, S] = (K·diag(S)) · Kᴴ; einsum's optimised path beats a stacked matmul
    # with a transposed operand by up to 6x here (NumPy 2.4, complex128)
    vfull = xp.einsum("tcpas,tcbs->tcpab", weighted, xp.conj(kmat), optimize=True)
    vis = vfull[:, :, :, ant1, ant2]  # (t, c, npol, bl)
    vis = xp.moveaxis(vis, (2, 3), (3, 1))  # (t, bl, c, npol)
    return combine_pol(vis, mode, xp)


def predict_factored(
    ant_uvw, ant1, ant2, freq_hz, prep: PreparedSources, mode, dtype, xp=np, budget=None, beam=None
):
    """All times, in blocks whose temporaries fit ``budget`` bytes (CPU default 256 MiB).

    ``beam`` (time or 1, ant or 1, chan, src): scalar voltage beams (:func:`factored_block`).
    """
    from uvlab.gpu.predict.beams import beam_times
    from uvlab.gpu.predict.chunking import CPU_BUDGET_BYTES, chunk_from_budget, iter_chunked

    ant_uvw = xp.asarray(ant_uvw, dtype=xp.float64)
    ntime, nant = ant_uvw.shape[:2]
    nchan = len(freq_hz)
    per_time = nchan * nant * max(prep.nsrc, 1) * BYTES_PER_K * prep.npol
    step = chunk_from_budget(per_time, ntime, budget or CPU_BUDGET_BYTES)
    parts = [
        vis
        for _, vis in iter_chunked(
            lambda sl: factored_block(
                ant_uvw[sl], ant1, ant2, freq_hz, prep, mode, dtype, xp, beam_times(beam, sl)
            ),
            ntime,
            step,
            what="times",
            bytes_per_unit=per_time,
        )
    ]
    if not parts:
        npol_shape = () if mode == "scalar" else (2, 2)
        cplx = np.result_type(np.dtype(dtype), np.complex64)
        return xp.zeros((0, len(ant1), nchan, *npol_shape), dtype=cplx)
    return xp.concatenate(parts, axis=0)
