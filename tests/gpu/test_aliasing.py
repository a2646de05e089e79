"""Aliasing maps: measured error maps, analytic transfer-function maps, R(X) scans."""

import numpy as np
import pytest

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import PIXEL_SKY, layout_uv, meerkat_spec
from uvlab.gpu.aliasing import (
    analytic_map,
    central_half,
    error_map,
    fine_factor,
    is_stepwise,
    point_source_scan,
    transfer_functions,
)
from uvlab.gpu.gridders.correction import kernel_ft
from uvlab.gpu.gridders.gcf import kernel_function
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import ALGORITHMS, CATALOGUE, axis_plans, get_gridder
from uvlab.gpu.image_spec import ImageSpec

MUSCAT = GridParams.muscat(16)
#: Every tabulated GCF (support) and every closed-form one evaluated exactly.
GCF_TABLES = (("es", 7), ("kb", 6), ("pswf", 6), ("gauss", 4), ("lm", 6))
GCF_EXACT = (("es", 7), ("es", 6), ("kb", 5), ("pswf", 6), ("gauss", 4))


@pytest.fixture(scope="module")
def meerkat():
    u, v, _ = layout_uv(n_times=16)
    spec = meerkat_spec(u, v, 64)
    vis = sky_vis(u, v, spec, PIXEL_SKY)
    return u, v, vis, spec, dft_image(u, v, vis, spec)


def test_error_map_metrics_closed_form():
    ref = np.zeros((8, 8))
    ref[4, 4] = -2.0
    img = ref.copy()
    img[0, 0] = 0.5  # outside the central half
    img[4, 4] = -2.0 + 0.2  # inside it
    err, met = error_map(img, ref)
    assert err[0, 0] == 0.25 and err[4, 4] == pytest.approx(0.1)
    assert met["max_error"] == 0.25
    assert met["rms_central"] == pytest.approx(np.sqrt(0.01 / 16))
    assert met["rms_full"] == pytest.approx(np.sqrt((0.0625 + 0.01) / 64))
    assert central_half(8) == slice(2, 6)
    with pytest.raises(ValueError):
        error_map(img, np.zeros((8, 8)))


@pytest.mark.parametrize(("kernel", "sigma"), [("pswf", 1.0), ("pswf", 2.0), ("es", 2.0)])
def test_conv_rms_transfer_is_the_classic_alias_ratio(kernel, sigma):
    """RMS over δ of |L − 1| = √(Σ_{b≠0} ĉ(x+b)²)/ĉ(x) for an exactly evaluated GCF.

    ES is cut at the support edge where it is e^{−β} ≈ 1e-6, not 0 (PSWF
    vanishes there): the identity (Poisson summation) holds to that cut.
    """
    spec = ImageSpec(64, 1e-5)
    params = GridParams(kernel, 6, sigma=sigma, exact=True)
    lu, _ = transfer_functions("conv", spec, params, n_delta=1024)
    rms = np.sqrt(np.mean(np.abs(lu - 1) ** 2, axis=0))
    m = round(sigma * 64)
    x = (np.arange(64) - 32) / m
    c = kernel_function(kernel, 6, sigma=m / 64)

    b = np.array([k for k in range(-40, 41) if k])
    alias = (kernel_ft(c, 6, (x[None, :] + b[:, None]).ravel(), nodes=1000) ** 2).reshape(
        b.size, -1
    )
    want = np.sqrt(alias.sum(axis=0)) / kernel_ft(c, 6, x, nodes=1000)
    np.testing.assert_allclose(rms, want, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", [n for n in ALGORITHMS if CATALOGUE[n].analytic_bound])
def test_one_record_images_as_the_product_of_axis_transfers(rng, name):
    """The 2-D pipeline (half plane, fold, prune, c2r) is the outer product of the 1-D chains."""
    spec = ImageSpec(32, 1e-3)
    params = MUSCAT.with_()
    plan_u, plan_v = axis_plans(name, spec, params)
    for u, v in rng.uniform(-400, 400, (4, 2)):
        a = complex(*rng.normal(size=2))
        img = get_gridder(name)(np.array([u]), np.array([v]), np.array([a]), spec, params)
        lu = plan_u.transfer([u * plan_u.n_fft * spec.cell_rad])[0]
        lv = plan_v.transfer([-v * plan_v.n_fft * spec.cell_rad])[0]
        exact = a * np.exp(-2j * np.pi * np.add.outer(v * spec.m_axis(), u * spec.l_axis()))
        np.testing.assert_allclose(img, np.real(exact * np.outer(lv, lu)), atol=1e-12 * abs(a))


@pytest.mark.parametrize("name", ALGORITHMS)
def test_analytic_map_bounds_the_measured_error(meerkat, name):
    u, v, vis, spec, ref = meerkat
    img = get_gridder(name)(u, v, vis, spec, MUSCAT)
    bound = np.abs(vis).sum() * analytic_map(name, spec, MUSCAT)
    assert np.all(np.abs(img - ref) <= bound + 1e-10 * np.abs(vis).sum())


def test_analytic_maps_rank_algorithms_as_measured(meerkat):
    u, v, vis, spec, ref = meerkat
    names = ("pruned-nn", "hybrid", "conv")
    measured = [
        error_map(get_gridder(n)(u, v, vis, spec, MUSCAT), ref)[1]["rms_full"] for n in names
    ]
    analytic = [analytic_map(n, spec, MUSCAT).mean() for n in names]
    expected_rms = [np.sqrt(np.mean(analytic_map(n, spec, MUSCAT, kind="rms") ** 2)) for n in names]
    assert measured == sorted(measured)
    assert analytic == sorted(analytic)
    assert expected_rms == sorted(expected_rms)


def test_accurate_conv_has_a_tiny_analytic_map():
    spec = ImageSpec(64, 1e-5)
    emax = analytic_map("conv", spec, GridParams.from_eps(1e-6))
    erms = analytic_map("conv", spec, GridParams.from_eps(1e-6), kind="rms")
    assert emax.max() < 1e-5 and erms.max() < 5e-6


def test_point_source_scan_grows_toward_the_edge_and_ranks(meerkat):
    u, v, _, spec, _ = meerkat
    xs = np.array([0, 3, 6, 9, 24, 27, 30])
    r = {
        n: point_source_scan(n, spec, MUSCAT, u, v, xs=xs)[1]
        for n in ("conv", "hybrid", "pruned-nn")
    }
    assert r["conv"][:4].max() < 1e-5
    assert r["conv"][-1] > 1e-4 and r["conv"][-1] > 10 * r["conv"][:4].max()
    assert r["conv"][-1] > r["hybrid"][-1] > 5 * r["pruned-nn"][-1]
    _, exact = point_source_scan("conv", spec, GridParams.from_eps(1e-6), u, v, xs=xs)
    assert exact.max() < 1e-7


def test_analytic_map_rejects_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        analytic_map("conv", ImageSpec(32, 1e-5), MUSCAT, kind="mean")


def _regular_max(name, spec, params):
    """The old map: maximum over the regular offsets −½ + j/n only (one side of each tie)."""
    lu, lv = transfer_functions(name, spec, params)
    out = np.zeros((lv.shape[1], lu.shape[1]))
    for row in lv:
        np.maximum(out, np.abs(row[:, None, None] * lu[None, :, :] - 1.0).max(axis=1), out=out)
    return out


TABLE = GridParams.muscat(16)
TIE_CASES = [
    ("nn", GridParams()),
    ("nn-oversampled", GridParams(oversample=8)),
    ("pruned-nn", TABLE),
    ("pruned-nn", TABLE.with_(oversample=8, prune_kernel="es", prune_support=8)),
    ("hybrid", TABLE),
    ("hybrid", TABLE.with_(kernel="kb", support=5, sigma=2.0)),
    *[("conv", TABLE.with_(kernel=k, support=s, sigma=2.0)) for k, s in GCF_TABLES],
    ("conv", GridParams("pswf", 6, oversample=64, sigma=2.0)),
    *[("conv", GridParams(k, s, exact=True)) for k, s in GCF_EXACT],
    # linear table lookup: the taps move with the record (not stepwise), L kinks at table nodes
    ("conv", TABLE.with_(support=6, sigma=2.0, lookup="linear")),
    ("conv", GridParams("es", 5, oversample=8, sigma=2.0, lookup="linear")),
    ("hybrid", TABLE.with_(lookup="linear")),
]


def _tie_offsets(plan, rng, n):
    """n offsets (FFT cells) just either side of rounding ties (exact kernels: window steps)."""
    f = fine_factor(plan)
    if is_stepwise(plan):
        ties = (rng.integers(-2 * f, 2 * f, n) + 0.5) / f
    else:
        ties = rng.integers(-2, 2, n) + (plan.rule.support / 2.0) % 1.0
    return ties + rng.choice([-1e-9, 1e-9], n)


def _one_record(plan_u, plan_v, spec, du, dv):
    """(u, v) in wavelengths of a record at (δu, δv) FFT-grid cells."""
    return (
        np.array([du / (plan_u.n_fft * spec.cell_rad)]),
        np.array([-dv / (plan_v.n_fft * spec.cell_rad)]),
    )


@pytest.mark.parametrize(("name", "params"), TIE_CASES)
def test_records_beside_rounding_ties_stay_within_the_bound(rng, name, params):
    """One record at ±½ of a fine cell: |I − I_dft| ≤ |V|·E at every pixel, against the DFT."""
    spec = ImageSpec(32, 1e-3)
    plan_u, plan_v = axis_plans(name, spec, params)
    bound = analytic_map(name, spec, params)
    n = 24
    du, dv = _tie_offsets(plan_u, rng, n), _tie_offsets(plan_v, rng, n)
    if not is_stepwise(plan_u):  # smooth between steps: anywhere, too (the 2 % widening)
        du[::2], dv[::2] = rng.uniform(-0.5, 0.5, (2, n // 2))
    gridder = get_gridder(name)
    lit = bound > 1e-9  # elsewhere both are float rounding (the centre of pruned-nn)
    worst = 0.0
    for k in range(n):
        u, v = _one_record(plan_u, plan_v, spec, du[k], dv[k])
        a = np.exp(2j * np.pi * rng.uniform(size=1))
        err = np.abs(gridder(u, v, a, spec, params) - dft_image(u, v, a, spec))
        assert np.all(err <= bound + 1e-12), (k, (err[lit] / bound[lit]).max())
        worst = max(worst, float((err[lit] / bound[lit]).max()))
    if is_stepwise(plan_u) or is_stepwise(plan_v):
        assert worst > 0.97  # the bound is the supremum: records at the ties come close


@pytest.mark.parametrize(
    ("name", "tie_u", "tie_v", "old_ratio"),
    [("pruned-nn", 0.5, 7.5, 1.130), ("hybrid", 11.5, 0.5, 1.141), ("conv", 0.5, 15.5, 1.137)],
)
def test_the_worst_tie_pair_broke_the_sampled_map_and_not_the_bound(name, tie_u, tie_v, old_ratio):
    """Issue 14: a record just below a u tie and just above a v tie (fine cells) gave
    1.14 × the map sampled at the offsets −½ + j/n, which see each tie from one side."""
    spec, params = ImageSpec(32, 1e-3), MUSCAT
    plan_u, plan_v = axis_plans(name, spec, params)
    fu, fv = fine_factor(plan_u), fine_factor(plan_v)
    u, v = _one_record(plan_u, plan_v, spec, tie_u / fu - 1e-9, tie_v / fv + 1e-9)
    a = np.ones(1, complex)
    err = np.abs(get_gridder(name)(u, v, a, spec, params) - dft_image(u, v, a, spec))
    old, bound = _regular_max(name, spec, params), analytic_map(name, spec, params)
    lit = bound > 1e-9
    assert (err[lit] / old[lit]).max() == pytest.approx(old_ratio, abs=1e-3)
    assert np.all(err <= bound + 1e-12)
    assert (err[lit] / bound[lit]).max() <= 1.0 + 1e-9
