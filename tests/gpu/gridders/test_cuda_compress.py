"""Full compression on the GPU: the segment-sum kernel and the CUDA gridders.

Every test needs a CUDA device (``gpu`` marker). The CuPy compression is
checked against its NumPy twin (same cells, same sums), and the compressed
CUDA image against the uncompressed one (1e-12 of the peak in float64) and
against the NumPy gridder.
"""

import numpy as np
import pytest

from tests.support.gridding import CASES, IDS, SPEC, amplification, chain_of, duplicated
from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import PIXEL_SKY, layout_uv, meerkat_spec
from uvlab.gpu.aliasing import error_map
from uvlab.gpu.gridders.compress import compress, key_from_chain, segment_sum
from uvlab.gpu.gridders.cuda_grid import KernelConfig, plan_layout
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import get_gridder
from uvlab.gpu.timing import StageTimer

pytestmark = pytest.mark.gpu

COMPRESSIBLE = [(n, p) for n, p in CASES if n != "conv"]
COMPRESSIBLE_IDS = [i for (n, _), i in zip(CASES, IDS, strict=True) if n != "conv"]


def rel(a, b) -> float:
    import cupy

    a = cupy.asnumpy(a).astype(np.float64) if isinstance(a, cupy.ndarray) else a
    b = cupy.asnumpy(b).astype(np.float64) if isinstance(b, cupy.ndarray) else b
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_segment_sum_kernel_equals_numpy_twin():
    import cupy

    rng = np.random.default_rng(4)
    n = 100_000
    vis = rng.normal(size=n) + 1j * rng.normal(size=n)
    order = rng.permutation(n).astype(np.int64)
    starts = np.unique(np.concatenate([[0], rng.integers(1, n, 20_000)])).astype(np.int64)
    want = segment_sum(vis, order, starts)
    got = segment_sum(cupy.asarray(vis), cupy.asarray(order), cupy.asarray(starts), cupy)
    assert np.allclose(cupy.asnumpy(got), want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize(("name", "params"), COMPRESSIBLE, ids=COMPRESSIBLE_IDS)
def test_cupy_compression_equals_numpy_twin(rng, name, params):
    import cupy

    u, v, vis = duplicated(rng)
    chain = chain_of(name, params)
    layout, _ = plan_layout(chain, KernelConfig())
    key = key_from_chain(chain, layout.pad)
    ref = compress(u, v, vis, key)
    got = compress(cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), key)
    assert (got.n_in, got.n_out) == (ref.n_in, ref.n_out)
    # Both sort by the same keys: the same cells in the same order.
    assert np.array_equal(cupy.asnumpy(got.u), ref.u)
    assert np.array_equal(cupy.asnumpy(got.v), ref.v)
    assert np.allclose(cupy.asnumpy(got.wvis), ref.wvis, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("precision", ["double", "single"])
@pytest.mark.parametrize(("name", "params"), COMPRESSIBLE, ids=COMPRESSIBLE_IDS)
def test_compressed_cuda_image_equals_uncompressed_and_numpy(rng, name, params, precision):
    import cupy

    u, v, vis = duplicated(rng)
    fn = get_gridder(name, xp=cupy)
    args = (cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), SPEC)
    p = params.with_(precision=precision)
    plain = fn(*args, p)
    timer = StageTimer(gpu=True)
    comp = fn(*args, p.with_(compress=True), timer=timer)
    assert "compress" in timer.seconds()
    host = get_gridder(name)(u, v, vis, SPEC, params.with_(compress=True))
    if precision == "double":
        assert rel(comp, plain) <= 1e-12
        assert rel(comp, host) <= 1e-10
    else:  # float32 records: the compressed sums are rounded once, not per record
        tol = 1e-5 * amplification(name, params)
        assert rel(comp, plain) <= tol
        assert rel(comp, host) <= tol


@pytest.mark.parametrize("name", ["nn-oversampled", "hybrid", "pruned-nn"])
def test_cuda_error_against_the_dft_is_unchanged(name):
    import cupy

    u, v, _ = layout_uv(n_times=16)
    spec = meerkat_spec(u, v, 64)
    vis = sky_vis(u, v, spec, PIXEL_SKY)
    ref = dft_image(u, v, vis, spec)
    params = GridParams.muscat(16)
    fn = get_gridder(name, xp=cupy)
    args = (cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), spec)
    plain = cupy.asnumpy(fn(*args, params))
    comp = cupy.asnumpy(fn(*args, params.with_(compress=True)))
    assert rel(comp, plain) <= 1e-12
    e0, e1 = error_map(plain, ref)[1], error_map(comp, ref)[1]
    assert e1["rms_full"] == pytest.approx(e0["rms_full"], rel=1e-9)


def test_cuda_conv_refuses_compress():
    import cupy

    u, v, vis = duplicated(np.random.default_rng(0))
    fn = get_gridder("conv", xp=cupy)
    with pytest.raises(ValueError, match="nearest-cell"):
        fn(cupy.asarray(u), cupy.asarray(v), cupy.asarray(vis), SPEC, GridParams(compress=True))
