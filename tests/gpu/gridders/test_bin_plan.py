"""A reused sort / bin (cuda_binning.BinPlan): the same images as a fresh sort, any values.

Oracles: the CUDA gridder without a plan (itself checked against NumPy and the
DFT in test_cuda_gridders.py), the NumPy twin of the fill kernel, and the
imager's GPU image against its CPU image.
"""

import numpy as np
import pytest

from tests.support.gridding import CASES, IDS, SPEC, amplification, edge_records
from uvlab.gpu.gridders.cuda_binning import fill_bins, fill_reference
from uvlab.gpu.gridders.cuda_gridders import bin_plan
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import algorithm, get_gridder
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.reuse import ImagingCache
from uvlab.gpu.imaging.weighting import Weighting

pytestmark = pytest.mark.gpu

TOL = {"double": 1e-12, "single": 1e-5}


@pytest.mark.parametrize("precision", ["double", "single"])
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_a_plan_grids_any_visibilities_as_a_fresh_sort(rng, name, params, precision):
    import cupy

    u, v, vis = (cupy.asarray(a) for a in edge_records(rng))
    params = params.with_(precision=precision)
    fn = get_gridder(name, xp=cupy)
    plan = bin_plan(algorithm(name), u, v, SPEC, params)
    if plan is None:
        pytest.skip("runs on the host")
    others = [vis, vis * (1 + 2j), cupy.asarray(rng.normal(size=vis.size) + 0j)]
    others[2][::3] = 0  # zero records: skipped by a fresh sort, kept (as zeros) by the plan
    for wvis in others:
        ref = cupy.asnumpy(fn(u, v, wvis, SPEC, params)).astype(np.float64)
        got = cupy.asnumpy(fn(u, v, wvis, SPEC, params, plan=plan)).astype(np.float64)
        tol = TOL[precision] * amplification(name, params)  # float32 rounding, summed anew
        assert np.abs(got - ref).max() <= tol * np.abs(ref).max()


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_a_gathered_fill_leaves_the_plan_as_it_was(rng, name, params):
    """The 2-D gridder gathers a reused plan's visibilities itself: the plan's records are
    not written, so one plan serves two images in a row (and another thread) unchanged."""
    import cupy

    from uvlab.gpu.gridders.cuda_grid import fused_fill
    from uvlab.gpu.gridders.cuda_gridders import cached_chain

    u, v, vis = (cupy.asarray(a) for a in edge_records(rng))
    plan = bin_plan(algorithm(name), u, v, SPEC, params)
    chain = cached_chain(algorithm(name), SPEC, params)
    if plan is None or not fused_fill(chain):
        pytest.skip("no plan, or a one-row gridder (it fills the records)")
    before = cupy.asnumpy(plan.recs)
    fn = get_gridder(name, xp=cupy)
    first = cupy.asnumpy(fn(u, v, vis, SPEC, params, plan=plan))
    fn(u, v, vis * 3j, SPEC, params, plan=plan)
    np.testing.assert_array_equal(cupy.asnumpy(plan.recs), before)
    again = cupy.asnumpy(fn(u, v, vis, SPEC, params, plan=plan))
    # the same image (to the order of the grid's atomic additions)
    assert np.abs(again - first).max() <= 1e-12 * np.abs(first).max()


def test_the_fill_kernel_equals_its_numpy_twin(rng):
    import cupy

    name, params = CASES[0]
    u, v, vis = (cupy.asarray(a) for a in edge_records(rng))
    plan = bin_plan(algorithm(name), u, v, SPEC, params)
    before = cupy.asnumpy(plan.recs)
    new = cupy.asarray(rng.normal(size=vis.size) + 1j * rng.normal(size=vis.size))
    fill_bins(plan, new.astype(np.complex128))  # the one-row gridders' separate fill
    want = fill_reference(cupy.asnumpy(plan.code), cupy.asnumpy(new), before)
    got = cupy.asnumpy(plan.recs)
    np.testing.assert_array_equal(got[:, :2], before[:, :2])  # positions stay
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15 * np.abs(want).max())
    code = cupy.asnumpy(plan.code)
    assert np.array_equal(np.sort(code >> 1), np.arange(code.size))  # a permutation


def test_the_imager_keeps_one_plan_for_dirty_psf_and_the_next_weighting(rng):
    u, v, vis = edge_records(rng)
    uvw = np.stack([u, v, np.zeros_like(u)], axis=1) * 3e8 / 1.4e9
    freq = np.array([1.4e9])
    cache = ImagingCache()
    params = GridParams.from_eps(1e-7)  # the CPU's ducc0 at the same ε below
    kw = dict(algorithm="conv", params=params, device="gpu", cache=cache, data_key="obs")
    nat = make_image(uvw, freq, vis[:, None], 1.0, SPEC, weighting=Weighting("natural"), **kw)
    assert cache.hits.get("bin plan", 0) == 0
    unif = make_image(uvw, freq, vis[:, None], 1.0, SPEC, weighting=Weighting("uniform"), **kw)
    assert cache.hits["bin plan"] == 1  # the second image re-sorted nothing
    for got, w in ((nat, "natural"), (unif, "uniform")):
        ref = make_image(
            uvw, freq, vis[:, None], 1.0, SPEC, weighting=Weighting(w), algorithm="conv",
            params=GridParams.from_eps(1e-7), device="cpu",
        )  # fmt: skip
        scale = np.abs(ref.dirty).max()
        assert np.abs(got.dirty - ref.dirty).max() <= 1e-6 * scale
        assert np.abs(got.psf - ref.psf).max() <= 1e-6
