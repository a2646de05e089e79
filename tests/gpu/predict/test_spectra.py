"""WSClean spectral terms in the engine (terms.spectral_flux) and every predict path.

Oracles: the formulas written out in this test, the float64 triple sum of
uvlab.gpu.predict.reference (which evaluates them term by term itself), and the
power law the terms reduce to.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.support.scenes import random_sources
from uvlab.gpu.predict import Smearing, predict_antennas, predict_reference, predict_rows
from uvlab.gpu.predict.terms import spectral_flux

DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def with_terms(src, rng, k=3):
    n = src.nsrc
    terms = rng.normal(scale=0.3, size=(n, k))
    log_si = np.arange(n) % 2 == 0  # both kinds
    stokes = src.stokes.copy()
    stokes[-1, 0] = 0.0  # an ordinary polynomial about I0 = 0
    return replace(src, stokes=stokes, spectral_terms=terms, log_si=log_si)


def test_spectral_flux_is_the_written_out_polynomials(rng):
    src = with_terms(random_sources(rng, 6, gaussians=False), rng)
    freq = np.array([0.7e9, 1.1e9, 1.9e9])
    got = spectral_flux(freq, src)
    for s in range(src.nsrc):
        for c, nu in enumerate(freq):
            x = nu / src.ref_freq[s]
            coeffs = src.spectral_terms[s]
            i0 = src.stokes[s, 0]
            if src.log_si[s]:
                ratio = math.exp(sum(a * math.log(x) ** (k + 1) for k, a in enumerate(coeffs)))
                want = ratio * src.stokes[s]
            else:
                i = i0 + sum(a * (x - 1) ** (k + 1) for k, a in enumerate(coeffs))
                ratio = i / i0 if i0 else 1.0
                want = np.array([i, *(ratio * src.stokes[s, 1:])])
            np.testing.assert_allclose(got[c, s], want, rtol=1e-13, atol=1e-15)


def test_one_logarithmic_term_is_the_power_law(rng):
    src = random_sources(rng, 4, gaussians=False)
    terms = replace(src, spectral_terms=src.spectral_index[:, None], log_si=np.ones(4, bool))
    freq = np.linspace(0.8e9, 1.6e9, 5)
    np.testing.assert_allclose(spectral_flux(freq, terms), spectral_flux(freq, src), rtol=1e-14)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("smear", [False, True])
def test_every_predict_path_follows_the_terms(rng, device, smear):
    uvw = rng.normal(size=(15, 3)) * np.array([1500.0, 1500.0, 300.0])
    freq = np.sort(rng.uniform(0.9e9, 1.7e9, 7))
    src = with_terms(random_sources(rng, 5, gaussians=smear), rng)
    sm = Smearing(2e6, 16.0, math.radians(-40.0)) if smear else None
    ref = predict_reference(uvw, freq, src, "scalar", sm)
    got = predict_rows(uvw, freq, src, smearing=sm, device=device)
    assert np.linalg.norm(got - ref) <= 1e-12 * np.linalg.norm(ref)
    # the per-antenna paths: antennas whose differences are these rows' baselines
    ant = rng.normal(size=(1, 6, 3)) * 1000.0
    a1, a2 = np.triu_indices(6, 1)
    rows = (ant[:, a1] - ant[:, a2]).reshape(-1, 3)
    ref = predict_reference(rows, freq, src, "scalar", None)
    got = predict_antennas(ant, a1, a2, freq, src, device=device).reshape(ref.shape)
    assert np.linalg.norm(got - ref) <= 1e-12 * np.linalg.norm(ref)
