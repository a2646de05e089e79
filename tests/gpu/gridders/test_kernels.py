"""GCFs, tables, tap rules, numerical correctors and least-misfit kernels."""

import itertools
import math

import numpy as np
import pytest

from uvlab.gpu.gridders.correction import kernel_ft, nn_response
from uvlab.gpu.gridders.gcf import kernel_function, schwab_psi
from uvlab.gpu.gridders.least_misfit import least_misfit_taps, misfit
from uvlab.gpu.gridders.params import GridParams, good_size
from uvlab.gpu.gridders.tables import ExactTaps, NearestTaps, TableTaps, gcf_taps, make_table


@pytest.mark.parametrize("name", ["es", "kb", "pswf", "gauss"])
def test_kernel_is_even_unit_peaked_compact_and_decreasing(name):
    c = kernel_function(name, 6, sigma=2.0)
    z = np.linspace(0, 3, 301)
    assert c(np.array([0.0]))[0] == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(c(z), c(-z))
    assert np.all(np.diff(c(z)) <= 1e-15)
    assert np.all(c(np.array([3.0001, 4.0, -7.0])) == 0.0)


def test_schwab_coefficients_transcribed():
    # ψ(0) ≈ 1 (normalised spheroid), ψ(1) = P[1][0] exactly, continuous at ν = 0.75.
    assert schwab_psi(0.0) == pytest.approx(1.0, abs=1e-5)
    assert schwab_psi(1.0) == pytest.approx(4.028559e-3, rel=1e-12)
    assert schwab_psi(0.75 - 1e-12) == pytest.approx(schwab_psi(0.75), abs=2e-6)
    assert schwab_psi(1.2) == 0.0
    with pytest.raises(ValueError, match="support 6"):
        kernel_function("pswf", 8)


@pytest.mark.parametrize("name", ["es", "kb", "gauss", "pswf"])
def test_kernel_ft_matches_brute_force_integral(name):
    c = kernel_function(name, 6, sigma=2.0)
    y = np.linspace(-3, 3, 600001)
    t = np.linspace(0, 0.75, 7)
    brute = np.trapezoid(c(y)[None, :] * np.cos(2 * np.pi * np.outer(t, y)), y, axis=1)
    np.testing.assert_allclose(kernel_ft(c, 6, t), brute, rtol=1e-7, atol=1e-12)


def test_table_taps_read_the_kernel_at_the_rounded_offset(rng):
    c = kernel_function("es", 7, sigma=2.0)
    rule = TableTaps(make_table(c, 7, 16), 16, 7)
    xi = rng.uniform(-50, 50, 1000)
    k0, w = rule.taps(xi)
    xf = np.floor(xi * 16 + 0.5) / 16
    np.testing.assert_array_equal(k0, np.ceil(xf - 3.5).astype(int))
    np.testing.assert_allclose(w, c(k0[:, None] + np.arange(7) - xf[:, None]), atol=1e-15)
    k0e, we = ExactTaps(c, 7).taps(xi)
    np.testing.assert_allclose(we, c(k0e[:, None] + np.arange(7) - xi[:, None]), atol=0)
    k0n, wn = NearestTaps().taps(xi)
    assert np.all(np.abs(k0n - xi) <= 0.5) and np.all(wn == 1.0)


@pytest.mark.parametrize("exact", [False, True])
def test_rule_response_is_the_mean_over_subcell_positions(exact):
    """The corrector's ρ(t) equals the average 1-D response of records over δ."""
    rule = gcf_taps("kb", 6, 8, sigma=2.0, exact=exact)
    n = 8 * 64  # 64 midpoints per fine cell
    delta = -0.5 + (np.arange(n) + 0.5) / n
    t = np.linspace(0, 0.5, 11)
    k0, w = rule.taps(delta)
    off = k0[:, None] + np.arange(rule.support) - delta[:, None]
    mean = np.einsum("rj,rjt->t", w, np.exp(2j * np.pi * off[:, :, None] * t)) / n
    np.testing.assert_allclose(mean.real, rule.response(t), rtol=2e-5)
    assert np.abs(mean.imag).max() < 1e-9


def test_nearest_response_is_sinc():
    t = np.array([0.0, 0.25, 0.5])
    np.testing.assert_allclose(nn_response(t), [1.0, np.sin(np.pi / 4) / (np.pi / 4), 2 / np.pi])


def test_least_misfit_beats_es_and_improves_with_support():
    rms = []
    for s in (8, 10, 12, 14):
        taps = least_misfit_taps(s, 8)
        np.testing.assert_allclose(taps, taps[::-1], atol=1e-9 * np.abs(taps).max())
        rms.append(misfit(taps, s, 8)[0])
    assert all(a > 4 * b for a, b in itertools.pairwise(rms))
    assert rms[-1] < 1e-12
    half = 14 * 8 // 2
    es = kernel_function("es", 14, sigma=2.0)(np.arange(-half, half + 1) / 8)
    assert misfit(es, 14, 8)[0] > 1.5 * rms[-1]
    assert least_misfit_taps(14, 8) is least_misfit_taps(14, 8)  # cached


def test_good_size_is_the_smallest_even_235_smooth():
    def smooth(n):
        for p in (2, 3, 5):
            while n % p == 0:
                n //= p
        return n == 1

    for n in (2, 7, 100, 129, 257, 1000, 4097):
        g = good_size(n)
        assert g >= n and g % 2 == 0 and smooth(g)
        assert not any(smooth(k) for k in range(math.ceil(n), g) if k % 2 == 0)


def test_grid_params_from_eps_and_validation():
    p = GridParams.from_eps(1e-6)
    assert (p.kernel, p.support, p.sigma, p.exact) == ("es", 7, 2.0, True)
    assert GridParams.from_eps(1e-12).support == 13
    assert GridParams.from_eps(1e-4, sigma=1.25).support == math.ceil(
        -math.log(1e-4) / (math.pi * math.sqrt(1 - 1 / 1.25))
    )
    m = GridParams.muscat(32)
    assert (m.kernel, m.support, m.oversample, m.sigma, m.prune_support) == ("pswf", 6, 32, 1, 14)
    for bad in (dict(kernel="sinc"), dict(support=0), dict(sigma=0.5), dict(lookup="cubic")):
        with pytest.raises(ValueError):
            GridParams(**bad)
