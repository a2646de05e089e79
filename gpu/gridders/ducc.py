"""ducc0's NUFFT and w-gridder as a catalogue entry of its own (DESIGN §2 ``ducc``).

ducc0 chooses its kernel (an ES of its own shape), support and padding from
the accuracy ε (:meth:`GridParams.accuracy`: ``eps``, else what the support
buys at σ = 2); uvlab's kernel, β, lookup and exact evaluation do not apply.
Without the w-term it runs ducc0's type-1 NUFFT, whose plan (the samples
sorted for the grid, :func:`nufft_plan`) a caller may keep for further
images of the same samples; with ``params.wstack`` and ``w`` given, ducc0's
w-gridder includes the w-term. Calls go through :mod:`uvlab.gpu.ducc_engine`;
on the GPU the record is host-only: the host result is copied to the device.

Its axis plans (:func:`ducc_plans`) are those of uvlab's exact ES chain of
the same support and σ: the analytic aliasing map follows them as a guide,
not a bound, of ducc0's image.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu import ducc_engine
from uvlab.gpu.blocks import block_done
from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.conv import conv_plans
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed


def ducc_plans(spec: ImageSpec, params: GridParams) -> tuple[AxisPlan, AxisPlan]:
    """(u plan, v plan) of uvlab's exact ES chain closest to ducc0's (the map's guide)."""
    return conv_plans(spec, params.with_(kernel="es", exact=True, shape=None))


def nufft_plan(u, v, spec: ImageSpec, params: GridParams, *, timer=None):
    """ducc0's NUFFT plan of samples at (u, v) for ``spec``, timed as ``"sort / bin"``.

    At accuracy :meth:`GridParams.accuracy`, the grid padded at least
    ``params.sigma`` times, on ``params.threads`` threads
    (:func:`uvlab.gpu.ducc_engine.nufft_plan`).
    """
    args = (u, v, spec.npix, spec.cell_rad, params.accuracy())
    kwargs = dict(sigma=params.sigma, nthreads=params.threads)
    with timed(timer, "sort / bin"):
        return ducc_engine.nufft_plan(*args, **kwargs)


def _check(spec: ImageSpec, params: GridParams) -> None:
    if params.compress:
        raise ValueError("compress needs a nearest-cell axis: ducc has none")
    if params.wprojplanes:
        raise ValueError("w-projection (wprojplanes) is conv's only: ducc corrects w with wstack")
    if spec.npix < ducc_engine.MIN_NPIX:
        raise ValueError(f"ducc needs images of at least {ducc_engine.MIN_NPIX} pixels a side")


def dirty(
    u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None, plan=None,
    on_block=None,
) -> np.ndarray:  # fmt: skip
    """Unnormalised dirty image by ducc0: its NUFFT, or its w-gridder for the w-term.

    Parameters
    ----------
    u, v : (nvis,) float
        Baseline coordinates, wavelengths.
    wvis : (nvis,) or (ntrans, nvis) complex
        Weight × visibility; several rows give as many images (NUFFT only).
    spec : ImageSpec
    params : GridParams
        ``eps`` (or ``support``), ``sigma``, ``threads``, ``wstack``.
    w : (nvis,) float, optional
        Wavelengths; with ``params.wstack`` ducc0's w-gridder includes the w-term.
    timer : StageTimer, optional
        The ducc0 call is timed as ``"grid"``.
    plan : optional
        :func:`nufft_plan` of these u, v, ``spec`` and ``params``; made here when None.
    on_block : callable() -> None, optional
        Called before and after the ducc0 calls (a cancel check): one ducc0 call
        cannot be interrupted, so it bounds how soon a cancel takes effect.

    Returns
    -------
    (N, N) or (ntrans, N, N) float64
        ``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the spec's grid.
    """
    _check(spec, params)
    block_done(on_block)
    if not (params.wstack and w is not None):
        plan = plan if plan is not None else nufft_plan(u, v, spec, params, timer=timer)
        block_done(on_block)
        return ducc_engine.plan_images(plan, wvis, timer=timer)
    return ducc_engine.dirty_image(
        u,
        v,
        np.asarray(wvis, dtype=np.complex128),
        spec.npix,
        spec.cell_rad,
        params.accuracy(),
        w=w,
        wgridding=True,
        nthreads=params.threads,
        timer=timer,
    )


def predict(img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None) -> np.ndarray:
    """Visibilities of a model image by ducc0, the adjoint of :func:`dirty`.

    Its type-2 NUFFT at accuracy :meth:`GridParams.accuracy`; with
    ``params.wstack`` and ``w`` given, its ``dirty2vis`` with the w-term.
    ``img`` is ``(N, N)`` float or complex, Jy per pixel; returns
    ``(nvis,) complex128``.
    """
    _check(spec, params)
    eps = params.accuracy()
    if params.wstack and w is not None:
        img = np.asarray(img)
        args = (u, v, spec.cell_rad, eps)
        kw = dict(w=w, wgridding=True, nthreads=params.threads, timer=timer)
        vis = ducc_engine.predict_image(np.asarray(img.real, np.float64), *args, **kw)
        if np.iscomplexobj(img):
            vis = vis + 1j * ducc_engine.predict_image(
                np.asarray(img.imag, np.float64), *args, **kw
            )
        return np.asarray(vis, dtype=np.complex128)
    return ducc_engine.predict_nufft(
        img, u, v, spec.cell_rad, eps, sigma=params.sigma, nthreads=params.threads, timer=timer
    )
