"""The Hermitian half plane: where the gridders, the degridder and compression put records.

A grid of a real image is Hermitian, so only its u ≥ 0 half is gridded; a record with
u < 0 is mirrored, ``(u, v, V) → (−u, −v, V*)`` (DESIGN §1, Cotton 2014's "gridFlipKernel").
"""

from __future__ import annotations

from uvlab.gpu.backend import get_xp


def half_plane_coords(xu, xv, n_u: int):
    """Wrap ξu into [−Mu/2, Mu/2] and mirror negative ξu: (ξu, ξv, mirrored mask).

    ``xu``, ``xv`` in grid cells (any array module); the mask says which records'
    visibilities are to be conjugated.
    """
    xp = get_xp(xu)
    xu = xu - n_u * xp.rint(xu / n_u)
    neg = xu < 0
    return xp.where(neg, -xu, xu), xp.where(neg, -xv, xv), neg
