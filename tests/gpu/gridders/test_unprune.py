"""The pruners' transpose (gpu/gridders/unprune.py): ``⟨P x, y⟩ = ⟨x, Pᵀ y⟩`` exactly.

Oracle: the pruner's own :meth:`Pruner.apply` (gpu/gridders/pruning.py), through
``vdot``, and the definition of the transpose written out with ``np.add.at``.
"""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.gridders.pruning import make_pruner
from uvlab.gpu.gridders.unprune import unprune


@pytest.mark.parametrize(("kernel", "support", "alpha"), [("lm", 6, 4), ("es", 8, 2), ("kb", 5, 3)])
@pytest.mark.parametrize("axis", [0, 1])
def test_unprune_is_the_transpose_of_apply(kernel, support, alpha, axis):
    pruner = make_pruner(kernel, support, alpha)
    rng = np.random.default_rng(alpha)
    shape_f, shape_c = [12, 7], [12, 7]
    shape_f[axis], shape_c[axis] = 16 * alpha, 16
    x = rng.normal(size=shape_f) + 1j * rng.normal(size=shape_f)
    y = rng.normal(size=shape_c) + 1j * rng.normal(size=shape_c)
    lhs = np.vdot(y, pruner.apply(x, axis=axis))
    rhs = np.vdot(unprune(pruner, y, axis=axis), x)
    assert abs(lhs - rhs) <= 1e-13 * np.linalg.norm(x) * np.linalg.norm(y)


def test_unprune_spreads_each_coarse_cell_with_the_taps():
    """``in'[(c·α + d) mod M_f] += Z[d]·out'[c]``, the definition, term by term."""
    pruner = make_pruner("es", 6, 3)
    rng = np.random.default_rng(1)
    coarse = rng.normal(size=10) + 1j * rng.normal(size=10)
    want = np.zeros(30, dtype=complex)
    half = pruner.half
    for c in range(10):
        for d in range(-half, half + 1):
            want[(3 * c + d) % 30] += pruner.taps[d + half] * coarse[c]
    np.testing.assert_allclose(unprune(pruner, coarse), want, rtol=0, atol=1e-14)
