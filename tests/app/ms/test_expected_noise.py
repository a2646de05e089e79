"""Expected image noise from the data weights, against the RMS of noise-only dirty images.

The oracle: visibilities of pure Gaussian noise with a known σ per sample (varying
from sample to sample, given as the weight 1/σ²), imaged with ducc0's gridder
(``vis2dirty``, normalised by Σw) under the imaging weights; the RMS over the
image's ~65 000 pixels must match :func:`expected_image_sigma` to a few per cent.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.app.ms.expected_noise import expected_image_sigma
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.weighting import Weighting, imaging_weights

C = 299792458.0


def _ducc_rms(uvw, freq, sigma, flag, spec, weighting) -> float:
    import ducc0

    d = np.where(flag, 0.0, 1.0 / sigma**2)
    u = (uvw[:, 0, None] * freq / C).ravel()
    v = (uvw[:, 1, None] * freq / C).ravel()
    w = imaging_weights(u, v, d.ravel(), spec, weighting).reshape(d.shape)
    rng = np.random.default_rng(7)
    var = []
    for _ in range(8):
        vis = sigma * (rng.standard_normal(sigma.shape) + 1j * rng.standard_normal(sigma.shape))
        image = ducc0.wgridder.vis2dirty(
            uvw=uvw, freq=freq, vis=vis, wgt=w, npix_x=spec.npix, npix_y=spec.npix,
            pixsize_x=spec.cell_rad, pixsize_y=spec.cell_rad, epsilon=1e-7, do_wgridding=False,
        ) / w.sum()  # fmt: skip
        var.append(np.mean(image**2))
    return float(np.sqrt(np.mean(var)))


@pytest.mark.parametrize(
    "weighting",
    [
        Weighting("natural", 0.0, 0.0),
        Weighting("briggs", 0.0, 0.0),
        Weighting("uniform", 0.0, 0.0),
    ],
    ids=["natural", "briggs0", "uniform"],
)
def test_expected_sigma_is_the_rms_of_a_noise_image(weighting):
    rng = np.random.default_rng(3)
    nrow, freq = 4000, np.array([1.0e9, 1.1e9, 1.2e9])
    r = 2000.0 * np.sqrt(rng.random(nrow))  # a centrally condensed uv cover, metres
    phi = rng.random(nrow) * 2 * math.pi
    uvw = np.stack([r * np.cos(phi), r * np.sin(phi), np.zeros(nrow)], axis=1)
    sigma = rng.uniform(0.5, 2.0, (nrow, 1)) * np.ones(freq.size)  # Jy, per real/imag part
    flag = rng.random((nrow, freq.size)) < 0.1
    spec = ImageSpec(256, 2.0 * math.pi / 648000)  # 2″ cells: uv cell ≪ the cover
    expected, n = expected_image_sigma(uvw, freq, 1.0 / sigma**2, flag, spec, weighting)
    assert n == int((~flag).sum())
    measured = _ducc_rms(uvw, freq, sigma, flag, spec, weighting)
    assert measured == pytest.approx(expected, rel=0.03)
    if weighting.scheme == "natural":  # 1/√Σd, the closed form
        assert expected == pytest.approx(1.0 / math.sqrt((1.0 / sigma**2)[~flag].sum()), rel=1e-12)
