"""ducc0, the optional CPU engine: whether it is there, and the calls uvlab makes.

uvlab uses two parts of ducc0 (Arras et al. 2021):

- the type-1 NUFFT with a plan (``ducc0.nufft.plan``), for ``conv`` with the
  ES kernel (:mod:`uvlab.gpu.gridders.conv`, engine ``"auto"`` or
  ``"ducc"``): :func:`nufft_plan` sorts the samples once, :func:`plan_images`
  grids, FFTs and corrects one or several sets of weighted visibilities on
  those samples (the dirty image and the PSF in one pass; the plan is kept
  between images of the same samples, :mod:`uvlab.gpu.imaging.reuse`);
- the w-gridder's ``ducc0.wgridder.experimental.vis2dirty``
  (:func:`dirty_image`), for ``conv`` with the w-term and for the
  benchmark's CPU comparison (:mod:`uvlab.gpu.bench.grid_data`);
- its incremental type-1 NUFFT (:func:`incremental_nufft`, :func:`add_nufft_points`):
  ``ducc`` in parts on a cluster, one grid a worker for all its chunks
  (:mod:`uvlab.gpu.imaging.nufft_parts`);
- their adjoints for degridding (:mod:`uvlab.gpu.gridders.degrid`): the
  type-2 NUFFT (:func:`predict_nufft`) and ``dirty2vis``
  (:func:`predict_image`).

Nothing else in :mod:`uvlab.gpu` imports ducc0, and this module imports it
only when called.

Conventions (DESIGN §1): the NUFFT's coordinates are
``(2π·cell·v, −2π·cell·u)`` on an N×N grid whose index 0 is the mode −N/2,
so with ``forward=True`` its output is ``Σ wvis·exp(−2πi(u·l_i + v·m_j))`` at
``[j, i]``, the uvlab image before its real part. For the w-gridder, uvw in
wavelengths are passed as metres at ``freq = c``; with ``flip_v=True``
ducc0's output ``D[a, b]`` has a → −l and b → +m, so ``img[j, i]`` is ``D.T``.

Both run in double precision here: the NUFFT plan takes float32 coordinates
with complex64 values only, and float32 coordinates cost the default scene's
512² image 40 times the error against the DFT (RMS 2.4e-7 of the peak
against 5.8e-9 at ε = 1e-5).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.timing import timed

#: ducc0's w-gridder needs images of at least this many pixels a side.
MIN_NPIX = 32


def available() -> bool:
    """Whether ducc0's w-gridder can be imported."""
    try:
        import ducc0.wgridder.experimental  # noqa: F401
    except ImportError:
        return False
    return True


def _wgridder_args(u, v, w, cell_rad, epsilon, wgridding, nthreads) -> dict:
    """The arguments ``vis2dirty`` and ``dirty2vis`` share, in uvlab's conventions.

    ``[u, v, w]`` in wavelengths at ``freq = c`` (w = 0 when None), square pixels,
    ``flip_v`` and no division by n: ducc0's dirty is uvlab's image transposed.
    """
    u = np.asarray(u, dtype=np.float64)
    wcol = np.zeros_like(u) if w is None else np.asarray(w, dtype=np.float64)
    return dict(
        uvw=np.stack([u, np.asarray(v, dtype=np.float64), wcol], axis=1),
        freq=np.array([C_LIGHT]),
        pixsize_x=float(cell_rad),
        pixsize_y=float(cell_rad),
        epsilon=float(epsilon),
        do_wgridding=bool(wgridding),
        divide_by_n=False,
        flip_v=True,
        nthreads=int(nthreads),
    )


#: ducc0's NUFFT pads its grid by a factor in [σ_min, SIGMA_MAX], at its own choice.
SIGMA_MIN, SIGMA_MAX = 1.19, 2.51


def nufft_plan(
    u, v, npix: int, cell_rad: float, epsilon: float, *, sigma: float = 2.0, nthreads: int = 0
):
    """A ducc0 type-1 NUFFT plan for ``npix``² images of samples at (u, v).

    Parameters
    ----------
    u, v : (nvis,) float
        Baseline coordinates, wavelengths (host arrays).
    npix : int
        Image side, pixels.
    cell_rad : float
        Pixel size, radians.
    epsilon : float
        Requested accuracy ε (double precision: > 2e-13).
    sigma : float
        Least padding σ of the grid: ducc0 picks a size in [σ, 2.5]·N (and
        the kernel support that reaches ε there); σ is clipped to [1.19, 2.5].
        At 512² on the default scene σ ≥ 2 spreads with support 6 instead of
        the 7 of ducc0's own choice (σ ≈ 1.6): 15 % less time, same accuracy.
    nthreads : int
        CPU threads of everything the plan runs; 0 uses every core.

    Returns
    -------
    ducc0.nufft.plan
        For :func:`plan_images`; not to be used from two threads at once.
    """
    import ducc0.nufft

    return ducc0.nufft.plan(
        nu2u=True,
        coord=_nufft_coord(u, v, cell_rad),
        grid_shape=(int(npix), int(npix)),
        epsilon=float(epsilon),
        nthreads=int(nthreads),
        sigma_min=min(max(float(sigma), SIGMA_MIN), 2.5),
        sigma_max=SIGMA_MAX,
    )


def _nufft_coord(u, v, cell_rad: float) -> np.ndarray:
    """(nvis, 2) ducc0 NUFFT coordinates ``(2π·cell·v, −2π·cell·u)`` of uvlab's image axes."""
    coord = np.empty((np.size(u), 2))
    np.multiply(np.asarray(v, dtype=np.float64), 2.0 * np.pi * cell_rad, out=coord[:, 0])
    np.multiply(np.asarray(u, dtype=np.float64), -2.0 * np.pi * cell_rad, out=coord[:, 1])
    return coord


def incremental_nufft(
    npix: int, epsilon: float, *, npoints: int, sigma: float = 2.0, nthreads: int = 0
):
    """A ducc0 type-1 NUFFT that takes its samples in batches: one grid for all of them.

    ``ducc0.nufft.experimental.incremental_nu2u``: each :func:`add_nufft_points` spreads a
    batch into ducc0's padded grid (kept inside the object), and ``evaluate_and_reset()``
    transforms and corrects once, giving what :func:`plan_images` gives for all the
    batches' samples at once. ducc0 chooses its padding and kernel from ``epsilon``,
    ``sigma`` (as :func:`nufft_plan`) and ``npoints``, the number of samples it will be
    given in all: with the plan's count the two choose the same grid, and the image is
    the plan's to rounding.
    """
    import ducc0.nufft.experimental

    return ducc0.nufft.experimental.incremental_nu2u(
        npoints_estimate=max(1, int(npoints)),
        grid_shape=(int(npix), int(npix)),
        forward=True,
        epsilon=float(epsilon),
        nthreads=int(nthreads),
        sigma_min=min(max(float(sigma), SIGMA_MIN), 2.5),
        sigma_max=SIGMA_MAX,
    )


def add_nufft_points(transform, u, v, values, cell_rad: float, *, mirrored=False) -> None:
    """Spread samples at (u, v) (wavelengths) with complex ``values`` into an
    :func:`incremental_nufft`; ``mirrored``: ``values`` holds the samples at (u, v) and
    then as many at (−u, −v)."""
    coord = _nufft_coord(u, v, cell_rad)
    if mirrored:
        coord = np.concatenate([coord, -coord])
    transform.add_points(coord=coord, points=np.ascontiguousarray(values, dtype=np.complex128))


def incremental_predict(
    img, epsilon: float, *, npoints: int, sigma: float = 2.0, nthreads: int = 0
):
    """ducc0's type-2 NUFFT of an image that reads its samples in batches: the image is
    corrected, padded and transformed once (``incremental_u2nu``), and each
    :func:`read_nufft_points` interpolates a batch, as :func:`predict_nufft` would for
    them (the same grid where ducc0 is told the same ``npoints``)."""
    import ducc0.nufft.experimental

    return ducc0.nufft.experimental.incremental_u2nu(
        npoints_estimate=max(1, int(npoints)),
        grid=np.ascontiguousarray(img, dtype=np.complex128),
        forward=False,
        epsilon=float(epsilon),
        nthreads=int(nthreads),
        sigma_min=min(max(float(sigma), SIGMA_MIN), 2.5),
        sigma_max=SIGMA_MAX,
    )


def read_nufft_points(transform, u, v, cell_rad: float) -> np.ndarray:
    """``Σ img·exp(+2πi(u·l + v·m))`` at (u, v) (wavelengths), (nvis,) complex128, from an
    :func:`incremental_predict`."""
    return transform.get_points(coord=_nufft_coord(u, v, cell_rad))


def plan_images(plan, wvis, *, timer=None) -> np.ndarray:
    """Unnormalised images ``Re Σ wvis·exp(−2πi(u·l + v·m))`` of a plan's samples.

    Parameters
    ----------
    plan : from :func:`nufft_plan`
    wvis : (nvis,) or (ntrans, nvis) complex
        Weight × visibility, one row per image (e.g. the dirty image's and
        the PSF's: one pass sorts, grids and FFTs both).
    timer : StageTimer, optional
        The ducc0 call (gridding, FFT and correction) is timed as ``"grid"``.

    Returns
    -------
    (npix, npix) or (ntrans, npix, npix) float64
        ``img[..., j, i]`` at ``l_i``, ``m_j`` (C-contiguous).
    """
    points = np.ascontiguousarray(wvis, dtype=np.complex128)
    with timed(timer, "grid"):
        out = plan.nu2u(points=points, forward=True)
    return np.ascontiguousarray(out.real)


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

    args = dict(
        _wgridder_args(u, v, w, cell_rad, epsilon, wgridding, nthreads),
        vis=np.ascontiguousarray(wvis)[:, None],
        npix_x=int(npix),
        npix_y=int(npix),
    )
    with timed(timer, "grid"):
        d = vis2dirty(**args)
    return np.ascontiguousarray(d.T)


def predict_nufft(
    img, u, v, cell_rad: float, epsilon: float, *, sigma: float = 2.0, nthreads: int = 0, timer=None
) -> np.ndarray:
    """Visibilities ``Σ img·exp(+2πi(u·l + v·m))`` by ducc0's type-2 NUFFT.

    The adjoint of :func:`nufft_plan` + :func:`plan_images` on the same
    coordinates ``(2π·cell·v, −2π·cell·u)``, with ``forward=False``.

    Parameters
    ----------
    img : (N, N) float or complex
        ``img[j, i]`` at ``l_i``, ``m_j`` (host array).
    u, v : (nvis,) float
        Wavelengths (host arrays).
    cell_rad, epsilon, sigma, nthreads
        As :func:`nufft_plan`.
    timer : StageTimer, optional
        The ducc0 call is timed as ``"grid"``.

    Returns
    -------
    (nvis,) complex128
    """
    import ducc0.nufft

    args = dict(
        grid=np.ascontiguousarray(img, dtype=np.complex128),
        coord=_nufft_coord(u, v, cell_rad),
        forward=False,
        epsilon=float(epsilon),
        nthreads=int(nthreads),
        sigma_min=min(max(float(sigma), SIGMA_MIN), 2.5),
        sigma_max=SIGMA_MAX,
    )
    with timed(timer, "grid"):
        return ducc0.nufft.u2nu(**args)


def predict_image(
    img,
    u,
    v,
    cell_rad: float,
    epsilon: float,
    *,
    w=None,
    wgridding: bool = False,
    nthreads: int = 0,
    timer=None,
) -> np.ndarray:
    """Visibilities of a real model image by ducc0's ``dirty2vis`` (the w-gridder).

    ``V = Σ img·exp(+2πi(u·l + v·m [+ w·(n − 1)]))``: the adjoint of
    :func:`dirty_image` (same axes: ducc0's dirty is ``img.T`` with
    ``flip_v=True``, and no division by n).

    Parameters
    ----------
    img : (N, N) float32 or float64
        ``img[j, i]`` at ``l_i``, ``m_j``; its dtype sets ducc0's precision.
    u, v, w : (nvis,) float
        Wavelengths (host arrays); w is used only with ``wgridding``.
    cell_rad, epsilon, nthreads
        As :func:`dirty_image`.
    timer : StageTimer, optional
        The ducc0 call alone is timed as ``"grid"``.

    Returns
    -------
    (nvis,) complex64 or complex128
    """
    from ducc0.wgridder.experimental import dirty2vis

    args = dict(
        _wgridder_args(u, v, w, cell_rad, epsilon, wgridding, nthreads),
        dirty=np.ascontiguousarray(np.asarray(img).T),
    )
    with timed(timer, "grid"):
        return dirty2vis(**args)[:, 0]
