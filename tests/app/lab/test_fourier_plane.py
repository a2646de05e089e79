"""sky_amplitude against the visibility written out as a sum over pixels."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.app.lab.fourier_plane import sky_amplitude


def test_amplitude_is_the_explicit_dft_on_the_uv_grid(xp):
    rng = np.random.default_rng(7)
    n, cell = 16, 2e-5
    img = np.zeros((n, n))
    img[rng.integers(0, n, 5), rng.integers(0, n, 5)] = rng.uniform(0.1, 1.0, 5)
    amp, du = sky_amplitude(img, cell, xp)
    assert isinstance(amp, np.ndarray)  # NumPy whichever module ran the FFT
    assert du == pytest.approx(1.0 / (n * cell))
    l = -(np.arange(n) - n // 2) * cell  # DESIGN §1: l runs against the column index
    m = (np.arange(n) - n // 2) * cell
    for q, k in [(0, 0), (3, 11), (8, 8), (12, 2), (15, 9)]:
        u, v = (k - n // 2) * du, (q - n // 2) * du
        vis = np.sum(img * np.exp(2j * np.pi * (u * l[None, :] + v * m[:, None])))
        assert amp[q, k] == pytest.approx(abs(vis), rel=1e-6, abs=1e-7)  # float32
    assert amp[n // 2, n // 2] == pytest.approx(img.sum(), rel=1e-6)  # V(0, 0): the total flux
    for q in range(n):  # every cell, against the complex FFT along each axis
        for k in range(n):
            u, v = (k - n // 2) * du, (q - n // 2) * du
            vis = np.sum(img * np.exp(2j * np.pi * (u * l[None, :] + v * m[:, None])))
            assert amp[q, k] == pytest.approx(abs(vis), rel=1e-5, abs=1e-6)


def test_not_square_is_refused():
    with pytest.raises(ValueError, match="square"):
        sky_amplitude(np.zeros((4, 6)), 1e-5)
    with pytest.raises(ValueError, match="even"):
        sky_amplitude(np.zeros((5, 5)), 1e-5)
