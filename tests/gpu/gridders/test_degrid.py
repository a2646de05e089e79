"""Degridding on the CPU: against the direct DFT predict, and as the gridders' exact adjoint.

- accuracy: the NumPy conv chain (exact ES, tables read by nearest and linear
  lookup) and ducc0's NUFFT and w-gridder against :func:`tests.support.oracles.image_vis`;
- adjointness: ``⟨G x, y⟩ = Re vdot(Gᴴ y, x)`` to 1e-12 relative in float64 for
  conv (numpy engine: exact and table, nearest and linear lookup), nn /
  nn-oversampled and the pruned hybrid / pruned-nn, on records that include the
  grid's edges and wraps;
- the CUDA degridder's NumPy twin (:func:`emulate_predict`) against the NumPy chain.
"""

import numpy as np
import pytest

from tests.support.degridding import ADJOINT_CASES, ADJOINT_IDS, GPU_CASES, GPU_IDS, SPEC, rel
from tests.support.gridding import edge_records
from tests.support.oracles import dft_image, image_vis
from uvlab.gpu import ducc_engine
from uvlab.gpu.degridding import degrid
from uvlab.gpu.gridders.cuda_rules import gpu_chain
from uvlab.gpu.gridders.degrid import predict_conv
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import DEGRIDDERS, NAMES, axis_plans, get_gridder
from uvlab.gpu.image_spec import ImageSpec


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(15)
    u, v, _ = edge_records(rng, 1500, SPEC)
    img = rng.normal(size=(SPEC.npix, SPEC.npix))
    return u, v, img, image_vis(img, u, v, SPEC)


@pytest.mark.parametrize("eps", [1e-4, 1e-6, 1e-9])
def test_conv_exact_es_meets_eps(data, eps):
    u, v, img, ref = data
    vis = predict_conv(img, u, v, SPEC, GridParams.from_eps(eps))
    assert rel(vis, ref) < 3 * eps


@pytest.mark.parametrize(
    ("lookup", "beta", "tol"),
    [("nearest", 16, 0.05), ("nearest", 256, 3e-3), ("linear", 16, 2e-3), ("linear", 256, 1e-5)],
)
def test_conv_tables_converge_with_beta(data, lookup, beta, tol):
    """Nearest lookup errs ∝ 1/β, linear interpolation ∝ 1/β² (S = 8, ES)."""
    u, v, img, ref = data
    params = GridParams(support=8, oversample=beta, lookup=lookup)
    assert rel(predict_conv(img, u, v, SPEC, params), ref) < tol


def test_complex_image_is_its_two_parts(data):
    u, v, img, ref = data
    img2 = np.roll(img, 5, axis=1)
    both = img + 1j * img2
    vis = predict_conv(both, u, v, SPEC, GridParams.from_eps(1e-8))
    assert rel(vis, ref + 1j * image_vis(img2, u, v, SPEC)) < 3e-8


@pytest.mark.parametrize(("name", "params"), ADJOINT_CASES, ids=ADJOINT_IDS)
def test_degridder_is_the_gridders_adjoint(data, name, params):
    u, v, img, _ = data
    rng = np.random.default_rng(3)
    x = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    gx = get_gridder(name)(u, v, x, SPEC, params)
    gy = degrid(img, u, v, SPEC, name, params)
    lhs = float(np.vdot(gx.ravel(), img.ravel()).real)
    rhs = float(np.vdot(gy, x).real)
    assert abs(lhs - rhs) <= 1e-12 * np.linalg.norm(gx) * np.linalg.norm(img)


@pytest.mark.parametrize(("name", "params"), GPU_CASES, ids=GPU_IDS)
def test_cuda_twin_equals_the_numpy_chain(data, name, params):
    from uvlab.gpu.gridders.cuda_degrid import emulate_predict

    u, v, img, _ = data
    chain = gpu_chain(axis_plans(name, SPEC, params), SPEC, params)
    want = degrid(img, u, v, SPEC, name, params)
    assert rel(emulate_predict(img, u, v, chain), want) < 1e-12


@pytest.mark.skipif(not ducc_engine.available(), reason="ducc0 not installed")
@pytest.mark.parametrize("eps", [1e-5, 1e-9])
def test_ducc_nufft_meets_eps(data, eps):
    u, v, img, ref = data
    vis = degrid(img, u, v, SPEC, "ducc", GridParams.from_eps(eps))
    assert rel(vis, ref) < eps


@pytest.mark.skipif(not ducc_engine.available(), reason="ducc0 not installed")
def test_ducc_dirty2vis_with_the_w_term():
    rng = np.random.default_rng(8)
    spec = ImageSpec(64, 4e-3)  # a wide field: w·(n − 1) reaches ~1 turn
    u, v = rng.uniform(-100, 100, (2, 400))
    w = rng.uniform(-300, 300, 400)
    img = np.zeros((64, 64))
    img[rng.integers(0, 64, 12), rng.integers(0, 64, 12)] = rng.normal(size=12)
    params = GridParams.from_eps(1e-7, wstack=True)
    vis = degrid(img, u, v, spec, "ducc", params, w=w)
    assert rel(vis, image_vis(img, u, v, spec, w=w)) < 1e-6
    flat = degrid(img, u, v, spec, "ducc", params)  # no w given: flat sky
    assert rel(flat, image_vis(img, u, v, spec)) < 1e-6
    assert ducc_engine.predict_image(img, u, v, spec.cell_rad, 1e-7).dtype == np.complex128


def test_registry_names_the_degridders(data):
    """Every algorithm of the catalogue has one (so Cotton–Schwab runs with each)."""
    assert DEGRIDDERS == NAMES
    u, v, img, ref = data
    assert rel(degrid(img, u[:200], v[:200], SPEC, "dft"), ref[:200]) < 1e-12
    with pytest.raises(ValueError, match="unknown algorithm"):
        degrid(img, u, v, SPEC, "nope")


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("hybrid", GridParams.from_eps(1e-6, oversample=16)),
        ("hybrid", GridParams.from_eps(1e-6, oversample=64)),
        ("pruned-nn", GridParams(oversample=16)),
        ("pruned-nn", GridParams(oversample=64)),
    ],
    ids=["hybrid-16", "hybrid-64", "pruned-nn-16", "pruned-nn-64"],
)
def test_pruned_degridders_are_as_accurate_as_their_gridders(data, name, params):
    """‖error‖ / ‖V‖ against the direct predict, the gridder's against the direct image.

    Measured (degridder, gridder): hybrid β = 16 3.3e-2, 3.1e-2; β = 64 8.2e-3, 8.2e-3;
    pruned-nn β = 16 4.6e-2, 4.3e-2; β = 64 1.14e-2, 1.08e-2 — the nearest-cell axes'
    π/(6β) phase error.
    """
    u, v, img, ref = data
    x = np.random.default_rng(4).normal(size=u.size) * (1 + 1j)
    grid_err = rel(get_gridder(name)(u, v, x, SPEC, params), dft_image(u, v, x, SPEC))
    deg_err = rel(degrid(img, u, v, SPEC, name, params), ref)
    assert deg_err <= 1.2 * grid_err and deg_err < 3.0 / params.oversample
