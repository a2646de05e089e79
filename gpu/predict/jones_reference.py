"""The slow, obviously right Jones chain: 2×2 matrix products per row, source and channel.

    V_pq(t, ν) = G_p · ( Σ_s E_ps · X_s,pq · E_qsᴴ ) · G_qᴴ

where X_s,pq = ζ_time·ζ_band·G_s(u,v)·B_s(ν)·exp(+2πi·(ν/c)·τ_pq,s) is one source's
term of the K and B chain, taken from :func:`uvlab.gpu.predict.reference.predict_reference`
(a plain float64 loop) one source at a time, and every product written out with 2×2
``@`` on one row, channel and source at a time. The oracle of the fast paths in tests;
use it only for a few hundred rows.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.predict.reference import predict_reference


def _as_jones(x, shape):
    """Scalars → x·I; (…, 2, 2) kept. Broadcast to ``shape`` + (2, 2), complex128."""
    x = np.asarray(x, dtype=np.complex128)
    if x.shape[-2:] != (2, 2) or x.ndim == len(shape):
        x = x[..., None, None] * np.eye(2)
    return np.broadcast_to(x, (*shape, 2, 2))


def predict_jones_reference(
    ant_uvw, ant1, ant2, freq_hz, sources, mode="linear", smearing=None, beam=None, gains=None
):
    """Visibilities of every time and baseline with E and G, in float64.

    Parameters
    ----------
    ant_uvw : (time, ant, 3) float, metres
    ant1, ant2 : (bl,) int
    freq_hz : (chan,) Hz
    sources : SourceArrays
    mode : {"scalar", "linear", "circular"}
    smearing : Smearing or None
    beam : None, (time, ant, chan, src) scalar voltage beams, or (time, ant, chan, src,
        2, 2) Jones matrices (time and ant may be 1)
    gains : None, (time, ant, chan) scalar, or (time, ant, chan, 2, 2)

    Returns
    -------
    (time, bl, chan) complex128 for "scalar" (scalar E and G only), else
    (time, bl, chan, 2, 2).
    """
    ant_uvw = np.asarray(ant_uvw, dtype=np.float64)
    ntime, nant = ant_uvw.shape[:2]
    nbl, nchan, nsrc = len(ant1), len(freq_hz), sources.nsrc
    rows = (ant_uvw[:, ant1] - ant_uvw[:, ant2]).reshape(-1, 3)
    pmode = "linear" if mode == "scalar" else mode
    e = _as_jones(1.0 if beam is None else beam, (ntime, nant, nchan, nsrc))
    g = _as_jones(1.0 if gains is None else gains, (ntime, nant, nchan))
    if mode == "scalar":
        for name, arr in (("beam", e), ("gains", g)):
            if np.any(arr[..., 0, 1] != 0) or np.any(arr[..., 0, 0] != arr[..., 1, 1]):
                raise ValueError(f"mode 'scalar' takes scalar {name}")
    out = np.zeros((ntime, nbl, nchan, 2, 2), dtype=np.complex128)
    for s in range(nsrc):
        one = sources.select([s])
        if mode == "scalar":
            x = predict_reference(rows, freq_hz, one, "scalar", smearing)
            x = x[..., None, None] * np.eye(2)
        else:
            x = predict_reference(rows, freq_hz, one, pmode, smearing)
        x = x.reshape(ntime, nbl, nchan, 2, 2)
        for t in range(ntime):
            for b in range(nbl):
                p, q = int(ant1[b]), int(ant2[b])
                for c in range(nchan):
                    out[t, b, c] += e[t, p, c, s] @ x[t, b, c] @ e[t, q, c, s].conj().T
    for t in range(ntime):
        for b in range(nbl):
            p, q = int(ant1[b]), int(ant2[b])
            for c in range(nchan):
                out[t, b, c] = g[t, p, c] @ out[t, b, c] @ g[t, q, c].conj().T
    if mode == "scalar":
        return out[..., 0, 0]
    return out
