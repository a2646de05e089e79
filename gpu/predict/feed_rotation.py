"""Feed rotation (P-Jones): the sky's frame turned into the feeds' as a dish tracks.

An alt-az dish carries its feeds round the sky as it tracks: seen from the source, the
receptors turn by the parallactic angle χ (plus the receptor angle the FEED table
gives). The measurement equation's P-Jones (Hamaker, Bregman & Sault 1996; MeqTrees'
``Rot``, codex-africanus' ``feed_rotation``) turns the sky's frame into the feeds':

- linear feeds (X, Y): ``P = [[cos χ, sin χ], [−sin χ, cos χ]]``;
- circular feeds (R, L): ``P = diag(e^{−iχ}, e^{iχ})``.

So ``V_pq = G_p·E_p·P_p·B·P_qᴴ·E_qᴴ·G_qᴴ``: Stokes I (and V) are unchanged, Q and U
turn by 2χ. An equatorial mount keeps its feeds fixed on the sky (χ = 0). Where the beam
is scalar, E commutes with P and P joins the gains (``G·P``).
"""

from __future__ import annotations

from uvlab.gpu.backend import get_xp


def feed_rotation(angle_rad, feeds: str):
    """(…, 2, 2) complex128 P-Jones for rotation angles ``angle_rad`` (…), in ``feeds``' basis."""
    xp = get_xp(angle_rad)
    chi = xp.asarray(angle_rad, dtype=xp.float64)
    out = xp.zeros((*chi.shape, 2, 2), dtype=xp.complex128)
    if feeds == "linear":
        c, s = xp.cos(chi), xp.sin(chi)
        out[..., 0, 0], out[..., 0, 1], out[..., 1, 0], out[..., 1, 1] = c, s, -s, c
    elif feeds == "circular":
        out[..., 0, 0], out[..., 1, 1] = xp.exp(-1j * chi), xp.exp(1j * chi)
    else:
        raise ValueError(f"feed rotation needs linear or circular feeds, not {feeds!r}")
    return out


def rotated_gains(gains, rotation, nchan: int):
    """``G·P`` per (time, ant, chan): (time, ant, chan, 2, 2) complex128.

    ``gains`` (time, ant, chan) scalar, (time, ant, chan, 2, 2), or None (identity);
    ``rotation`` (time, ant, 2, 2) from :func:`feed_rotation`.
    """
    xp = get_xp(rotation)
    p = rotation[:, :, None]  # the same in every channel
    if gains is None:
        return xp.ascontiguousarray(xp.broadcast_to(p, (*rotation.shape[:2], nchan, 2, 2)))
    g = xp.asarray(gains)
    if g.ndim == 3:
        return g[..., None, None] * p
    return xp.matmul(g, p)


__all__ = ["feed_rotation", "rotated_gains"]
