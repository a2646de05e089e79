"""ComponentReplay against Högbom itself and an explicit shifted-PSF sum."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.deconvolution import hogbom
from uvlab.gpu.deconvolution.replay import ComponentReplay, components_model


def _scene(n: int, p: int, seed: int = 3):
    """A dirty image of three points made with a Gaussian-plus-ripple PSF of side p."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:p, 0:p] - p // 2
    psf = np.exp(-(x**2 + y**2) / 6.0) + 0.1 * np.cos(0.7 * x) * np.exp(-(x**2 + y**2) / 200.0)
    psf /= psf[p // 2, p // 2]
    dirty = 0.01 * rng.standard_normal((n, n))
    for (j, i), f in zip(((5, 7), (20, 22), (28, 3)), (1.0, 0.6, -0.4)):
        dirty += f * _shifted(psf, n, j, i)
    return dirty, psf


def _shifted(psf, n, j, i):
    """The PSF centred on pixel (j, i) of an n² image, zero where it does not reach."""
    p = psf.shape[0]
    out = np.zeros((n, n))
    for y in range(n):
        for x in range(n):
            a, b = y - j + p // 2, x - i + p // 2
            if 0 <= a < p and 0 <= b < p:
                out[y, x] = psf[a, b]
    return out


@pytest.mark.parametrize("side", [1, 2])  # PSF of side N or 2N
def test_residual_at_k_is_hogboms_after_k_iterations(side):
    n = 32
    dirty, psf = _scene(n, side * n)
    full = hogbom(dirty, psf, gain=0.2, niter=60)
    replay = ComponentReplay(dirty, psf, full.comp_j, full.comp_i, full.comp_flux)
    for k in (0, 1, 7, 60):
        ref = hogbom(dirty, psf, gain=0.2, niter=k)  # CLEAN itself, stopped at k
        model, residual = replay.state(k)
        np.testing.assert_allclose(model, ref.model, atol=1e-14)
        np.testing.assert_allclose(residual, ref.residual, atol=1e-12)


def test_residual_is_dirty_minus_explicit_psf_sum():
    n = 24
    dirty, psf = _scene(n, n, seed=5)
    j, i, f = np.array([3, 3, 20, 0]), np.array([4, 4, 23, 12]), np.array([0.5, 0.2, -0.3, 0.1])
    replay = ComponentReplay(dirty, psf, j, i, f)
    ref = dirty.copy()
    for jj, ii, ff in zip(j[:3], i[:3], f[:3]):
        ref -= ff * _shifted(psf, n, jj, ii)
    np.testing.assert_allclose(replay.residual(3), ref, atol=1e-12)
    model = components_model(j, i, f, 3, n)
    assert model[3, 4] == pytest.approx(0.7) and model[20, 23] == pytest.approx(-0.3)
    assert np.count_nonzero(model) == 2


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="side N or 2N"):
        ComponentReplay(np.zeros((8, 8)), np.zeros((5, 5)), [], [], [])
