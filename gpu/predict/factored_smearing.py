"""Per-antenna phasors weighted per baseline: Stokes I with smearing and Gaussians on the CPU.

Without smearing or Gaussian shapes, V = K·diag(S)·Kᴴ is one matrix product per (time,
channel) (:mod:`uvlab.gpu.predict.factored`). The smearing and shape factors break that
product, since they belong to the baseline, but not the factorisation of the phase:

    V_pq(t, ν) = Σ_s (S_s(ν)·K_ps)·conj(K_qs)·ζ_time·ζ_band·G,
    K_ps = exp(+2πi·(ν/c)·τ_ps),  τ_ps = u_p·l_s + v_p·m_s + w_p·(n_s − 1)

so one complex exponential per antenna (64 for MeerKAT) replaces one per baseline (2016),
and what stays per baseline are products and the real factors of
:mod:`uvlab.gpu.predict.baseline_factors`, functions of antenna differences
(τ_pq = τ_p − τ_q, its rate, u_pq, v_pq). The direct sum (:mod:`uvlab.gpu.predict.direct`)
spends a float64 cos, sin and one or two more transcendental functions per (baseline,
channel, source); here there are none per baseline for point sources near the phase
centre, and one exp per Gaussian term.

Precision: τ and τ̇ are float64; the phases are reduced modulo one turn in float64 before
any cast (as in :mod:`uvlab.gpu.predict.direct`), and the antennas' uvw are taken about
their mean at each time, so that only differences enter (an origin 6400 km away costs
nothing). float64 agrees with :func:`uvlab.gpu.predict.reference.predict_reference` to
1e-15–1e-13 relative, as the direct sum does; float32 works in float32 after the phase
reduction, to ~1e-7.

Layout: per-antenna arrays are (src, chan, ant, time); a block of baselines is
(src, chan, bl, time), gathered along the antenna axis in contiguous runs of times, so
that factors of (src, bl, time) broadcast over the channel axis with long inner loops and
the source sum adds whole slices. Blocks hold :data:`BLOCK_ELEMENTS` elements; the
per-antenna terms of a chunk of (times, sources, channels) fit the CPU budget of
:mod:`uvlab.gpu.predict.chunking`. Written with an array module; used with NumPy.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from uvlab.gpu.backend import to_numpy
from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.geometry import uvw_rate
from uvlab.gpu.predict import terms
from uvlab.gpu.predict.baseline_factors import (
    Scratch,
    buffer,
    gather,
    gaussian_weights,
    plan_smearing,
    smearing_weights,
)
from uvlab.gpu.predict.beams import beam_times
from uvlab.gpu.predict.direct import PreparedSources

#: Elements (src × chan × bl × time) of one baseline block: 2¹⁶ was the fastest of
#: 2¹⁴–2¹⁷ on the 2-core development machine (at 2¹⁷ OpenBLAS starts threads for the
#: series' matrix product, and they compete with the rest).
BLOCK_ELEMENTS = 2**16

#: Sources × channels of a chunk at most (see :func:`chunk_shape`).
SRC_CHAN_MAX = 64

#: Bytes per (src, chan, ant, time) element of the per-antenna terms.
BYTES_PER_ANTENNA_TERM = 48

#: Worker threads for the baseline blocks. NumPy releases the GIL in its loops, and most
#: of them alone ran 1.7–2 times faster on two threads of the 2-core development machine
#: (float64 exp: 1.2 times), yet the whole predict on two threads was 10–40 % slower than
#: on one, so one is the default.
DEFAULT_THREADS = 1


@dataclass(frozen=True, eq=False)
class AntennaTerms:
    """What a chunk of (times, sources, channels) needs from each antenna.

    Attributes
    ----------
    ks : (src, chan, ant, time) complex — S_s(ν)·K_ps
    kc : (src, chan, ant, time) complex — conj(K_ps)
    delay : (2, src, ant, time) float64 — τ_ps (m) and τ̇_ps (m/s)
    span : (float, float) — bounds on |τ_pq| and |τ̇_pq| over every pair in the chunk
    uv : (2, ant, time) float64 — u, v (m), for Gaussian sources; else None
    neg_k2 : (1, chan, 1, 1) float64 — −(ν/c)², m⁻², for Gaussian sources; else None
    """

    ks: object
    kc: object
    delay: object
    span: tuple[float, float]
    uv: object
    neg_k2: object


def antenna_terms(
    uvw, freq_hz, lmn, stokes, dtype, dec0_rad, gaussian, xp=np, beam=None
) -> AntennaTerms:
    """Per-antenna phasors and delays.

    Parameters
    ----------
    uvw : (time, ant, 3) float64, metres
    freq_hz : (chan,) float64
    lmn : (src, 3) float64
    stokes : (chan, src) real — S_s(ν), folded into ``ks``
    dtype : real working precision of ``ks`` and ``kc``
    dec0_rad : float — phase-centre declination, for the uvw rate
    gaussian : bool — keep the antennas' (u, v) for the Gaussian factors
    beam : (src, chan, ant or 1, time or 1) or None — scalar voltage beams E_ps, folded
        into both phasors (``ks`` = S·E·K, ``kc`` = conj(E·K))
    """
    real = np.dtype(dtype)
    cplx = np.result_type(real, np.complex64)
    coef = xp.stack([lmn[:, 0], lmn[:, 1], lmn[:, 2] - 1.0], axis=1)  # (src, 3)
    rate = uvw_rate(uvw, dec0_rad)
    delay = xp.stack([xp.einsum("tak,sk->sat", uvw, coef), xp.einsum("tak,sk->sat", rate, coef)])
    spread = xp.max(delay, axis=2) - xp.min(delay, axis=2)  # (2, src, time)
    span = tuple(float(v) for v in to_numpy(xp.max(spread.reshape(2, -1), axis=1)))
    k = xp.asarray(freq_hz, dtype=xp.float64) / C_LIGHT
    turns = k[None, :, None, None] * delay[0][:, None]  # (src, chan, ant, time)
    kc = terms.phasor_of_turns(turns, real, cplx, xp)
    del turns
    if beam is not None:
        kc *= xp.asarray(beam).astype(cplx if xp.iscomplexobj(beam) else real, copy=False)
    ks = kc * xp.asarray(stokes, dtype=real).T[:, :, None, None]
    xp.conjugate(kc, out=kc)
    uv = neg_k2 = None
    if gaussian:
        uv = xp.ascontiguousarray(uvw[:, :, :2].transpose(2, 1, 0))
        neg_k2 = -(k**2)[None, :, None, None]
    return AntennaTerms(ks, kc, delay, span, uv, neg_k2)


def baseline_block(terms: AntennaTerms, p, q, quad, plan, real, xp=np, work=None):
    """Σ_s over one block of baselines: (chan, bl, time) complex.

    ``p``, ``q`` (bl,) index the antennas of ``terms``; ``quad`` holds the Gaussian
    coefficients of the sources (None for points); ``plan`` is the chunk's
    :class:`~uvlab.gpu.predict.baseline_factors.SmearingPlan` (None without smearing);
    ``work`` a :class:`~uvlab.gpu.predict.baseline_factors.Scratch` for the temporaries.
    """
    ns, nchan, _, nt = terms.ks.shape
    shape = (ns, nchan, len(p), nt)
    vis = gather(terms.ks, p, 2, buffer(work, "vis", shape, terms.ks.dtype, xp), xp)
    vis *= gather(terms.kc, q, 2, buffer(work, "kq", shape, terms.kc.dtype, xp), xp)
    weight = None
    if plan is not None:
        dshape = (2, ns, len(p), nt)
        dpq = gather(terms.delay, p, 2, buffer(work, "dp", dshape, np.float64, xp), xp)
        dpq -= gather(terms.delay, q, 2, buffer(work, "dq", dshape, np.float64, xp), xp)
        weight = smearing_weights(dpq, plan, real, xp, work)
    if quad is not None:
        g = gaussian_weights(terms.uv, p, q, quad, terms.neg_k2, real, xp, work)
        weight = g if weight is None else xp.multiply(g, weight, out=g)
    if weight is not None:
        vis *= weight
    return vis.sum(axis=0, out=buffer(work, "sum", shape[1:], vis.dtype, xp))


def chunk_shape(ntime: int, nsrc: int, nchan: int, nant: int, nbl: int, budget: float):
    """(times, sources, channels) of one chunk of antenna terms.

    Sources × channels stay ≤ :data:`SRC_CHAN_MAX`, so that a block keeps ≥ 1024
    baselines × times in its inner loops; then as many times as one baseline per block
    and the memory ``budget`` (bytes) allow.
    """
    nc = max(1, min(nchan, SRC_CHAN_MAX))
    ns = max(1, min(nsrc, SRC_CHAN_MAX // nc))
    per_time = ns * nc * 2 * nant * BYTES_PER_ANTENNA_TERM + nc * nbl * 16
    return max(1, min(ntime, BLOCK_ELEMENTS // (ns * nc), int(budget // per_time))), ns, nc


def source_groups(prep: PreparedSources, ns: int, xp=np, centre: bool = True):
    """Sources by the work they need: ``(centre, groups)``.

    ``centre`` indexes the point sources at the phase centre (l = m = 0, n = 1), whose
    visibility is S(ν) on every baseline, exactly: no phase, no smearing.
    ``groups`` is [(source indices, Gaussian coefficients or None)], the other points,
    then the Gaussians, ≤ ``ns`` sources each. ``centre=False`` (with beams) leaves
    ``centre`` empty and puts those sources in the groups.
    """
    gauss = np.zeros(prep.nsrc, dtype=bool)
    if prep.quad is not None:
        gauss = np.asarray(to_numpy(xp.any(prep.quad != 0, axis=1)))
    lmn = np.asarray(to_numpy(prep.lmn))
    at_centre = ~gauss & (lmn[:, 0] == 0) & (lmn[:, 1] == 0) & (lmn[:, 2] == 1)
    if not centre:
        at_centre[:] = False
    groups = []
    for flag in (False, True):
        idx_all = np.flatnonzero((gauss == flag) & ~at_centre)
        for s0 in range(0, len(idx_all), ns):
            idx = xp.asarray(idx_all[s0 : s0 + ns])
            groups.append((idx, prep.quad[idx] if flag else None))
    return xp.asarray(np.flatnonzero(at_centre)), groups


class Workspaces(threading.local):
    """One :class:`~uvlab.gpu.predict.baseline_factors.Scratch` per thread."""

    def __init__(self, xp=np):
        self.work = Scratch(xp)


def predict_chunk(
    uvw,
    p,
    q,
    freq_hz,
    lmn,
    stokes,
    sources,
    smearing,
    dtype,
    xp=np,
    pool=None,
    works=None,
    beam=None,
):
    """Σ over the sources for one chunk of times and channels: (chan, bl, time) complex.

    ``uvw`` (time, ant, 3) are about the antennas' mean, ``p``, ``q`` (bl,) index them;
    ``freq_hz``, ``stokes`` (chan, src) and ``smearing`` (its widths) are the chunk's
    channels; ``sources`` is what :func:`source_groups` returns. Blocks run on ``pool``
    if given, with their temporaries in ``works`` (:class:`Workspaces`, one per thread).
    ``beam`` (time or 1, ant or 1, chan, src) scalar voltage beams of the chunk's times,
    antennas and channels (None: E = 1); with it, sources at the phase centre take the
    general path too (E_p·conj(E_q) need not be 1 there).
    """
    real = np.dtype(dtype)
    nchan, nbl, ntime = len(freq_hz), len(p), uvw.shape[0]
    works = works or Workspaces(xp)
    acc = works.work("acc", (nchan, nbl, ntime), np.result_type(real, np.complex64))
    acc[...] = 0
    centre, groups = sources
    if len(centre):
        acc += stokes[:, centre].sum(axis=1)[:, None, None]
    dec0 = smearing.dec0_rad if smearing is not None else 0.0
    for idx, quad in groups:
        gauss = quad is not None
        eb = None if beam is None else xp.transpose(beam[..., idx], (3, 2, 1, 0))
        terms = antenna_terms(
            uvw, freq_hz, lmn[idx], stokes[:, idx], real, dec0, gauss, xp, beam=eb
        )
        plan = plan_smearing(smearing, freq_hz, terms.span, real, xp)
        nb = max(1, BLOCK_ELEMENTS // (nchan * len(idx) * ntime))

        def block(b0, terms=terms, quad=quad, plan=plan, nb=nb):
            bl = slice(b0, min(b0 + nb, nbl))
            acc[:, bl] += baseline_block(terms, p[bl], q[bl], quad, plan, real, xp, works.work)

        if pool is None:
            for b0 in range(0, nbl, nb):
                block(b0)
        else:
            list(pool.map(block, range(0, nbl, nb)))
    return acc


def predict_factored_smeared(
    ant_uvw,
    ant1,
    ant2,
    freq_hz,
    prep: PreparedSources,
    smearing,
    dtype,
    xp=np,
    budget=None,
    threads: int | None = None,
    beam=None,
):
    """Stokes-I visibilities of all times from per-antenna phasors and per-baseline factors.

    Parameters
    ----------
    ant_uvw : (time, nant, 3) float, metres — per-antenna uvw about any common origin
    ant1, ant2 : (bl,) int — baselines p, q (uvw = uvw_p − uvw_q)
    freq_hz : (chan,) float64
    prep : PreparedSources — Stokes I (``npol == 1``, the ``dtype`` precision), points
        and/or Gaussians
    smearing : terms.Smearing or None
    dtype : numpy.float32 or numpy.float64
    budget : bytes for the per-antenna terms of one chunk (default ``CPU_BUDGET_BYTES``)
    threads : baseline blocks run on this many threads (NumPy only; default
        :data:`DEFAULT_THREADS`)
    beam : (time or 1, nant or 1, chan, src) or None — scalar voltage beams E_ps
        (:mod:`uvlab.gpu.predict.beams`), folded into the antenna phasors

    Returns
    -------
    (time, bl, chan) complex of ``dtype`` precision
    """
    from uvlab.gpu.predict.chunking import CPU_BUDGET_BYTES, iter_chunked

    if prep.npol != 1:
        raise ValueError("the per-antenna smearing path predicts Stokes I (mode 'scalar') only")
    real = np.dtype(dtype)
    freq = np.asarray(freq_hz, dtype=np.float64)
    ant1, ant2 = np.asarray(ant1, dtype=np.int64), np.asarray(ant2, dtype=np.int64)
    ntime, nbl, nchan = int(np.shape(ant_uvw)[0]), len(ant1), len(freq)
    cplx = np.result_type(real, np.complex64)
    if ntime * nbl * nchan == 0 or prep.nsrc == 0:
        return xp.zeros((ntime, nbl, nchan), dtype=cplx)
    # only the antennas in use, about their mean at each time: only differences enter
    in_use = np.zeros(int(np.shape(ant_uvw)[1]), dtype=bool)
    in_use[ant1] = in_use[ant2] = True
    index = np.cumsum(in_use) - 1  # antenna → its row among those in use
    p, q = xp.asarray(index[ant1]), xp.asarray(index[ant2])
    uvw = xp.asarray(ant_uvw, dtype=xp.float64)[:, xp.asarray(np.flatnonzero(in_use))]
    uvw = uvw - uvw.mean(axis=1, keepdims=True)
    nant = uvw.shape[1]
    if beam is not None:
        beam = xp.asarray(beam)
        if beam.shape[1] > 1:
            beam = beam[:, xp.asarray(np.flatnonzero(in_use))]
    out = xp.empty((ntime, nbl, nchan), dtype=cplx)
    nt, ns, nc = chunk_shape(ntime, prep.nsrc, nchan, nant, nbl, budget or CPU_BUDGET_BYTES)
    sources = source_groups(prep, ns, xp, centre=beam is None)
    nthreads = (threads or DEFAULT_THREADS) if xp is np else 1
    pool = ThreadPoolExecutor(nthreads) if nthreads > 1 else None
    works = Workspaces(xp)

    def run(tsl: slice):
        for c0 in range(0, nchan, nc):
            csl = slice(c0, min(c0 + nc, nchan))
            sm = smearing
            if sm is not None and sm.band:
                sm = replace(sm, chan_width_hz=sm.widths(nchan)[csl])
            stokes = prep.stokes[csl, :, 0]
            eb = beam_times(beam, tsl)
            eb = None if eb is None else eb[:, :, csl]
            acc = predict_chunk(
                uvw[tsl], p, q, freq[csl], prep.lmn, stokes, sources, sm, real, xp, pool, works,
                beam=eb,
            )  # fmt: skip
            xp.copyto(out[tsl, :, csl], acc.transpose(2, 1, 0))

    try:
        per_time = 2 * nant * ns * nc * BYTES_PER_ANTENNA_TERM + nbl * nc * 16
        for _ in iter_chunked(run, ntime, nt, what="times", bytes_per_unit=per_time):
            pass
    finally:
        if pool is not None:
            pool.shutdown()
    return out
