"""Each comparison entry's analytic aliasing map and bound (``uvlab compare``; issue 14):
the bound in the error map's units, on pixels the cost allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from uvlab.gpu.gridders.params import GridParams

#: Pixel·offset-pair products the bound (:func:`uvlab.gpu.aliasing.iter_bound_rows`,
#: ~50 ns each on the CPU) may cost per algorithm before it is subsampled further.
BOUND_BUDGET = 6.0e7
#: Bound values below this (units of the DFT peak) are float rounding, left out of
#: ``error_over_bound_max`` (the error there is rounding too).
BOUND_FLOOR = 1e-12


def bounds_image(name: str, params: GridParams) -> bool:
    """Whether the analytic map of algorithm ``name``'s plans bounds its image.

    The catalogue record says: an algorithm without ``analytic_bound``
    (``ducc``, ducc0's own kernel and padding) has the map of its plans —
    uvlab's exact ES chain of the same support and σ — as a guide and not a
    bound. With the w-term corrected the image carries what the reference
    leaves out.
    """
    from uvlab.gpu.gridders.registry import algorithm

    rec = algorithm(name)
    return rec.analytic_bound and not rec.corrects_w(params)


def bound_maps(name: str, params: GridParams, spec, step: int) -> tuple[np.ndarray, int]:
    """``(E, k)``: the analytic bound map on every k-th pixel, k a multiple of ``step``.

    k is the smallest multiple of ``step`` dividing N/2 for which the
    bound's cost, (N/k)² pixels × offset pairs, stays within
    :data:`BOUND_BUDGET` (N/2 at most).
    """
    from uvlab.gpu.aliasing import BoundSamples, axis_bound_samples, bound_map

    su, sv = axis_bound_samples(name, spec, params, step)
    pairs = su.values.shape[0] * sv.values.shape[0]
    half = spec.npix // 2
    k = step
    while k < half and (half % k or (spec.npix / k) ** 2 * pairs > BOUND_BUDGET):
        k += step
    m = k // step
    su, sv = (BoundSamples(x.values[:, ::m], x.halfwidth[::m], x.spacing) for x in (su, sv))
    return bound_map(su, sv), k


def bound_fields(
    error: np.ndarray,
    metrics: dict,
    algorithm: str,
    params,
    spec,
    step: int,
    abs_sum: float,
    peak: float,
) -> dict:
    """An entry's analytic map, bound and their metrics, as its result's fields (``uvlab compare``).

    ``error`` and ``metrics`` are the entry's error map and metrics; the
    result is ``dict(metrics=…, analytic=E, bound=…, bound_step=k)`` for
    :func:`dataclasses.replace` of the entry's result.
    bound = (Σ|w·V|/Σw)·E / peak(I_dft): the units of the error map, on every
    ``bound_step``-th pixel (the error map's pixels when the cost allows).
    Metrics: ``bound_max``, ``error_over_bound_max`` (over pixels where the
    bound exceeds :data:`BOUND_FLOOR`) and ``bound_step``; both null, and no
    ``bound``, for a chain that the map does not describe (:func:`bounds_image`).
    """
    e, k = bound_maps(algorithm, params, spec, step)
    metrics = {**metrics, "bound_max": None, "error_over_bound_max": None, "bound_step": k}
    if not bounds_image(algorithm, params):
        metrics["bound_note"] = "no bound: ducc0's kernel or the w-term is not uvlab's chain"
        return dict(metrics=metrics, analytic=e, bound_step=k)
    bound = e * (abs_sum / peak)
    err = error[:: k // step, :: k // step]
    lit = bound > BOUND_FLOOR
    ratio = float((err[lit] / bound[lit]).max()) if lit.any() else 0.0
    metrics.update(bound_max=float(bound.max()), error_over_bound_max=ratio)
    return dict(metrics=metrics, analytic=e, bound=bound, bound_step=k)
