"""Tap rules: tables read by nearest and by linear lookup, and their correctors.

Linear lookup reads a table's piecewise-linear interpolant (zero past ±D/β), so its
taps are checked against ``numpy.interp`` of the table, its mean response (from which
the corrector is made) against the mean of the taps over record positions, and its
1-D transfer function (:meth:`AxisPlan.transfer`, the analytic aliasing machinery)
against exact ES evaluation.
"""

import numpy as np
import pytest

from uvlab.gpu.aliasing import analytic_map
from uvlab.gpu.gridders.conv import conv_axis
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.tables import TableTaps, gcf_taps
from uvlab.gpu.image_spec import ImageSpec

SPEC = ImageSpec(64, 1e-3)
#: (kernel, S, β): S·β even and odd, kernels that vanish at ±S/2 and ones that do not.
TABLES = [("es", 6, 16), ("es", 7, 5), ("kb", 5, 7), ("gauss", 4, 3), ("lm", 6, 8)]


def interpolant(rule: TableTaps, offsets):
    """The table's piecewise-linear interpolant at offsets (cells), zero past ±D/β."""
    d = np.arange(-rule.half, rule.half + 1)
    return np.interp(offsets * rule.oversample, d, rule.table, left=0.0, right=0.0)


@pytest.mark.parametrize(("kernel", "support", "beta"), TABLES)
def test_linear_taps_are_the_tables_interpolant(rng, kernel, support, beta):
    rule = gcf_taps(kernel, support, beta, 2.0, lookup="linear")
    xi = np.concatenate([rng.uniform(-40, 40, 3000), np.arange(-20, 21) / beta, [0.0, 0.5]])
    k0, w = rule.taps(xi)
    off = (k0[:, None] + np.arange(support)) - xi[:, None]
    assert w.shape == (xi.size, support)
    np.testing.assert_allclose(w, interpolant(rule, off), rtol=0, atol=1e-13)
    # The window holds every offset where the interpolant lives: [−D/β, D/β).
    lo = off[:, 0] * beta
    assert np.all(lo >= -rule.half - 1e-9) and np.all(lo < -rule.half + beta)


def test_linear_lookup_agrees_with_nearest_on_table_points():
    rule = gcf_taps("es", 6, 16, 2.0)
    lin = gcf_taps("es", 6, 16, 2.0, lookup="linear")
    xi = np.arange(-64, 64) / 16  # every record on a table point
    np.testing.assert_array_equal(rule.taps(xi)[0], lin.taps(xi)[0])
    np.testing.assert_allclose(rule.taps(xi)[1], lin.taps(xi)[1], rtol=0, atol=1e-15)


@pytest.mark.parametrize(("kernel", "support", "beta"), TABLES)
def test_linear_response_is_the_mean_response_of_the_taps(kernel, support, beta):
    """ρ(t) = mean over record positions of Σ_k w_k·cos(2πt(k − ξ)): the corrector's source."""
    rule = gcf_taps(kernel, support, beta, 2.0, lookup="linear")
    xi = (np.arange(40000) + 0.5) / 40000  # midpoint rule over one cell
    k0, w = rule.taps(xi)
    off = (k0[:, None] + np.arange(support)) - xi[:, None]
    t = np.linspace(-0.5, 0.5, 21)
    mean = np.einsum("rs,rst->t", w, np.cos(2 * np.pi * off[:, :, None] * t)) / xi.size
    np.testing.assert_allclose(rule.response(t), mean, rtol=0, atol=1e-8)
    # Not the nearest-lookup corrector: the triangle changes sinc(t/β) to sinc²(t/β).
    near = gcf_taps(kernel, support, beta, 2.0).response(t)
    assert np.abs(rule.response(t) - near).max() > 1e-5


def test_unknown_lookup_is_refused():
    with pytest.raises(ValueError, match="lookup"):
        GridParams(lookup="cubic")
    with pytest.raises(ValueError, match="lookup"):
        TableTaps(np.ones(5), 2, 2, lookup="cubic")


def test_linear_transfer_approaches_exact_es():
    """max over δ of |L(δ, n) − 1|, S = 6: linear lookup ~ 1/β², nearest ~ 1/β.

    Measured (N = 64, σ = 2): exact ES 3.1e-5; β = 16, 32, 64: nearest 4.9e-2,
    2.5e-2, 1.2e-2; linear 8.3e-4, 2.3e-4, 7.7e-5.
    """
    delta = -0.5 + np.arange(256) / 256

    def worst(**kw):
        plan = conv_axis(SPEC, GridParams(support=6, **kw))
        return np.abs(plan.transfer(delta) - 1.0).max()

    exact = worst(exact=True)
    for beta in (16, 32, 64):
        near, lin = worst(oversample=beta), worst(oversample=beta, lookup="linear")
        assert lin < near / 40
        assert lin < 3.0 * exact + 0.25 / beta**2
    assert worst(oversample=16, lookup="linear") > 8 * worst(oversample=64, lookup="linear")


def test_analytic_map_follows_the_lookup():
    params = GridParams(support=6, oversample=32)
    near = analytic_map("conv", SPEC, params).max()
    lin = analytic_map("conv", SPEC, params.with_(lookup="linear")).max()
    exact = analytic_map("conv", SPEC, params.with_(exact=True)).max()
    assert lin < near / 50
    assert exact < lin < 10 * exact
