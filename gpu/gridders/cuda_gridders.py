"""The CUDA gridders under the NumPy gridders' names (DESIGN §2).

Each function has the NumPy contract
``dirty(u, v, wvis, spec, params, *, w=None, timer=None)`` and returns
``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the ImageSpec's pixels, but takes and
returns cupy arrays, in ``params.precision`` (``"single"``: float32
records, complex64 grid, float32 image; ``"double"``: float64 throughout).
:func:`uvlab.gpu.gridders.registry.get_gridder` returns them for
``xp=cupy``.

What the GPU cannot run — w-stacking, ``engine="ducc"``, a non-ES kernel
evaluated exactly — falls back to the NumPy/ducc0 gridder on the host, and
the result is copied back to the device (logged once per call).
"""

from __future__ import annotations

import logging
from functools import lru_cache

import numpy as np

from uvlab.gpu.gridders.cuda_grid import KernelConfig, dirty_chain
from uvlab.gpu.gridders.cuda_rules import GpuChain, gpu_chain
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.imaging.spec import ImageSpec

log = logging.getLogger(__name__)


@lru_cache(maxsize=32)
def cached_chain(name: str, spec: ImageSpec, params: GridParams) -> GpuChain | None:
    """:func:`~uvlab.gpu.gridders.cuda_rules.gpu_chain`, memoised (correctors included)."""
    return gpu_chain(name, spec, params)


def dirty_gpu(
    name: str,
    u,
    v,
    wvis,
    spec: ImageSpec,
    params: GridParams,
    *,
    w=None,
    timer=None,
    config: KernelConfig | None = None,
):
    """Unnormalised dirty image of algorithm ``name`` on the GPU.

    Parameters
    ----------
    name : str
        A name of :data:`uvlab.gpu.gridders.registry.ALGORITHMS`.
    u, v : (nvis,) float, wavelengths (cupy or numpy)
    wvis : (nvis,) complex
    spec : ImageSpec
    params : GridParams
    w : (nvis,) float, optional
        Used only by the host fallback (w-stacking).
    timer : StageTimer, optional
    config : KernelConfig, optional

    Returns
    -------
    (N, N) cupy float32 (``params.precision == "single"``) or float64
    """
    import cupy

    chain = cached_chain(name, spec, params)
    real = np.float32 if params.precision == "single" else np.float64
    if chain is None:
        from uvlab.gpu.backend import to_numpy
        from uvlab.gpu.gridders.registry import GRIDDERS

        log.info("%s with %s runs on the host: no CUDA path", name, params)
        wh = None if w is None else to_numpy(w)
        img = GRIDDERS[name](
            to_numpy(u), to_numpy(v), to_numpy(wvis), spec, params, w=wh, timer=timer
        )
        return cupy.asarray(img, dtype=real)
    return dirty_chain(u, v, wvis, chain, precision=params.precision, timer=timer, config=config)


def _named(name: str):
    def dirty(u, v, wvis, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
        return dirty_gpu(name, u, v, wvis, spec, params, w=w, timer=timer)

    dirty.__name__ = "dirty_" + name.replace("-", "_")
    dirty.__doc__ = f"CUDA ``{name}``: see :func:`dirty_gpu`."
    return dirty


dirty_conv = _named("conv")
dirty_nn = _named("nn")
dirty_nn_oversampled = _named("nn-oversampled")
dirty_hybrid = _named("hybrid")
dirty_pruned_nn = _named("pruned-nn")

#: Algorithm name → CUDA gridder (the registry's ``xp=cupy`` table).
CUDA_GRIDDERS = {
    "conv": dirty_conv,
    "nn": dirty_nn,
    "nn-oversampled": dirty_nn_oversampled,
    "hybrid": dirty_hybrid,
    "pruned-nn": dirty_pruned_nn,
}
