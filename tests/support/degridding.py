"""The cases the degridder tests share (host and CUDA).

- :data:`SPEC`: a 48² image of 1 mrad cells;
- :data:`ADJOINT_CASES` / :data:`ADJOINT_IDS`: every host degridder path with an exact
  adjoint; :data:`GPU_CASES` / :data:`GPU_IDS`: those a CUDA chain runs;
- :func:`rel`: ‖a − b‖ / ‖b‖.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

SPEC = ImageSpec(48, 1e-3)

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
]
ADJOINT_IDS = [
    f"{n}-{p.kernel}{p.support}{'x' if p.exact else 't'}-{p.lookup}" for n, p in ADJOINT_CASES
]
#: The cases a CUDA chain runs (exact ES, tables, nearest cells): all but exact KB.
GPU_CASES = [c for c in ADJOINT_CASES if c[1].kernel != "kb"]
GPU_IDS = [i for i, c in zip(ADJOINT_IDS, ADJOINT_CASES, strict=True) if c[1].kernel != "kb"]


def rel(a, b) -> float:
    """‖a − b‖ / ‖b‖."""
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))
