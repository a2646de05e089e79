"""The per-baseline factors of the per-antenna path: sinc by series, smearing plans, Gaussians."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu.predict import Smearing, terms
from uvlab.gpu.predict.baseline_factors import (
    Scratch,
    gaussian_weights,
    plan_smearing,
    series_terms,
    sinc,
    smearing_weights,
)

C = 299_792_458.0


def test_sinc_series_and_sine_agree_with_numpy():
    x = np.concatenate([[0.0, 1e-9, -1e-4], np.linspace(-4.0, 4.0, 401), [7.5, -30.0]])
    want = np.sinc(x / math.pi)
    for real, tol in ((np.float64, 2e-16), (np.float32, 2e-7)):
        for part in (slice(0, -2), slice(None)):  # all |x| ≤ 4: series; else sin(x)/x
            got = sinc(x[part].astype(real), real)
            assert np.max(np.abs(got - want[part])) <= 4 * tol
    assert series_terms(0.0, 1e-17) == 0
    assert series_terms(1.0, 1e-17) == 8  # 1/19! < 1e-17 < 1/17!


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-15), (np.float32, 3e-7)])
@pytest.mark.parametrize("widths", [2e6, np.array([1e6, 3e6, 2e6])])
@pytest.mark.parametrize("rate_scale", [1e-4, 1e-2])  # the series, and sin(x)/x
def test_smearing_weights_are_the_two_sincs(dtype, tol, widths, rate_scale, rng):
    """ζ_time·ζ_band of SDP Memo 076 eqs 6 and 8, written out here per channel."""
    freq = np.array([1.30e9, 1.35e9, 1.42e9])
    sm = Smearing(widths, 60.0, -0.5)
    dpq = np.stack([rng.normal(size=(2, 5, 3)) * 40.0, rng.normal(size=(2, 5, 3)) * rate_scale])
    span = (float(np.abs(dpq[0]).max()), float(np.abs(dpq[1]).max()))
    plan = plan_smearing(sm, freq, span, dtype)
    assert (plan.table is None) == (rate_scale > 1e-3)
    got = np.broadcast_to(smearing_weights(dpq, plan, dtype), (2, 3, 5, 3))
    width = np.broadcast_to(widths, (3,))
    want = np.empty((2, 3, 5, 3))
    for c, nu in enumerate(freq):
        want[:, c] = np.sinc(width[c] * dpq[0] / C) * np.sinc(nu * 60.0 * dpq[1] / C)
    assert np.min(want) < 0.95  # both factors matter
    assert np.max(np.abs(got - want)) <= tol


def test_gaussian_weights_match_terms(rng):
    uv = rng.normal(size=(2, 4, 3)) * 1500.0  # (u/v, ant, time)
    shape = np.array([[1e-4, 4e-5, 0.6], [3e-5, 3e-5, 0.0]])
    freq = np.array([1.0e9, 1.4e9])
    p, q = np.array([0, 1, 3]), np.array([2, 0, 1])
    neg_k2 = -((freq / C) ** 2)[None, :, None, None]
    got = gaussian_weights(uv, p, q, terms.gaussian_quadratic(shape), neg_k2, np.float64)
    duv = uv[:, p] - uv[:, q]  # (2, bl, time)
    k = freq[:, None, None, None] / C
    want = terms.gaussian_factor(k * duv[0, ..., None], k * duv[1, ..., None], shape)
    # (chan, bl, time, src)
    assert np.allclose(got, np.moveaxis(want, -1, 0), rtol=1e-14, atol=0)
    assert math.isclose(float(got.min()), float(want.min()), rel_tol=1e-14)


def test_scratch_reuses_one_array_per_name_and_dtype():
    work = Scratch()
    a = work("x", (4, 5), np.float64)
    a[...] = 1.0
    b = work("x", (2, 3), np.float64)  # a smaller view of the same memory
    assert np.shares_memory(a, b) and b.shape == (2, 3)
    assert not np.shares_memory(a, work("y", (4, 5), np.float64))
    assert not np.shares_memory(a, work("x", (4, 5), np.float32))
    c = work("x", (10, 10), np.float64)  # grown: a new array
    assert c.shape == (10, 10) and not np.shares_memory(a, c)
