"""The radiometer equation and complex noise (uvlab.gpu.predict.noise).

Oracles: σ = SEFD/√(2·Δν·Δt) written out; the sample RMS of 10⁶ draws; the RMS of an
explicit DFT image of pure noise at 900 pixels against σ/√(2N) (within 5 %).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu.predict.noise import complex_noise, image_noise, radiometer_sigma


def test_radiometer_sigma():
    assert radiometer_sigma(420.0, 1e6, 8.0) == pytest.approx(420.0 / math.sqrt(16e6), rel=1e-15)
    # unlike antennas: the geometric mean of the SEFDs
    assert radiometer_sigma(400.0, 2e5, 2.0, sefd_q_jy=100.0) == pytest.approx(
        200.0 / math.sqrt(8e5), rel=1e-15
    )
    assert radiometer_sigma(400.0, -1e6, 8.0) == radiometer_sigma(400.0, 1e6, 8.0)
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="SEFD"):
            radiometer_sigma(bad, 1e6, 8.0)
    with pytest.raises(ValueError, match="> 0"):
        radiometer_sigma(400.0, 1e6, 0.0)


def test_complex_noise_rms():
    n = complex_noise((1000, 1000), 0.3, np.random.default_rng(0))
    assert np.std(n.real) == pytest.approx(0.3, rel=0.005)
    assert np.std(n.imag) == pytest.approx(0.3, rel=0.005)
    assert abs(np.mean(n.real * n.imag)) < 1e-3 * 0.09


def test_dirty_image_of_noise_has_radiometer_rms():
    """Stokes I = (XX + YY)/2 of noise only, imaged by an explicit DFT: RMS σ/√(2N)."""
    rng = np.random.default_rng(4)
    nvis = 8000
    sigma = radiometer_sigma(450.0, 0.8e6, 8.0)
    u, v = rng.uniform(-3000, 3000, (2, nvis))  # wavelengths
    xx = complex_noise(nvis, sigma, rng)
    yy = complex_noise(nvis, sigma, rng)
    stokes_i = (xx + yy) / 2
    l, m = np.meshgrid(np.arange(30) * 3e-3, np.arange(30) * 3e-3)  # well separated pixels
    phase = np.exp(-2j * np.pi * (np.outer(l.ravel(), u) + np.outer(m.ravel(), v)))
    img = np.real(phase @ stokes_i) / nvis
    assert np.sqrt(np.mean(img**2)) == pytest.approx(image_noise(sigma, nvis), rel=0.05)
