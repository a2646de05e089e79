"""Restoring: model ⊛ beam + residual, a linear convolution with the peak-1 beam."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution import Beam, beam_image, restore

ARCSEC = np.pi / 648000
CELL = 2.0 * ARCSEC
BEAM = Beam(12 * ARCSEC, 7 * ARCSEC, 25.0)


def test_beam_image_peak_and_half_power_on_the_major_axis():
    img = beam_image(BEAM, 64, CELL)
    assert img[32, 32] == 1.0
    pa = np.radians(BEAM.bpa_deg)
    # half power at FWHM/2 along the major axis: east = −i, north = +j
    half = BEAM.bmaj_rad / 2
    a, b, c = BEAM.quadratic_form()
    x, y = half * np.sin(pa), half * np.cos(pa)
    assert np.exp(-(a * x * x + 2 * b * x * y + c * y * y)) == pytest.approx(0.5)


def test_restore_is_a_linear_convolution(xp):
    n = 32
    model = np.zeros((n, n))
    model[0, 0], model[20, 9] = 2.0, -0.5  # a corner: nothing may wrap around
    residual = np.random.default_rng(3).normal(size=(n, n)) * 1e-3
    out = to_numpy(restore(xp.asarray(model), xp.asarray(residual), BEAM, CELL))
    big = beam_image(BEAM, 2 * n, CELL)  # peak at [n, n]
    expect = residual.copy()
    for j, i in zip(*np.nonzero(model)):
        expect += model[j, i] * big[n - j : 2 * n - j, n - i : 2 * n - i]
    np.testing.assert_allclose(out, expect, atol=1e-12)
    assert out[0, 0] == pytest.approx(2.0 + residual[0, 0], abs=1e-12)


def test_shapes_must_agree():
    with pytest.raises(ValueError, match="differ"):
        restore(np.zeros((4, 4)), np.zeros((6, 6)), BEAM, CELL)
