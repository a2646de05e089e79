"""The dirty image and the PSF of a separable gridder from one pass over the samples.

The imager's CPU path images the dirty image and its PSF of the same samples. For the
catalogue's separable gridders (:func:`~uvlab.gpu.imaging.grid_parts.grids_in_parts`)
both grids are filled in one pass: the records are put in the half plane once, and the
numba rung forms each record's taps once for the two grids
(:func:`~uvlab.gpu.gridders.separable.grid_into`); then each grid is folded, pruned,
transformed and corrected (:func:`~uvlab.gpu.imaging.grid_parts.finish`). Each grid
receives the products it would receive gridded alone, in the same order, so the images
are those of two passes (``ducc`` does the same through ducc0's NUFFT,
``Algorithm.co_grids_psf``).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.imaging.grid_parts import empty_grid, finish, grids_in_parts


def co_grids(algorithm: str, params) -> bool:
    """Whether :func:`dirty_and_psf` serves ``algorithm`` with ``params`` on the CPU: a
    separable gridder without w-stacking or compression (compression merges each
    product's records apart)."""
    return grids_in_parts(algorithm, params) and not params.compress


def dirty_and_psf(u, v, wvis, weight, spec, algorithm: str, params, *, timer=None,
                  on_block=None):  # fmt: skip
    """Unnormalised (dirty, PSF) of samples ``u, v`` (wavelengths), ``wvis`` = weight ×
    visibility and ``weight`` (real), by ``algorithm``'s separable chain in one pass."""
    from uvlab.gpu.gridders.registry import axis_plans
    from uvlab.gpu.gridders.separable import grid_into, half_plane_records

    plan_u, plan_v = axis_plans(algorithm, spec, params)
    grid = empty_grid(spec, algorithm, params, psf=True)
    xu, xv, recs = half_plane_records(u, v, wvis, plan_u, plan_v, timer=timer)
    # the PSF's real weights are unchanged by the half plane's conjugation
    values = [recs, np.asarray(weight, dtype=np.float64)]
    grid_into([grid.dirty, grid.psf], xu, xv, values, plan_u, plan_v, params.chunk, timer,
              on_block, threads=params.threads)  # fmt: skip
    grid.nvis = int(np.size(u))
    out = finish(grid, spec, algorithm, params, timer=timer, on_block=on_block)
    return out.dirty, out.psf
