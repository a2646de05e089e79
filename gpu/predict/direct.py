"""Row-based direct sum, vectorised with an array module (NumPy, or CuPy as a fallback).

For a block of rows, channels and sources the phases
``(ν/c)·(u·l + v·m + w·(n − 1))`` are formed in float64 and reduced modulo one
turn *before* any cast to float32, so the float32 path keeps its phase
accuracy (|φ| ≲ 10⁴ turns on long baselines would otherwise lose ~10⁻³ rad).
The source sum is a matrix product over the source axis:
``V[c, r, :] = (w·e^{2πiφ})[c, r, :] @ S[c, :, :]`` with S the spectrally
scaled Stokes parameters (I, or I, Q, U, V). Loops run over source chunks only.
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


@dataclass(frozen=True, eq=False)
class PreparedSources:
    """Source arrays moved to one array module, with the per-channel Stokes.

    Attributes
    ----------
    lmn : (nsrc, 3) float64
    stokes : (chan, nsrc, npol) real dtype — S0·(ν/ν0)^α, npol = 1 (I) or 4 (I, Q, U, V)
    quad : (nsrc, 3) float64 or None — Gaussian coefficients (None if all points)
    """

    lmn: object
    stokes: object
    quad: object
    npol: int

    @property
    def nsrc(self) -> int:
        return int(self.lmn.shape[0])


def prepare_sources(sources: SourceArrays, freq_hz, mode: str, dtype, xp=np) -> PreparedSources:
    """Move the sky to ``xp`` and evaluate its spectra per channel (:func:`terms.spectral_flux`)."""
    npol = terms.check_mode(mode)
    per_chan = terms.spectral_flux(freq_hz, sources, npol, xp).astype(dtype)
    quad = terms.gaussian_quadratic(sources.shape, xp) if sources.has_gaussians else None
    return PreparedSources(xp.asarray(sources.lmn, dtype=xp.float64), per_chan, quad, npol)


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
    row_beam : (E, t, p, q) or None — scalar voltage beams E (time, ant, chan, src) and
        each row's indices into its time and antenna axes (row,) int: every term is
        multiplied by E[t, p]·conj(E[t, q]) (the E-Jones of both antennas, per row)

    Returns
    -------
    (row, chan, npol) complex of ``dtype`` precision, Stokes accumulators
    ``Σ_s ζ·G·e^{2πiφ}·S_s(ν)``; :func:`combine_pol` forms the products.
    """
    from uvlab.gpu.predict.chunking import CPU_BUDGET_BYTES, chunk_from_budget

    real = np.dtype(dtype)
    cplx = np.result_type(real, np.complex64)
    uvw = xp.asarray(uvw, dtype=xp.float64)
    freq = xp.asarray(freq_hz, dtype=xp.float64)
    nrow, nchan = uvw.shape[0], freq.shape[0]
    acc = xp.zeros((nchan, nrow, prep.npol), dtype=cplx)
    if nrow == 0 or prep.nsrc == 0:
        return acc.transpose(1, 0, 2)
    k = freq / C_LIGHT
    per_src = max(nrow * nchan * BYTES_PER_TERM, 1)
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
        if row_beam is not None:
            eb, ti, pi, qi = row_beam
            e_s = eb[:, :, :, sl]
            pair = e_s[ti, pi] * xp.conj(e_s[ti, qi])  # (row, chan, src)
            term *= xp.transpose(pair, (1, 0, 2)).astype(cplx, copy=False)
        stokes = prep.stokes[:, sl, :].astype(cplx)  # (chan, src, npol)
        acc += xp.matmul(term, stokes)
    return acc.transpose(1, 0, 2)
