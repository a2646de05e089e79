"""Which gridders fill grids of their own, and their dirty image and PSF in one pass.

:func:`grids_in_parts` says which algorithms grid into a grid uvlab holds: the
catalogue's separable gridders on the CPU without w-stacking (the grids of
:mod:`~uvlab.gpu.imaging.grid_parts`, summed over parts; :func:`grid_image` turns a
grid into its image). For them the imager's CPU path images the dirty image and its PSF
of the same samples in one pass (:func:`dirty_and_psf`): :func:`grid_samples` puts the
records in the half plane once, and the numba rung forms each record's taps once for the
two grids (:func:`~uvlab.gpu.gridders.separable.grid_into`); a grid made in parts
(:func:`~uvlab.gpu.imaging.grid_parts.grid_part`) adds each part through it too. Each
grid receives the products it would receive gridded alone, in the same order, so the
images are those of two passes
(``ducc`` does the same through ducc0's NUFFT, ``Algorithm.co_grids_psf``).
"""

from __future__ import annotations

import numpy as np


def grids_in_parts(algorithm: str, params=None, device: str = "cpu") -> bool:
    """Whether ``algorithm`` with ``params`` on ``device`` can be gridded in parts.

    True for the catalogue's separable gridders (a ``plans`` chain of their own, not
    ``host_only``) on the CPU (``"auto"`` where it resolves to the CPU here), without
    w-stacking; the rest keep image parts.
    """
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm as record

    rec = record(algorithm)
    params = params or GridParams()
    if not rec.is_gridder or rec.host_only or rec.corrects_w(params):
        return False
    return (resolve_device("auto") if device == "auto" else device) == "cpu"


def co_grids(algorithm: str, params) -> bool:
    """Whether :func:`dirty_and_psf` serves ``algorithm`` with ``params`` on the CPU:
    :func:`grids_in_parts`, without compression (which merges each product's records
    apart)."""
    return grids_in_parts(algorithm, params) and not params.compress


def grid_image(ext, plans, *, timer=None, on_block=None) -> np.ndarray:
    """The unnormalised image of an unfolded half grid: fold (in place: ``ext`` is spent),
    prune, FFT, crop and correct, by the (u, v) ``plans``."""
    from uvlab.gpu.gridders.half_image import correct, fold_half, half_to_uncorrected

    plan_u, plan_v = plans
    half = fold_half(ext, plan_u.n_grid, plan_u.rule.support // 2 + 1, on_block, inplace=True)
    img = half_to_uncorrected(half, plan_u, plan_v, timer, on_block, inplace=True)
    return correct(img, plan_u, plan_v, timer)


def grid_samples(dirty, psf, u, v, wvis, weight, plans, params, *, timer=None,
                 on_block=None) -> None:  # fmt: skip
    """Add samples into a dirty grid and a PSF grid, in place: the records put in the half
    plane once and each record's taps formed once for both grids.

    Each grid receives the products it would receive gridded alone, in the same order.
    With ``params.compress`` each product's records are merged per cell apart
    (:func:`~uvlab.gpu.gridders.compress.compress`), so the two are gridded apart.

    Parameters
    ----------
    dirty, psf : (Mv, Mu/2 + 1 + 2·pad) complex128 or None
        The unfolded half grids (:func:`~uvlab.gpu.gridders.separable.extended_shape`) of
        ``wvis`` and of ``weight``; None: not made (``wvis`` is not read without ``dirty``).
    u, v : (nvis,) float
        Wavelengths.
    wvis : (nvis,) complex
        Weight × visibility (or × a residual).
    weight : (nvis,) float
        The imaging weights.
    plans : (AxisPlan, AxisPlan)
        The algorithm's (u, v) chain.
    params : GridParams
        Its ``chunk``, ``compress`` and ``threads``.
    """
    from uvlab.gpu.gridders.separable import grid_into, half_plane_records

    weight = np.asarray(weight, dtype=np.float64)
    grid = lambda ext, xu, xv, values: grid_into(  # noqa: E731
        ext, xu, xv, values, *plans, params.chunk, timer, on_block, threads=params.threads
    )
    if params.compress:  # each product's records merged per cell: gridded apart
        for ext, values in ((dirty, wvis), (psf, weight + 0j)):
            if ext is not None:
                grid(ext, *half_plane_records(u, v, values, *plans, compress=True, timer=timer))
        return
    # the same records for both: the PSF's real weights (unchanged by the half plane's
    # conjugation) added to the real part alone
    xu, xv, recs = half_plane_records(u, v, weight if dirty is None else wvis, *plans, timer=timer)
    exts, values = ([dirty], [recs]) if dirty is not None else ([], [])
    if psf is not None:
        exts.append(psf)
        values.append(weight)
    grid(exts, xu, xv, values)


def dirty_and_psf(u, v, wvis, weight, spec, algorithm: str, params, *, timer=None,
                  on_block=None):  # fmt: skip
    """Unnormalised (dirty, PSF) of samples ``u, v`` (wavelengths), ``wvis`` = weight ×
    visibility and ``weight`` (real), by ``algorithm``'s separable chain in one pass
    (:func:`grid_samples`)."""
    from uvlab.gpu.gridders.direct_prune import direct_plans
    from uvlab.gpu.gridders.registry import axis_plans
    from uvlab.gpu.gridders.separable import extended_shape

    plans = direct_plans(axis_plans(algorithm, spec, params), on_block)
    grids = [np.zeros(extended_shape(*plans), dtype=np.complex128) for _ in range(2)]
    grid_samples(*grids, u, v, wvis, weight, plans, params, timer=timer, on_block=on_block)
    dirty = grid_image(grids.pop(0), plans, timer=timer, on_block=on_block)
    return dirty, grid_image(grids.pop(0), plans, timer=timer, on_block=on_block)
