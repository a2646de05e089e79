"""The cases the degridder tests share (host and CUDA).

- :data:`SPEC`: a 48² image of 1 mrad cells;
- :data:`ADJOINT_CASES` / :data:`ADJOINT_IDS`: every host degridder path with an exact
  adjoint; :data:`GPU_CASES` / :data:`GPU_IDS`: those a CUDA chain runs (:data:`PRUNED`
  chains run on the host);
- :func:`rel`: ‖a − b‖ / ‖b‖.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

SPEC = ImageSpec(48, 1e-3)
#: The algorithms whose chains prune (their degridders unprune, on the host).
PRUNED = ("hybrid", "pruned-nn")

#: (algorithm, params) of every host degridder path with an exact adjoint.
ADJOINT_CASES = [
    ("conv", GridParams.from_eps(1e-6)),
    ("conv", GridParams(support=5, oversample=8)),
    ("conv", GridParams(support=6, oversample=7, lookup="linear")),
    ("conv", GridParams(kernel="kb", support=6, sigma=1.5, exact=True)),
    ("conv", GridParams(kernel="pswf", support=6, oversample=16)),
    ("conv", GridParams(kernel="lm", support=6, oversample=16, sigma=1.5, lookup="linear")),
    ("nn", GridParams()),
    ("nn-oversampled", GridParams(oversample=4)),
    ("hybrid", GridParams.from_eps(1e-5, oversample=8)),
    ("hybrid", GridParams.muscat(oversample=8)),
    ("pruned-nn", GridParams(oversample=4)),
    ("pruned-nn", GridParams(oversample=8, prune_kernel="es")),
]
ADJOINT_IDS = [
    f"{n}-{p.kernel}{p.support}{'x' if p.exact else 't'}-{p.lookup}"
    + (f"-{p.prune_kernel}{p.oversample}" if n in PRUNED else "")
    for n, p in ADJOINT_CASES
]
#: The cases the CUDA degridder runs on the device (exact ES, tables, nearest cells): all but
#: exact KB and the pruned chains (hybrid, pruned-nn: on the host).
_ON_DEVICE = [c[1].kernel != "kb" and c[0] not in PRUNED for c in ADJOINT_CASES]
GPU_CASES = [c for c, ok in zip(ADJOINT_CASES, _ON_DEVICE, strict=True) if ok]
GPU_IDS = [i for i, ok in zip(ADJOINT_IDS, _ON_DEVICE, strict=True) if ok]


def rel(a, b) -> float:
    """‖a − b‖ / ‖b‖."""
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))
