"""w-stacked degridding (gpu/gridders/wstack.py's predict_wstack, through predict_conv).

Oracles: the direct sum with the w-term (tests/support/oracles.py) and the
adjointness with the w-stacked gridder, ``Re⟨G(V), x⟩ = Re⟨V, D(x)⟩``.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import image_vis
from uvlab.gpu.gridders.conv import dirty
from uvlab.gpu.gridders.degrid import predict_conv
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

SPEC = ImageSpec(48, 90.0 * ARCSEC)  # a 1.2° field: w·(n − 1) of several radians


def samples(seed=1, n=400):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 600, n), rng.normal(0, 600, n), rng.normal(0, 6000, n)


@pytest.mark.parametrize("kernel", ["es", "kb"])
def test_the_w_stacked_degridder_is_the_direct_sum_with_the_w_term(kernel):
    u, v, w = samples()
    img = np.zeros((SPEC.npix, SPEC.npix))
    img[3, 7], img[40, 30], img[24, 24] = 1.0, 0.5, 0.2
    params = GridParams(kernel=kernel, support=8, exact=True, wstack=True)
    want = image_vis(img, u, v, SPEC, w=w)
    got = predict_conv(img, u, v, SPEC, params, w=w)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    flat = predict_conv(img, u, v, SPEC, params)  # without w: far off (the test can fail)
    assert np.abs(flat - want).max() > 0.1 * np.abs(want).max()


def test_it_is_the_adjoint_of_the_w_stacked_gridder():
    u, v, w = samples(2)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(SPEC.npix, SPEC.npix))
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    params = GridParams.from_eps(1e-8, wstack=True)
    lhs = np.vdot(dirty(u, v, vis, SPEC, params, w=w), x).real
    rhs = np.vdot(vis, predict_conv(x, u, v, SPEC, params, w=w)).real
    assert lhs == pytest.approx(rhs, rel=1e-6)
