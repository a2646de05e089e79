"""The CUDA gridders against their NumPy twins, the direct DFT and the emulated pipeline.

Every test needs a CUDA device (``gpu`` marker). Tolerances: float64 ~1e-10
relative to the peak, float32 ~1e-5 of the peak.
"""

import numpy as np
import pytest

from tests.support.gridding import (
    CASES,
    IDS,
    SMALL,
    SPEC,
    amplification,
    chain_of,
    edge_records,
)
from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.aliasing import error_map
from uvlab.gpu.gridders.cuda_binning import bin_records, bin_reference
from uvlab.gpu.gridders.cuda_grid import plan_layout
from uvlab.gpu.gridders.cuda_gridders import dirty_gpu
from uvlab.gpu.gridders.cuda_post import prune_rows, prune_rows_reference
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruning import make_pruner
from uvlab.gpu.gridders.registry import algorithm, get_gridder
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.timing import StageTimer

pytestmark = pytest.mark.gpu

TOL = {"double": 1e-10, "single": 1e-5}


def peak_error(img, ref) -> float:
    import cupy

    return float(np.abs(cupy.asnumpy(img).astype(np.float64) - ref).max() / np.abs(ref).max())


@pytest.fixture(scope="module")
def meerkat():
    u, v, _ = layout_uv(n_times=24)
    spec = meerkat_spec(u, v, 128)
    sky = [(0, 0, 1.0), (17, -40, 0.5), (-50, 33, 0.3), (150, 20, 2.0), (-10, -140, 2.0)]
    vis = sky_vis(u, v, spec, sky) + 0.1 * np.random.default_rng(3).normal(size=u.size)
    return u, v, vis, spec


@pytest.mark.parametrize("precision", ["double", "single"])
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_cuda_gridder_equals_numpy_twin(rng, name, params, precision):
    import cupy

    u, v, vis = edge_records(rng)
    ref = get_gridder(name)(u, v, vis, SPEC, params)
    fn = get_gridder(name, xp=cupy)
    img = fn(
        cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), SPEC, params.with_(precision=precision)
    )
    assert isinstance(img, cupy.ndarray) and img.shape == (32, 32)
    assert img.dtype == (np.float32 if precision == "single" else np.float64)
    assert peak_error(img, ref) <= TOL[precision] * amplification(name, params)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_small_tiles_and_many_subproblems_agree(rng, name, params):
    import cupy

    u, v, vis = edge_records(rng)
    # Many records in a few cells: long register runs, split tiles, shared cells.
    u[-400:], v[-400:] = u[-1], v[-1]
    ref = get_gridder(name)(u, v, vis, SPEC, params)
    args = (cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), SPEC, params)
    img = dirty_gpu(algorithm(name), *args, config=SMALL)
    assert peak_error(img, ref) <= 1e-10


@pytest.mark.parametrize(
    "params",
    [
        GridParams.from_eps(1e-6, oversample=16),
        GridParams(support=6, oversample=32, lookup="linear"),
    ],
    ids=["es-exact", "es-linear"],
)
@pytest.mark.parametrize("name", ["conv", "hybrid"])
def test_meerkat_image_equals_numpy_twin(meerkat, name, params):
    import cupy

    u, v, vis, spec = meerkat
    ref = get_gridder(name)(u, v, vis, spec, params)
    dev = [cupy.asarray(a) for a in (u, v, vis)]
    assert peak_error(get_gridder(name, xp=cupy)(*dev, spec, params), ref) <= 1e-10
    single = params.with_(precision="single")
    assert peak_error(get_gridder(name, xp=cupy)(*dev, spec, single), ref) <= 1e-5


def test_conv_es_1e6_matches_dft_over_central_half(meerkat):
    import cupy

    u, v, vis, spec = meerkat
    ref = dft_image(u, v, vis, spec)
    img = get_gridder("conv", xp=cupy)(
        cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), spec, GridParams.from_eps(1e-6)
    )
    _, met = error_map(cupy.asnumpy(img), ref)
    assert met["rms_central"] <= 1e-5
    assert met["max_error"] <= 1e-4


@pytest.mark.parametrize("precision", ["double", "single"])
def test_conv_linear_lookup_on_the_gpu_is_close_to_exact_es(meerkat, precision):
    """Against the DFT: linear lookup at β = 32 near exact ES, far below nearest lookup."""
    import cupy

    u, v, vis, spec = meerkat
    ref = dft_image(u, v, vis, spec)
    dev = [cupy.asarray(a) for a in (u, v, vis)]
    base = GridParams(support=6, oversample=32, precision=precision)
    conv = get_gridder("conv", xp=cupy)

    def err(p):
        return error_map(cupy.asnumpy(conv(*dev, spec, p)), ref)[1]["rms_full"]

    exact, linear = err(base.with_(exact=True)), err(base.with_(lookup="linear"))
    assert linear < err(base) / 30
    assert linear < 10 * exact + 1e-6


def test_bin_kernels_match_reference(rng):
    import cupy

    u, v, vis = edge_records(rng)
    chain = chain_of("conv", GridParams.from_eps(1e-5))
    layout, _ = plan_layout(chain, SMALL)
    ref = bin_reference(u, v, vis, chain, layout)
    recs, counts, offsets = bin_records(
        cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), chain, layout, np.float64
    )
    counts, offsets, recs = (cupy.asnumpy(a) for a in (counts, offsets, recs))
    assert np.array_equal(counts, np.bincount(ref["key"], minlength=layout.nkeys))
    got = recs[: counts.sum()]
    want = np.stack([ref["pu"], ref["pv"], ref["vis"].real, ref["vis"].imag], axis=1)
    order = np.argsort(ref["key"], kind="stable")
    for key in np.unique(ref["key"])[:50]:
        sl = slice(offsets[key], offsets[key] + counts[key])
        a = got[sl][np.lexsort(got[sl].T)]
        w = want[order][ref["key"][order] == key]
        assert np.array_equal(a, w[np.lexsort(w.T)])


@pytest.mark.parametrize("precision", ["double", "single"])
def test_prune_kernel_matches_pruner(rng, precision):
    import cupy

    pruner = make_pruner("lm", 14, 8, x0=0.25)
    grid = rng.normal(size=(8 * 64, 45)) + 1j * rng.normal(size=(8 * 64, 45))
    dt = np.complex64 if precision == "single" else np.complex128
    out = cupy.asnumpy(prune_rows(cupy.asarray(grid, dtype=dt), pruner))
    ref = prune_rows_reference(grid, pruner)
    assert np.abs(out - ref).max() <= TOL[precision] * np.abs(ref).max()
    odd = make_pruner("lm", 6, 3, x0=0.25)  # α without a compiled-in template
    ref = odd.apply(grid[: 3 * 100], axis=0)
    out = cupy.asnumpy(prune_rows(cupy.asarray(grid[: 3 * 100]), odd))
    assert np.abs(out - ref).max() <= 1e-10 * np.abs(ref).max()


def test_stages_are_timed_on_the_device(rng):
    import cupy

    u, v, vis = edge_records(rng)
    timer = StageTimer(gpu=True)
    args = (cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), SPEC)
    dirty_gpu(algorithm("hybrid"), *args, GridParams(oversample=8), timer=timer)
    assert {"sort / bin", "grid", "prune", "FFT", "correct"} <= set(timer.seconds())


def test_host_fallback_returns_a_device_array(rng):
    import cupy

    u, v, vis = edge_records(rng, n=300)
    params = GridParams(kernel="kb", support=6, exact=True)
    ref = get_gridder("conv")(u, v, vis, SPEC, params)
    img = get_gridder("conv", xp=cupy)(
        cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), SPEC, params
    )
    assert isinstance(img, cupy.ndarray)
    assert peak_error(img, ref) <= 1e-12


def test_no_records_give_a_zero_image():
    import cupy

    z = cupy.zeros(5)
    img = dirty_gpu(
        algorithm("conv"), z, z, cupy.zeros(5, complex), SPEC, GridParams.from_eps(1e-5)
    )
    assert float(cupy.abs(img).max()) == 0.0


@pytest.mark.parametrize("algorithm", ["conv", "hybrid", "pruned-nn", "nn"])
def test_imager_gpu_path_equals_cpu_path(meerkat, algorithm):
    u, v, vis, spec = meerkat
    nrow = u.size // 2
    freq = np.array([1.4e9, 1.5e9])
    uvw = np.stack([u[:nrow], v[:nrow], np.zeros(nrow)], 1) * (299792458.0 / 1.4e9)
    data = np.stack([vis[:nrow], vis[nrow : 2 * nrow]], axis=1)
    weight = np.random.default_rng(5).uniform(0.5, 2.0, data.shape)
    params = GridParams.from_eps(1e-6, oversample=8)
    kw = dict(algorithm=algorithm, params=params)
    cpu = make_image(uvw, freq, data, weight, spec, device="cpu", **kw)
    gpu = make_image(uvw, freq, data, weight, spec, device="gpu", **kw)
    assert gpu.device == "gpu" and gpu.nvis == cpu.nvis
    assert gpu.sum_weights == pytest.approx(cpu.sum_weights, rel=1e-12)
    for a, b in ((gpu.dirty, cpu.dirty), (gpu.psf, cpu.psf)):
        assert np.abs(a - b).max() <= 1e-10 * np.abs(b).max()
    assert {"host→device", "weighting", "grid", "FFT", "device→host"} <= set(gpu.timing)
