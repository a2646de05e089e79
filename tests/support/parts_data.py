"""Random visibilities to split into parts (tests of images and CLEAN made in parts)."""

from __future__ import annotations

import numpy as np

from uvlab.gpu.image_spec import ImageSpec

N = 32
SPEC = ImageSpec(N, 1.0 / (2.4 * 1700 * 1.1e9 / 3e8))


def data(seed=4, nrow=60, nchan=3):
    """(uvw, freq_hz, vis, weight, flag) of ``nrow`` random rows; row 7 wholly flagged."""
    rng = np.random.default_rng(seed)
    uvw = np.column_stack([rng.normal(0, 400, nrow), rng.normal(0, 400, nrow),
                           rng.normal(0, 20, nrow)])  # fmt: skip
    freq = np.array([1.0e9, 1.05e9, 1.1e9])[:nchan]
    vis = rng.normal(size=(nrow, nchan)) + 1j * rng.normal(size=(nrow, nchan))
    weight = rng.uniform(0.5, 1.5, (nrow, nchan))
    flag = rng.random((nrow, nchan)) < 0.1
    flag[7] = True  # a whole row flagged: a one-row part with nothing usable
    return uvw, freq, vis, weight, flag


def split(bounds, weighting):
    """(parts, totals): :func:`data` cut at ``bounds`` (row indices), each part the
    ``(uvw, freq_hz, vis, weight, flag)`` of its rows, and the density totals of all of
    them for uniform and Briggs weighting (None for natural), as a cluster's first pass
    makes them."""
    from itertools import pairwise

    from uvlab.gpu.imaging.parts import density_totals, needs_density, part_counts

    uvw, freq, vis, weight, flag = data()
    parts = [(uvw[a:b], freq, vis[a:b], weight[a:b], flag[a:b]) for a, b in pairwise(bounds)]
    totals = None
    if needs_density(weighting):
        totals = density_totals(sum(part_counts(*p, SPEC, weighting) for p in parts))
    return parts, totals
