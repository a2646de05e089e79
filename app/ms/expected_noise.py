"""The thermal noise expected in an image of an MS, from its data weights.

Each visibility's data weight d_i (``VisData.weight``: WEIGHT_SPECTRUM, WEIGHT
or 1/SIGMA², as :mod:`uvlab.app.ms.reader` chose) is the inverse variance of
its real and of its imaginary part, σ_i² = 1/d_i. A dirty image normalised by
Σw (a PSF peak of 1) sums w_i·Re(V_i·e^{iφ}) / Σw, so the noise of a pixel is

    σ_image = √(Σ w_i²·σ_i²) / Σ w_i,

w_i the imaging weights (natural, uniform or Briggs, with any taper) of the
unflagged samples; for natural weighting without a taper (w = d) this is
1/√(Σ d_i). It is what :class:`uvlab.app.lab.corruptions.NoiseReport` gives
the window for a synthetic observation (σ_i all equal). With unit weights (no
WEIGHT or SIGMA in the MS) σ_i is unknown and nothing is expected.
"""

from __future__ import annotations

import math

import numpy as np


def expected_image_sigma(uvw, freq_hz, weight, flag, spec, weighting) -> tuple[float, int]:
    """(σ_image in Jy/beam, N unflagged samples) for data weights ``weight`` (row, chan).

    ``spec`` is the image's :class:`~uvlab.gpu.image_spec.ImageSpec`, ``weighting`` its
    :class:`~uvlab.gpu.imaging.weighting.Weighting`; NaN when no sample has a weight.
    """
    from uvlab.gpu.imaging.reuse import select_samples
    from uvlab.gpu.imaging.weighting import imaging_weights

    s = select_samples(uvw, freq_hz, weight, flag)
    d = np.broadcast_to(np.asarray(s.weight, dtype=np.float64), s.u.shape)
    w = np.asarray(imaging_weights(s.u, s.v, d, spec, weighting), dtype=np.float64)
    total = float(w.sum())
    if not total > 0:
        return math.nan, 0
    return math.sqrt(float((w * w / d).sum())) / total, int(d.size)


def expected_sigma_of_parts(parts, spec, weighting) -> tuple[float, int]:
    """:func:`expected_image_sigma` of several spectral windows imaged as one.

    The imaging weights are the whole band's (:func:`~uvlab.gpu.imaging.mfs.mfs_weights`:
    uniform and Briggs count every window's samples in a uv cell).
    """
    from uvlab.gpu.imaging.mfs import mfs_weights

    num = total = 0.0
    n = 0
    for p, w in zip(parts, mfs_weights(parts, spec, weighting), strict=True):
        d = np.broadcast_to(np.asarray(p.weight, dtype=np.float64), w.shape)
        used = w > 0
        num += float((w[used] ** 2 / d[used]).sum())
        total += float(w[used].sum())
        n += int(np.count_nonzero(used))
    if not total > 0:
        return math.nan, 0
    return math.sqrt(num) / total, n
