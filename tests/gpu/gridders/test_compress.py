"""Full compression (gpu/gridders/compress.py; Muscat 2021 §3.2.4) on the CPU.

Compression must not change the image: compressed == uncompressed to float64
rounding (1e-12 of the peak), for every algorithm with a nearest-cell axis and
every tap rule of hybrid's u axis, with the keys of both the NumPy chain and
the GPU chain (through the NumPy emulation of the CUDA pipeline). The GPU
kernels are checked against these in tests/gpu/gridders/test_cuda_compress.py.
"""

import numpy as np
import pytest

from tests.support.gridding import CASES, IDS, SPEC, chain_of, duplicated, edge_records
from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import PIXEL_SKY, layout_uv, meerkat_spec
from uvlab.gpu.aliasing import error_map
from uvlab.gpu.gridders.compress import (
    compress,
    key_from_chain,
    key_from_plans,
    segment_sum,
)
from uvlab.gpu.gridders.cuda_grid import KernelConfig, plan_layout
from uvlab.gpu.gridders.cuda_reference import emulate_dirty
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import CATALOGUE, axis_plans, get_gridder
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import StageTimer

COMPRESSIBLE = [(n, p) for n, p in CASES if n != "conv"]
COMPRESSIBLE_IDS = [i for (n, _), i in zip(CASES, IDS, strict=True) if n != "conv"]


def rel(a, b) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize(("name", "params"), COMPRESSIBLE, ids=COMPRESSIBLE_IDS)
def test_compressed_image_equals_uncompressed(rng, name, params):
    u, v, vis = duplicated(rng)
    fn = get_gridder(name)
    ref = fn(u, v, vis, SPEC, params)
    timer = StageTimer()
    img = fn(u, v, vis, SPEC, params.with_(compress=True), timer=timer)
    assert rel(img, ref) <= 1e-12
    assert "compress" in timer.seconds()
    c = compress(u, v, vis, key_from_plans(*axis_plans(name, SPEC, params)))
    assert c.n_in == np.count_nonzero(vis) and c.n_out < c.n_in


@pytest.mark.parametrize(("name", "params"), COMPRESSIBLE, ids=COMPRESSIBLE_IDS)
def test_gpu_keys_compress_exactly_through_the_emulated_pipeline(rng, name, params):
    """The GPU chain's key (pad, wrapped v, fused pruner rule) on the CUDA pipeline's twin."""
    u, v, vis = duplicated(rng)
    chain = chain_of(name, params)
    layout, _ = plan_layout(chain, KernelConfig())
    c = compress(u, v, vis, key_from_chain(chain, layout.pad))
    ref = emulate_dirty(u, v, vis, chain, layout)
    assert rel(emulate_dirty(c.u, c.v, c.wvis, chain, layout), ref) <= 1e-12
    # The NumPy chain's key finds the same cells.
    assert c.n_out == compress(u, v, vis, key_from_plans(*axis_plans(name, SPEC, params))).n_out


@pytest.mark.parametrize("name", ["nn-oversampled", "hybrid", "pruned-nn"])
def test_error_against_the_dft_is_unchanged_on_meerkat(name):
    u, v, _ = layout_uv(n_times=16)
    spec = meerkat_spec(u, v, 64)
    vis = sky_vis(u, v, spec, PIXEL_SKY)
    ref = dft_image(u, v, vis, spec)
    params = GridParams.muscat(16)
    fn = get_gridder(name)
    plain = fn(u, v, vis, spec, params)
    comp = fn(u, v, vis, spec, params.with_(compress=True))
    assert rel(comp, plain) <= 1e-12
    e0, e1 = error_map(plain, ref)[1], error_map(comp, ref)[1]
    for metric in ("rms_central", "rms_full", "max_error"):
        assert e1[metric] == pytest.approx(e0[metric], rel=1e-9, abs=1e-14)


def test_compression_ratio_of_known_duplicates():
    """Cells are counted once however their records arrive (duplicates, mirrors, offsets)."""
    spec = ImageSpec(16, 1e-2)
    params = GridParams(oversample=4)
    plan_u, plan_v = axis_plans("nn-oversampled", spec, params)
    key = key_from_plans(plan_u, plan_v)
    cell = 1.0 / (plan_u.n_grid * spec.cell_rad)  # wavelengths per fine cell
    rng = np.random.default_rng(5)
    flat = rng.choice(30 * 60, 40, replace=False)  # 40 distinct half-plane cells
    ku, kv = 1 + flat // 60, flat % 60 - 30
    reps = rng.integers(1, 6, 40)  # records per cell
    cu, cv = np.repeat(ku, reps), np.repeat(kv, reps)
    off_u = rng.uniform(-0.45, 0.45, cu.size)
    off_v = rng.uniform(-0.45, 0.45, cu.size)
    u = (cu + off_u) * cell
    v = (cv + off_v) * cell
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    mirror = rng.random(u.size) < 0.5  # the same record, stored as its Hermitian twin
    u, v, vis = np.where(mirror, -u, u), np.where(mirror, -v, v), np.where(mirror, vis.conj(), vis)
    c = compress(u, v, vis, key)
    assert (c.n_in, c.n_out) == (reps.sum(), 40)
    assert c.ratio == pytest.approx(reps.sum() / 40)
    # Each cell's sum, in the half plane (the v cell is −kv mod Mv: ξv = −v·scale).
    expect = {
        (a, -b % plan_v.n_grid): s
        for a, b, s in zip(
            ku, kv, np.add.reduceat(np.where(mirror, vis.conj(), vis), np.cumsum(reps) - reps)
        )
    }
    got_u = np.rint(c.u / cell).astype(int)
    got_v = np.rint(-c.v / cell).astype(int)
    for a, b, s in zip(got_u, got_v, c.wvis, strict=True):
        assert s == pytest.approx(expect[(a, b)], rel=1e-12)


def test_hybrid_exact_u_merges_only_identical_u():
    spec = ImageSpec(16, 1e-2)
    params = GridParams.from_eps(1e-5, oversample=8)
    key = key_from_plans(*axis_plans("hybrid", spec, params))
    assert key.units_u == 0
    u = np.array([3.0, 3.0, 3.0 + 1e-12, -3.0, 5.0])
    v = np.array([1.0, 1.0 + 1e-6, 1.0, -1.0, 1.0])
    c = compress(u, v, np.ones(5, complex), key)
    assert c.n_out == 4  # {3, 3}, {3 + 1e-12}, {−3} (u as stored), {5}


def test_segment_sum_matches_a_loop():
    rng = np.random.default_rng(2)
    vis = rng.normal(size=50) + 1j * rng.normal(size=50)
    order = rng.permutation(50)
    starts = np.array([0, 3, 4, 20, 49])
    got = segment_sum(vis, order, starts)
    ends = [*starts[1:], 50]
    want = [vis[order[a:b]].sum() for a, b in zip(starts, ends, strict=True)]
    assert np.allclose(got, want, rtol=1e-14, atol=0)


def test_zero_records_are_dropped_and_empty_input_is_fine():
    key = key_from_plans(*axis_plans("nn", SPEC, GridParams()))
    c = compress(np.array([1.0, 2.0]), np.array([0.0, 0.0]), np.zeros(2, complex), key)
    assert (c.n_in, c.n_out) == (0, 0)
    img = get_gridder("nn")(
        np.zeros(3), np.zeros(3), np.zeros(3, complex), SPEC, GridParams(compress=True)
    )
    assert not img.any()


def test_grid_params_validation():
    assert GridParams(compress=True).compress
    with pytest.raises(ValueError, match="compress"):
        GridParams(compress=1)
    with pytest.raises(ValueError, match="compress"):
        GridParams(compress=True, wstack=True)
    u, v, vis = edge_records(np.random.default_rng(0))
    with pytest.raises(ValueError, match="nearest-cell"):
        get_gridder("ducc")(u, v, vis, SPEC, GridParams(compress=True))
    for params in (
        GridParams(compress=True),
        GridParams.from_eps(1e-4, compress=True),
    ):
        with pytest.raises(ValueError, match="nearest-cell"):
            get_gridder("conv")(u, v, vis, SPEC, params)


def test_catalogue_offers_compress_exactly_where_there_is_a_nearest_cell_axis():
    offered = {n for n, a in CATALOGUE.items() if "compress" in a.uses}
    assert offered == {"nn", "nn-oversampled", "hybrid", "pruned-nn"}
