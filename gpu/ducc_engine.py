"""ducc0, the optional CPU engine: whether it is there, and the one call uvlab makes.

uvlab uses one function of ducc0 (Arras et al. 2021): the w-gridder's
``ducc0.wgridder.experimental.vis2dirty``, for ``conv`` with the ES kernel
(:mod:`uvlab.gpu.gridders.conv`, engine ``"auto"`` or ``"ducc"``) and for the
benchmark's CPU comparison (:mod:`uvlab.gpu.bench.grid_data`). Nothing else
in :mod:`uvlab.gpu` imports ducc0, and this module imports it only when
called.

Conventions (DESIGN §1): uvw in wavelengths are passed as metres at
``freq = c``; with ``flip_v=True`` ducc0's output ``D[a, b]`` has a → −l and
b → +m, so the uvlab image ``img[j, i]`` is ``D.T``.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.constants import C_LIGHT

#: ducc0's w-gridder needs images of at least this many pixels a side.
MIN_NPIX = 32


def available() -> bool:
    """Whether ducc0's w-gridder can be imported."""
    try:
        import ducc0.wgridder.experimental  # noqa: F401
    except ImportError:
        return False
    return True


def dirty_image(
    u,
    v,
    wvis,
    npix: int,
    cell_rad: float,
    epsilon: float,
    *,
    w=None,
    wgridding: bool = False,
    nthreads: int = 0,
    timer=None,
) -> np.ndarray:
    """Unnormalised dirty image ``Re Σ wvis·exp(−2πi(u·l + v·m))`` by ducc0.

    Parameters
    ----------
    u, v : (nvis,) float
        Baseline coordinates, wavelengths (host arrays).
    wvis : (nvis,) complex
        Weight × visibility; complex64 runs ducc0 in single precision,
        complex128 in double.
    npix : int
        Image side, pixels (at least :data:`MIN_NPIX`).
    cell_rad : float
        Pixel size, radians.
    epsilon : float
        Requested accuracy ε.
    w : (nvis,) float, optional
        Wavelengths (zero when None); used only with ``wgridding``.
    wgridding : bool
        Include the w-term ``w·(n − 1)`` (ducc0's ``do_wgridding``).
    nthreads : int
        CPU threads; 0 uses every core.
    timer : StageTimer, optional
        The ducc0 call alone is timed as ``"grid"``.

    Returns
    -------
    (npix, npix) float
        ``img[j, i]`` at ``l_i``, ``m_j`` (C-contiguous).
    """
    from ducc0.wgridder.experimental import vis2dirty

    u = np.asarray(u, dtype=np.float64)
    wcol = np.zeros_like(u) if w is None else np.asarray(w, dtype=np.float64)
    uvw = np.stack([u, np.asarray(v, dtype=np.float64), wcol], axis=1)
    args = dict(
        uvw=uvw,
        freq=np.array([C_LIGHT]),
        vis=np.ascontiguousarray(wvis)[:, None],
        npix_x=int(npix),
        npix_y=int(npix),
        pixsize_x=float(cell_rad),
        pixsize_y=float(cell_rad),
        epsilon=float(epsilon),
        do_wgridding=bool(wgridding),
        divide_by_n=False,
        flip_v=True,
        nthreads=int(nthreads),
    )
    if timer is None:
        d = vis2dirty(**args)
    else:
        with timer.stage("grid"):
            d = vis2dirty(**args)
    return np.ascontiguousarray(d.T)
