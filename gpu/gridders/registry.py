"""Algorithm name → gridder function, and → its per-axis plans.

Every gridder has the signature
``dirty(u, v, wvis, spec, params, *, w=None, timer=None) -> (N, N) float64``
(unnormalised ``Re Σ wvis·exp(−2πi(u·l + v·m))``); every plan function
``plans(spec, params) -> (AxisPlan u, AxisPlan v)`` describes the NumPy chain
the analytic aliasing maps are computed from.

``get_gridder(name, xp=cupy)`` returns the CUDA gridder of the same name
(:mod:`~uvlab.gpu.gridders.cuda_gridders`: cupy arrays in and out), imported
only then, so this module stays NumPy-only.
"""

from __future__ import annotations

from collections.abc import Callable

from uvlab.gpu.gridders import conv, hybrid, nn, pruned_nn

GRIDDERS: dict[str, Callable] = {
    "conv": conv.dirty,
    "nn": nn.dirty_nn,
    "nn-oversampled": nn.dirty_nn_oversampled,
    "hybrid": hybrid.dirty,
    "pruned-nn": pruned_nn.dirty,
}

PLANS: dict[str, Callable] = {
    "conv": conv.conv_plans,
    "nn": nn.nn_plans,
    "nn-oversampled": nn.nn_oversampled_plans,
    "hybrid": hybrid.hybrid_plans,
    "pruned-nn": pruned_nn.pruned_nn_plans,
}

#: Algorithm names in DESIGN §2 order.
ALGORITHMS = tuple(GRIDDERS)


def _check(name: str) -> None:
    if name not in GRIDDERS:
        raise ValueError(f"unknown gridding algorithm {name!r}; choose one of {ALGORITHMS}")


def get_gridder(name: str, xp=None) -> Callable:
    """The ``dirty`` function of a gridding algorithm.

    Parameters
    ----------
    name : str
        One of :data:`ALGORITHMS`.
    xp : module, optional
        The array module of the inputs: ``cupy`` selects the CUDA gridder,
        anything else (default) the NumPy one.
    """
    _check(name)
    if xp is not None and getattr(xp, "__name__", "") == "cupy":
        from uvlab.gpu.gridders.cuda_gridders import CUDA_GRIDDERS

        return CUDA_GRIDDERS[name]
    return GRIDDERS[name]


def axis_plans(name: str, spec, params):
    """(u, v) AxisPlans of an algorithm's NumPy chain."""
    _check(name)
    return PLANS[name](spec, params)
