"""The CUDA path of the separable gridders (DESIGN §2).

:func:`dirty_gpu` is the CUDA function of every separable algorithm in the
catalogue (:mod:`uvlab.gpu.gridders.registry`), which binds it to the
algorithm's record: ``get_gridder(name, xp=cupy)`` is
``partial(dirty_gpu, record)``. It has the NumPy contract
``dirty(u, v, wvis, spec, params, *, w=None, timer=None)`` and returns
``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the ImageSpec's pixels, but takes and
returns cupy arrays, in ``params.precision`` (``"single"``: float32
records, complex64 grid, float32 image; ``"double"``: float64 throughout).

The record brings what this module needs of the algorithm — its plan
function, turned into a GPU chain by
:func:`~uvlab.gpu.gridders.cuda_rules.gpu_chain`, and its NumPy function —
so nothing here imports the catalogue back. What the GPU cannot run —
w-stacking, w-projection, the host-only ``ducc``, a non-ES kernel evaluated exactly — falls
back to the record's NumPy/ducc0 gridder on the host, and the result is
copied back to the device (logged once per call).
"""

from __future__ import annotations

import logging
from functools import lru_cache

import numpy as np

from uvlab.gpu.gridders.cuda_grid import KernelConfig, chain_plan, dirty_chain
from uvlab.gpu.gridders.cuda_rules import GpuChain, gpu_chain
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

log = logging.getLogger(__name__)


@lru_cache(maxsize=32)
def cached_chain(algorithm, spec: ImageSpec, params: GridParams) -> GpuChain | None:
    """:func:`~uvlab.gpu.gridders.cuda_rules.gpu_chain` of an algorithm, memoised.

    ``algorithm`` is its catalogue record: None for a ``host_only`` one
    (``ducc``) and with w-stacking or w-projection, else the chain of its ``plans`` (correctors
    included), built once per (algorithm, spec, params).
    """
    if algorithm.host_only or params.w_term:
        return None  # host only: no need to build the plans
    return gpu_chain(algorithm.plans(spec, params), spec, params)


def dirty_gpu(
    algorithm,
    u,
    v,
    wvis,
    spec: ImageSpec,
    params: GridParams,
    *,
    w=None,
    timer=None,
    config: KernelConfig | None = None,
    plan=None,
):
    """Unnormalised dirty image of a separable algorithm on the GPU.

    Parameters
    ----------
    algorithm : Algorithm
        The algorithm's catalogue record
        (:class:`uvlab.gpu.gridders.registry.Algorithm`): its ``name``, its
        ``plans`` function and its NumPy function ``cpu`` (the host
        fallback) are used.
    u, v : (nvis,) float, wavelengths (cupy or numpy)
    wvis : (nvis,) complex
    spec : ImageSpec
    params : GridParams
    w : (nvis,) float, optional
        Used only by the host fallback (w-stacking).
    timer : StageTimer, optional
    config : KernelConfig, optional
    plan : BinPlan, optional
        :func:`bin_plan` of these (u, v), spec and params: the sort / bin is
        reused and only the visibilities are written (ignored on the host path).

    Returns
    -------
    (N, N) cupy float32 (``params.precision == "single"``) or float64
    """
    import cupy

    chain = cached_chain(algorithm, spec, params)
    real = np.float32 if params.precision == "single" else np.float64
    if chain is None:
        from uvlab.gpu.backend import to_numpy

        log.info("%s with %s runs on the host: no CUDA path", algorithm.name, params)
        wh = None if w is None else to_numpy(w)
        img = algorithm.cpu(
            to_numpy(u), to_numpy(v), to_numpy(wvis), spec, params, w=wh, timer=timer
        )
        return cupy.asarray(img, dtype=real)
    return dirty_chain(
        u, v, wvis, chain, precision=params.precision, timer=timer, config=config,
        plan=plan, compress=params.compress,
    )  # fmt: skip


def bin_plan(algorithm, u, v, spec: ImageSpec, params: GridParams, *, config=None, timer=None):
    """The sort / bin of (u, v) for an algorithm on the GPU, to reuse; None where none applies.

    For images of other visibilities at the same points (another weighting,
    the PSF, a CLEAN major cycle): ``dirty_gpu(..., plan=bin_plan(...))``.
    None on the host path and with ``params.compress`` (which bins the
    compressed cells, not these points).
    """
    chain = cached_chain(algorithm, spec, params)
    if chain is None or params.compress:
        return None
    return chain_plan(u, v, chain, precision=params.precision, config=config, timer=timer)
