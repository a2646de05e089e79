"""Row-based direct sum, vectorised with an array module (NumPy, or CuPy as a fallback).

For a block of rows, channels and sources the phases
``(ν/c)·(u·l + v·m + w·(n − 1))`` are formed in float64 and reduced modulo one
turn *before* any cast to float32, so the float32 path keeps its phase
accuracy (|φ| ≲ 10⁴ turns on long baselines would otherwise lose ~10⁻³ rad).
The source sum is a matrix product over the source axis:
``V[c, r, :] = (w·e^{2πiφ})[c, r, :] @ S[c, :, :]`` with S the spectrally
scaled Stokes parameters (I, or I, Q, U, V). Loops run over source chunks only.

With 2×2 Jones beams (E per time, antenna, channel and source) the beams do not
commute with B, so the sum is over the four correlations instead:
``V[c, r] = Σ_s t[c, r, s]·E_p·B_s(ν)·E_qᴴ`` with t the scalar term above, the 2×2
products written out element by element (:func:`jones_sum`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.geometry import uvw_rate
from uvlab.gpu.predict import terms
from uvlab.gpu.sources import SourceArrays

#: Bytes of temporaries per (row, channel, source) element of a block.
BYTES_PER_TERM = 64

#: The same with 2×2 Jones beams: E_p, E_q, E_p·t, E_p·t·B and the products (complex128).
JONES_BYTES_PER_TERM = 512


@dataclass(frozen=True, eq=False)
class PreparedSources:
    """Source arrays moved to one array module, with the per-channel Stokes.

    Attributes
    ----------
    lmn : (nsrc, 3) float64
    stokes : (chan, nsrc, npol) real dtype — S0·(ν/ν0)^α, npol = 1 (I) or 4 (I, Q, U, V)
    quad : (nsrc, 3) float64 or None — Gaussian coefficients (None if all points)
    npol : 1 or 4
    mode : "scalar", "linear" or "circular" — the feed basis of B (for Jones beams)
    """

    lmn: object
    stokes: object
    quad: object
    npol: int
    mode: str = "scalar"

    @property
    def nsrc(self) -> int:
        return int(self.lmn.shape[0])


def prepare_sources(sources: SourceArrays, freq_hz, mode: str, dtype, xp=np) -> PreparedSources:
    """Move the sky to ``xp`` and evaluate its spectra per channel (:func:`terms.spectral_flux`)."""
    npol = terms.check_mode(mode)
    per_chan = terms.spectral_flux(freq_hz, sources, npol, xp).astype(dtype)
    quad = terms.gaussian_quadratic(sources.shape, xp) if sources.has_gaussians else None
    lmn = xp.asarray(sources.lmn, dtype=xp.float64)
    return PreparedSources(lmn, per_chan, quad, npol, mode)


def combine_pol(acc, mode: str, xp=np):
    """(…, npol) Stokes accumulators → (…) scalar or (…, 2, 2) brightness form."""
    if mode == "scalar":
        return acc[..., 0]
    return terms.stokes_to_brightness(acc[..., 0], acc[..., 1], acc[..., 2], acc[..., 3], mode, xp)


def direct_rows(
    uvw, freq_hz, prep: PreparedSources, smearing, dtype, xp=np, budget=None, row_beam=None
):
    """Σ over sources for a block of rows, all channels.

    Parameters
    ----------
    uvw : (row, 3) float64, metres
    freq_hz : (chan,) float64
    prep : PreparedSources (same ``xp`` and dtype)
    smearing : terms.Smearing or None
    dtype : numpy.float32 or numpy.float64 — real working precision
    budget : bytes for temporaries (default ``chunking.CPU_BUDGET_BYTES``)
    row_beam : (E, t, p, q) or None — voltage beams E and each row's indices into their
        time and antenna axes (row,) int. Scalar E (time, ant, chan, src): every term is
        multiplied by E[t, p]·conj(E[t, q]). Jones E (time, ant, chan, src, 2, 2), in the
        feed basis of ``prep.mode`` ("linear" or "circular"; "scalar" is a ValueError):
        every term is E[t, p]·t·B·E[t, q]ᴴ (:func:`jones_sum`).

    Returns
    -------
    (row, chan, npol) complex of ``dtype`` precision, Stokes accumulators
    ``Σ_s ζ·G·e^{2πiφ}·S_s(ν)``; :func:`combine_pol` forms the products. With Jones
    beams, the correlations themselves: (row, chan, 2, 2).
    """
    from uvlab.gpu.predict.beams import is_jones

    if row_beam is not None and is_jones(row_beam[0]):
        return jones_sum(uvw, freq_hz, prep, smearing, dtype, xp, budget, row_beam)
    real = np.dtype(dtype)
    cplx = np.result_type(real, np.complex64)
    nrow, nchan = np.shape(uvw)[0], np.shape(freq_hz)[0]
    acc = xp.zeros((nchan, nrow, prep.npol), dtype=cplx)
    for sl, term in source_terms(uvw, freq_hz, prep, smearing, real, xp, budget, BYTES_PER_TERM):
        if row_beam is not None:
            eb, ti, pi, qi = row_beam
            e_s = eb[:, :, :, sl]
            pair = e_s[ti, pi] * xp.conj(e_s[ti, qi])  # (row, chan, src)
            term *= xp.transpose(pair, (1, 0, 2)).astype(cplx, copy=False)
        stokes = prep.stokes[:, sl, :].astype(cplx)  # (chan, src, npol)
        acc += xp.matmul(term, stokes)
    return acc.transpose(1, 0, 2)


def jones_sum(uvw, freq_hz, prep: PreparedSources, smearing, dtype, xp, budget, row_beam):
    """``V[r, c] = Σ_s t[c, r, s]·E_p·B_s(ν)·E_qᴴ``: (row, chan, 2, 2) complex.

    ``row_beam`` = (E, t, p, q) with E (time, ant, chan, src, 2, 2); B in the feed basis
    ``prep.mode`` (DESIGN §1). The 2×2 products are written out per element: ``t·E_p``,
    then ``·B``, then ``·E_qᴴ`` (20 complex products per term), summed over sources.
    """
    from uvlab.gpu.predict.beams import check_jones_mode

    check_jones_mode(prep.mode)
    real = np.dtype(dtype)
    cplx = np.result_type(real, np.complex64)
    nrow, nchan = np.shape(uvw)[0], np.shape(freq_hz)[0]
    eb, ti, pi, qi = row_beam
    s = prep.stokes
    bright = terms.stokes_to_brightness(s[..., 0], s[..., 1], s[..., 2], s[..., 3], prep.mode, xp)
    bright = bright.astype(cplx, copy=False)  # (chan, src, 2, 2)
    acc = [xp.zeros((nchan, nrow), dtype=cplx) for _ in range(4)]  # 00, 01, 10, 11
    idx = ((0, 0), (0, 1), (1, 0), (1, 1))
    for sl, term in source_terms(
        uvw, freq_hz, prep, smearing, real, xp, budget, JONES_BYTES_PER_TERM
    ):
        e_s = eb[:, :, :, sl]
        ep, eq = e_s[ti, pi], e_s[ti, qi]  # (row, chan, src, 2, 2)
        b = [bright[:, None, sl, i, j] for i, j in idx]  # (chan, 1, src)
        # W = t·E_p, Y = W·B
        w = [term * xp.transpose(ep[..., i, j], (1, 0, 2)).astype(cplx) for i, j in idx]
        del ep
        y = (
            w[0] * b[0] + w[1] * b[2],
            w[0] * b[1] + w[1] * b[3],
            w[2] * b[0] + w[3] * b[2],
            w[2] * b[1] + w[3] * b[3],
        )
        del w
        c = [xp.conj(xp.transpose(eq[..., i, j], (1, 0, 2))).astype(cplx) for i, j in idx]
        del eq
        # V_ij += Σ_s Σ_k Y_ik·conj(E_q,jk)
        acc[0] += (y[0] * c[0] + y[1] * c[1]).sum(axis=2)
        acc[1] += (y[0] * c[2] + y[1] * c[3]).sum(axis=2)
        acc[2] += (y[2] * c[0] + y[3] * c[1]).sum(axis=2)
        acc[3] += (y[2] * c[2] + y[3] * c[3]).sum(axis=2)
    out = xp.stack(acc, axis=-1).reshape(nchan, nrow, 2, 2)
    return out.transpose(1, 0, 2, 3)


def source_terms(uvw, freq_hz, prep: PreparedSources, smearing, real, xp, budget, per_term):
    """Yield ``(source_slice, t)`` over chunks of sources: t (chan, row, src) complex, the
    scalar term ``ζ_time·ζ_band·G·e^{2πiφ}`` of each row, channel and source.

    Chunks hold ``budget`` bytes at ``per_term`` bytes per (row, channel, source).
    """
    from uvlab.gpu.predict.chunking import CPU_BUDGET_BYTES, chunk_from_budget

    cplx = np.result_type(real, np.complex64)
    uvw = xp.asarray(uvw, dtype=xp.float64)
    freq = xp.asarray(freq_hz, dtype=xp.float64)
    nrow, nchan = uvw.shape[0], freq.shape[0]
    if nrow == 0 or prep.nsrc == 0:
        return
    k = freq / C_LIGHT
    per_src = max(nrow * nchan * per_term, 1)
    step = chunk_from_budget(per_src, prep.nsrc, budget or CPU_BUDGET_BYTES)
    if smearing is not None and smearing.time:
        rate = uvw_rate(uvw, smearing.dec0_rad)
    if smearing is not None and smearing.band:
        w_all = smearing.widths(nchan)
        uniform = bool(np.all(w_all == w_all[0]))
        widths = float(w_all[0]) if uniform else xp.asarray(w_all)[:, None, None]
    for s0 in range(0, prep.nsrc, step):
        sl = slice(s0, min(s0 + step, prep.nsrc))
        tau = terms.delay_m(uvw, prep.lmn[sl], xp)  # (row, src) metres
        turns = k[:, None, None] * tau[None, :, :]  # (chan, row, src)
        term = terms.phasor_of_turns(turns, real, cplx, xp)
        del turns
        weight = None
        if smearing is not None and smearing.band:
            tb = tau.astype(real)[None, :, :]
            weight = terms.band_smearing(tb, widths, xp).astype(real, copy=False)
        if smearing is not None and smearing.time:
            trate = terms.delay_m(rate, prep.lmn[sl], xp).astype(real)
            zt = terms.time_smearing(
                trate[None, :, :], freq.astype(real)[:, None, None], smearing.int_s, xp
            )
            weight = zt if weight is None else weight * zt
        if prep.quad is not None:
            q = prep.quad[sl]
            ul, vl = k[:, None] * uvw[None, :, 0], k[:, None] * uvw[None, :, 1]  # (chan, row)
            expo = (
                q[:, 0] * (ul**2)[..., None]
                + q[:, 1] * (vl**2)[..., None]
                + q[:, 2] * (ul * vl)[..., None]
            )
            g = xp.exp(-expo).astype(real, copy=False)
            weight = g if weight is None else weight * g
        if weight is not None:
            term *= weight
        yield sl, term
