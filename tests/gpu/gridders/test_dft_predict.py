"""The exact predict from a model image, against the per-pixel sum and as dirty_dft's adjoint."""

import numpy as np
import pytest

from tests.support.oracles import image_vis
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.dft_predict import predict, predict_dft
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import StageTimer

SPEC = ImageSpec(24, 2e-3)


@pytest.mark.parametrize("sparse", [False, True])
def test_matches_the_per_pixel_sum(xp, rng, sparse):
    u, v = rng.uniform(-300, 300, (2, 500))
    img = rng.normal(size=(24, 24)) + 0.5j * rng.normal(size=(24, 24))
    got = to_numpy(predict_dft(xp.asarray(img), xp.asarray(u), xp.asarray(v), SPEC, sparse=sparse))
    want = image_vis(img, u, v, SPEC)
    assert np.abs(got - want).max() < 1e-11 * np.abs(want).max()


def test_point_source_closed_form(rng):
    u, v = rng.uniform(-300, 300, (2, 50))
    img = np.zeros((24, 24))
    img[12 + 3, 12 - 5] = 2.0  # m = +3 cells, l = +5 cells
    l, m = 5 * SPEC.cell_rad, 3 * SPEC.cell_rad
    want = 2.0 * np.exp(2j * np.pi * (u * l + v * m))
    assert np.allclose(predict_dft(img, u, v, SPEC), want, rtol=0, atol=1e-12)


def test_is_the_adjoint_of_the_dft_image(rng):
    u, v = rng.uniform(-300, 300, (2, 300))
    x = rng.normal(size=300) + 1j * rng.normal(size=300)
    y = rng.normal(size=(24, 24))
    lhs = np.vdot(dirty_dft(u, v, x, SPEC).ravel(), y.ravel()).real
    timer = StageTimer()
    rhs = np.vdot(predict(y, u, v, SPEC, timer=timer), x).real
    assert abs(lhs - rhs) < 1e-12 * abs(lhs)
    assert "grid" in timer.seconds()
