"""Joined-channel Högbom: components at the integrated image's peaks, each channel's own flux."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.joined import joined_hogbom

N = 64
#: (row, col, flux per channel): a steep, an inverted and a one-channel source.
SKY = [(20, 30, (3.0, 2.0, 1.5)), (40, 12, (0.5, 1.0, 2.0)), (44, 50, (0.0, 0.0, 1.2))]
SIGMAS = (2.5, 2.0, 1.6)  # each channel's PSF narrower, as at higher frequency


def _psf(sigma: float) -> np.ndarray:
    """A Gaussian PSF of side 2N, peak 1 at [N, N]."""
    y, x = np.mgrid[-N:N, -N:N]
    return np.exp(-(x * x + y * y) / (2 * sigma * sigma))


def _scene():
    """(truth, dirty, psf) per channel: the dirty image summed pixel by pixel from the PSF."""
    truth = np.zeros((3, N, N))
    dirty = np.zeros((3, N, N))
    psfs = np.stack([_psf(s) for s in SIGMAS])
    for j, i, fluxes in SKY:
        for k, f in enumerate(fluxes):
            truth[k, j, i] = f
            dirty[k] += f * psfs[k, N - j : 2 * N - j, N - i : 2 * N - i]
    return truth, dirty, psfs


def test_each_channel_gets_its_own_flux_at_the_joint_peaks(xp):
    truth, dirty, psfs = _scene()
    out = joined_hogbom(xp.asarray(dirty), xp.asarray(psfs), [1.0, 1.0, 1.0], gain=0.1,
                        niter=5000, threshold=1e-5)  # fmt: skip
    models, residuals = to_numpy(out.models), to_numpy(out.residuals)
    assert out.stop_reason == "threshold"
    np.testing.assert_allclose(models, truth, atol=1e-4)
    support = [set(zip(*np.nonzero(m), strict=True)) for m in models]
    assert support[0] == support[1] == support[2]  # the same pixels in every channel
    assert np.abs(residuals.mean(axis=0)).max() <= 1e-5
    assert out.peaks.size == out.iterations + 1 and out.peaks[-1] <= 1e-5


def test_the_peak_is_found_on_the_weighted_mean(xp):
    """Weighted to the third channel, the one-channel source is the brightest: it comes first."""
    _, dirty, psfs = _scene()
    out = joined_hogbom(xp.asarray(dirty), xp.asarray(psfs), [0.0, 0.0, 1.0], gain=1.0,
                        niter=1)  # fmt: skip
    models = to_numpy(out.models)
    assert out.stop_reason == "niter" and out.iterations == 1
    assert np.nonzero(models[2]) == (np.array([40]), np.array([12]))
    assert models[2, 40, 12] == pytest.approx(dirty[2, 40, 12])
    assert models[0, 40, 12] == pytest.approx(dirty[0, 40, 12])  # its own value, not the mean


def test_components_only_inside_the_mask(xp):
    truth, dirty, psfs = _scene()
    mask = np.zeros((N, N), dtype=bool)
    mask[10:30, 20:40] = True  # the first source only
    out = joined_hogbom(xp.asarray(dirty), xp.asarray(psfs), [1.0, 2.0, 3.0], gain=0.2,
                        niter=2000, threshold=1e-6, mask=mask)  # fmt: skip
    models = to_numpy(out.models)
    assert not models[:, ~mask].any()
    np.testing.assert_allclose(models[:, 20, 30], truth[:, 20, 30], atol=0.02)
    assert np.array_equal(to_numpy(xp.asarray(dirty)), dirty)  # the inputs are not changed
