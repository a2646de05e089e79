"""The CUDA degridder against its NumPy twin, the NumPy chain and the direct DFT (GPU only).

Tolerances: float64 1e-12 relative to the visibilities' norm against the twin,
float32 1e-5.
"""

import numpy as np
import pytest

from tests.support.degridding import GPU_CASES, GPU_IDS, SPEC, rel
from tests.support.gridding import edge_records
from tests.support.oracles import image_vis
from uvlab.gpu.degridding import degrid
from uvlab.gpu.gridders.cuda_degrid import emulate_predict
from uvlab.gpu.gridders.cuda_rules import gpu_chain
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import axis_plans
from uvlab.gpu.timing import StageTimer

pytestmark = pytest.mark.gpu

TOL = {"double": 1e-12, "single": 1e-5}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(16)
    u, v, _ = edge_records(rng, 3000, SPEC)
    img = rng.normal(size=(SPEC.npix, SPEC.npix))
    return u, v, img


@pytest.mark.parametrize("precision", ["double", "single"])
@pytest.mark.parametrize(("name", "params"), GPU_CASES, ids=GPU_IDS)
def test_cuda_matches_twin_and_numpy(data, name, params, precision):
    import cupy

    u, v, img = data
    params = params.with_(precision=precision)
    chain = gpu_chain(axis_plans(name, SPEC, params), SPEC, params)
    timer = StageTimer(gpu=True)
    got = degrid(
        cupy.asarray(img), cupy.asarray(u), cupy.asarray(v), SPEC, name, params, timer=timer
    )
    assert isinstance(got, cupy.ndarray)
    assert got.dtype == (np.complex64 if precision == "single" else np.complex128)
    got = cupy.asnumpy(got).astype(np.complex128)
    assert rel(got, emulate_predict(img, u, v, chain)) < TOL[precision]
    assert rel(got, degrid(img, u, v, SPEC, name, params)) < TOL[precision]
    assert {"correct", "FFT", "grid"} <= set(timer.seconds())


@pytest.mark.parametrize(("eps", "precision"), [(1e-5, "single"), (1e-9, "double")])
def test_cuda_conv_meets_eps(data, eps, precision):
    import cupy

    u, v, img = data
    params = GridParams.from_eps(eps, precision=precision)
    vis = degrid(cupy.asarray(img), cupy.asarray(u), cupy.asarray(v), SPEC, "conv", params)
    assert rel(cupy.asnumpy(vis), image_vis(img, u, v, SPEC)) < 3 * eps


def test_complex_image_and_host_fallback(data):
    import cupy

    u, v, img = data
    both = img + 1j * np.roll(img, 3, axis=0)
    params = GridParams.from_eps(1e-8)
    got = degrid(cupy.asarray(both), cupy.asarray(u), cupy.asarray(v), SPEC, "conv", params)
    assert rel(cupy.asnumpy(got), degrid(both, u, v, SPEC, "conv", params)) < 1e-12
    kb = GridParams(kernel="kb", support=6, exact=True)  # no CUDA rule: host
    got = degrid(cupy.asarray(img), cupy.asarray(u), cupy.asarray(v), SPEC, "conv", kb)
    assert isinstance(got, cupy.ndarray)
    assert rel(cupy.asnumpy(got), degrid(img, u, v, SPEC, "conv", kb)) < 1e-12


@pytest.mark.parametrize("name", ["hybrid", "pruned-nn"])
def test_pruned_chains_degrid_on_the_host(data, name):
    """hybrid and pruned-nn have no CUDA degridder: the host's, copied to the device."""
    import cupy

    u, v, img = data
    params = GridParams(oversample=8)
    got = degrid(cupy.asarray(img), cupy.asarray(u), cupy.asarray(v), SPEC, name, params)
    assert isinstance(got, cupy.ndarray) and got.dtype == np.complex128
    np.testing.assert_array_equal(cupy.asnumpy(got), degrid(img, u, v, SPEC, name, params))
