"""CPU tests of the NumPy references beside the CUDA gridding kernels.

The CUDA pipeline (bin by tile → tile gridding with a Hermitian fold →
column pruner → c2r FFT → fused correct + crop) is emulated step for step in
NumPy (:mod:`uvlab.gpu.gridders.cuda_reference`) and checked here against
the independent NumPy gridders (:mod:`uvlab.gpu.gridders.separable`) and the
direct DFT; tests/gpu/gridders/test_cuda_gridders.py checks the kernels against both.
"""

import numpy as np
import pytest

from tests.support.gridding import CASES, IDS, SMALL, SPEC, chain_of, edge_records
from uvlab.gpu.gridders.cuda_binning import (
    bin_reference,
    counting_sort_reference,
    iparams,
    make_layout,
    subproblems,
)
from uvlab.gpu.gridders.cuda_grid import KernelConfig, batch_records, plan_layout
from uvlab.gpu.gridders.cuda_post import (
    correct_crop_reference,
    polyphase,
    prune_rows_reference,
)
from uvlab.gpu.gridders.cuda_reference import emulate_dirty, local_footprint
from uvlab.gpu.gridders.half_image import half_to_image
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruning import make_pruner
from uvlab.gpu.gridders.registry import axis_plans, get_gridder
from uvlab.gpu.gridders.separable import to_half_plane


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
@pytest.mark.parametrize("config", [KernelConfig(), SMALL], ids=["default", "small"])
def test_emulated_pipeline_equals_numpy_gridder(rng, name, params, config):
    u, v, vis = edge_records(rng)
    chain = chain_of(name, params)
    layout, _ = plan_layout(chain, config)
    ref = get_gridder(name)(u, v, vis, SPEC, params)
    img = emulate_dirty(u, v, vis, chain, layout)
    assert np.abs(img - ref).max() <= 1e-12 * np.abs(ref).max()


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_bin_windows_match_numpy_tap_rules_and_fit_the_tile(rng, name, params):
    u, v, vis = edge_records(rng)
    chain = chain_of(name, params)
    layout, _ = plan_layout(chain, SMALL)
    b = bin_reference(u, v, vis, chain, layout)
    assert b["vis"].size == np.count_nonzero(vis)
    plan_u, plan_v = axis_plans(name, SPEC, params)
    xu, xv, _ = to_half_plane(plan_u.coords(u), -plan_v.coords(v), vis, plan_u.n_grid)
    idx = b["index"]
    if plan_u.pruner is None:  # the fused pruner has no NumPy tap rule of its own
        k0u, _ = plan_u.rule.taps(xu[idx])
        assert np.array_equal(b["k0u"] - layout.pad, k0u)
    k0v, _ = plan_v.rule.taps(xv[idx])
    assert np.array_equal(b["k0v"], k0v % plan_v.n_grid)
    lu, lv = local_footprint(b, chain)
    assert lu.min() >= 1 and lu.max() <= layout.tile_u
    assert lv.min() >= 1 and lv.max() <= layout.tile_v
    assert np.all(b["key"] >= 0) and np.all(b["key"] < layout.nkeys)
    assert np.all((lv % layout.groups) == b["key"] % layout.groups)


def test_counting_sort_and_subproblems(rng):
    keys = rng.integers(0, 60, 5000) * 3 + rng.integers(0, 3, 5000)
    order, counts, offsets = counting_sort_reference(keys, 180)
    assert np.all(np.diff(keys[order]) >= 0)
    assert np.array_equal(offsets[keys[order]] + _ranks(keys[order]), np.arange(keys.size))
    tile, chunk = subproblems(counts, 3, 17)
    expect = [(t, c) for t in range(60) for c in range(-(-counts[3 * t : 3 * t + 3].max() // 17))]
    assert list(zip(tile.tolist(), chunk.tolist(), strict=True)) == expect


@pytest.mark.gpu
@pytest.mark.parametrize(("groups", "maxsub"), [(1, 17), (3, 17), (2, 1), (4, 1000)])
def test_cuda_subproblems_equal_the_array_reference(rng, groups, maxsub):
    """The two-kernel subproblem list equals the array-module one, empty tiles included."""
    import cupy

    counts = rng.integers(0, 90, 600 * groups) * (rng.random(600 * groups) < 0.7)
    want = subproblems(counts, groups, maxsub)
    got = subproblems(cupy.asarray(counts, dtype=cupy.int32), groups, maxsub, cupy)
    assert got[0].dtype == np.int32 and got[1].dtype == np.int32
    assert np.array_equal(got[0].get(), want[0]) and np.array_equal(got[1].get(), want[1])


def _ranks(sorted_keys):
    first = np.searchsorted(sorted_keys, sorted_keys, side="left")
    return np.arange(sorted_keys.size) - first


@pytest.mark.parametrize(("alpha", "support"), [(8, 14), (2, 8), (3, 10), (1, 6)])
def test_polyphase_pruner_reference_equals_pruner(rng, alpha, support):
    pruner = make_pruner("lm", support, alpha, x0=0.25)
    grid = rng.normal(size=(alpha * 40, 7)) + 1j * rng.normal(size=(alpha * 40, 7))
    zs, smin = polyphase(pruner)
    assert zs.shape == (zs.shape[0], alpha) and smin <= 0
    ref = pruner.apply(grid, axis=0)
    assert np.abs(prune_rows_reference(grid, pruner) - ref).max() <= 1e-12 * np.abs(ref).max()


def test_fused_correct_crop_equals_two_pass_fft(rng):
    mv, mu, n = 48, 40, 24
    half = rng.normal(size=(mv, mu // 2 + 1)) + 1j * rng.normal(size=(mv, mu // 2 + 1))
    half[0, 0] = half[0, 0].real
    cu, cv = rng.uniform(1, 2, n), rng.uniform(1, 2, n)
    ref = half_to_image(half, mu, n) * np.outer(cv, cu)
    img = correct_crop_reference(np.fft.irfft2(half, s=(mv, mu)) * (mu * mv), cu, cv, n)
    assert np.abs(img - ref).max() <= 1e-12 * np.abs(ref).max()


def test_shared_memory_budget_and_kernel_parameters():
    for rb in (4, 8):
        for s in range(1, 17):
            assert batch_records(rb, s, s, (32, 32)) >= 32
    chain = chain_of("conv", GridParams.from_eps(1e-5))
    layout = make_layout(chain, (32, 32))
    ip = iparams(layout, chain.rule_u, chain.rule_v)
    assert ip.dtype == np.int32 and ip.size == 16
    assert list(ip[:3]) == [chain.rule_u.n_grid, chain.rule_v.n_grid, layout.pad]


def test_gpu_chain_declines_what_only_the_host_runs():
    assert chain_of("conv", GridParams.from_eps(1e-5, wstack=True)) is None
    assert chain_of("conv", GridParams(kernel="kb", exact=True)) is None
    assert chain_of("conv", GridParams(kernel="kb", exact=False)) is not None


def test_precision_field_and_registry_default():
    assert GridParams().precision == "double"
    assert GridParams(precision="single").precision == "single"
    with pytest.raises(ValueError, match="precision"):
        GridParams(precision="half")
    assert get_gridder("conv") is get_gridder("conv", xp=np)
