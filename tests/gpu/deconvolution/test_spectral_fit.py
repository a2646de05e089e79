"""WSClean's -fit-spectral-pol (gpu/deconvolution/spectral_fit.py) against NumPy's polyfit.

Oracles: ``numpy.polynomial.polynomial.polyfit`` with weights √W on x = ν/ν0 − 1 (the
weighted least squares Radler solves), a polynomial of K terms reproduced exactly, and
the weighted mean (K = 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.polynomial import polynomial as P

from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.spectral_fit import SpectralFit

FREQ = np.linspace(1.05e9, 1.75e9, 8)
WEIGHTS = np.array([1.0, 2.0, 0.5, 3.0, 1.5, 0.0, 2.5, 1.0])


def test_reference_frequency_is_the_weighted_mean():
    fit = SpectralFit(FREQ, WEIGHTS, 2)
    assert fit.ref_freq_hz == pytest.approx((WEIGHTS * FREQ).sum() / WEIGHTS.sum(), rel=1e-15)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_terms_are_the_weighted_least_squares_polyfit(k, xp):
    rng = np.random.default_rng(29)
    values = rng.normal(size=(5, FREQ.size)) + 2.0
    fit = SpectralFit(FREQ, WEIGHTS, k)
    x = FREQ / fit.ref_freq_hz - 1.0
    want = np.stack([P.polyfit(x, y, k - 1, w=np.sqrt(WEIGHTS)) for y in values])
    got = to_numpy(fit.fit(xp.asarray(values)))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    back = to_numpy(fit.evaluate(xp.asarray(got)))
    np.testing.assert_allclose(back, np.stack([P.polyval(x, c) for c in want]), atol=1e-12)
    np.testing.assert_allclose(values @ fit.projection().T, back, atol=1e-12)


def test_a_polynomial_of_k_terms_is_its_own_fit_and_one_term_is_the_weighted_mean():
    fit = SpectralFit(FREQ, WEIGHTS, 3)
    terms = np.array([1.3, -0.4, 0.25])
    spectrum = fit.evaluate(terms)
    np.testing.assert_allclose(fit.fit(spectrum), terms, atol=1e-12)
    flat = SpectralFit(FREQ, WEIGHTS, 1)
    values = np.arange(FREQ.size, dtype=float)
    assert flat.fit(values)[0] == pytest.approx((WEIGHTS * values).sum() / WEIGHTS.sum())
    np.testing.assert_allclose(values @ flat.projection().T, flat.fit(values)[0], rtol=1e-12)


@pytest.mark.parametrize(
    ("k", "weights", "words"),
    [(0, WEIGHTS, "1 … 7 terms"), (8, WEIGHTS, "1 … 7 terms"), (2.5, WEIGHTS, "got 2.5"),
     (1, np.zeros(8), "not all 0"), (1, WEIGHTS[:3], "8 frequencies and 3 weights")],
)  # fmt: skip
def test_bad_fits_are_refused_in_one_line(k, weights, words):
    with pytest.raises(ValueError, match=words):
        SpectralFit(FREQ, weights, k)
