"""W-stacking around every gridder (gpu/gridders/wstack.py), gridding and degridding.

Oracles: the float64 direct sum with the w-term (tests/support/oracles.py) and the
adjointness of the w-stacked gridder and degridder, ``Re⟨G(V), x⟩ = Re⟨V, D(x)⟩``.
Each algorithm is held to its own accuracy without the w-term: w-stacking should
add to it only the w kernel's error (ε ≈ 1e-6 at the supports used here).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.degridding import rel
from tests.support.oracles import dft_pixels, image_vis
from tests.support.scenes import layout_uv
from uvlab.gpu import ducc_engine
from uvlab.gpu.degridding import degrid
from uvlab.gpu.gridders.conv import dirty
from uvlab.gpu.gridders.degrid import predict_conv
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import ALGORITHMS, CATALOGUE, get_gridder
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

SPEC = ImageSpec(48, 90.0 * ARCSEC)  # a 1.2° field: w·(n − 1) of several radians
#: A VLA-C-like wide field: 256² of 20″ (1.4°).
WIDE = ImageSpec(256, 20.0 * ARCSEC)
#: The source, 100 and −90 pixels off the centre (0.75° out): w·(n − 1) up to 7.2 rad.
SOURCE = (WIDE.npix // 2 + 100, WIDE.npix // 2 - 90)
#: Each algorithm's parameters (wstack added by the tests).
PARAMS = {
    "conv": GridParams.from_eps(1e-6),
    "ducc": GridParams.from_eps(1e-6),
    "nn": GridParams(),
    "nn-oversampled": GridParams(oversample=4),
    "hybrid": GridParams.from_eps(1e-6, oversample=8),
    "pruned-nn": GridParams(oversample=4),
}
#: The uvlab-side w-stacking (ducc has its own w-gridder).
WSTACKED = [n for n in ALGORITHMS if CATALOGUE[n].w_correction == "wstack"]


def needs(name):
    marks = [pytest.mark.skipif(not ducc_engine.available(), reason="ducc0 not installed")]
    return pytest.param(name, marks=marks if name == "ducc" else ())


def samples(seed=1, n=400):
    rng = np.random.default_rng(seed)
    return rng.normal(0, 600, n), rng.normal(0, 600, n), rng.normal(0, 6000, n)


@pytest.fixture(scope="module")
def far_source():
    """VLA-C at 1.4 GHz (2106 records, |w| ≤ 1.35e4 λ), one 1 Jy source on SOURCE.

    The oracle is computed on every 8th row and column plus a 25² window around
    the source: ``rows``, ``cols`` index the (256, 256) images.
    """
    u, v, w = layout_uv("vla.c", n_times=6, hours=6.0, dec_deg=20.0, lat_deg=34.08)
    j, i = SOURCE
    l, m = WIDE.l_axis()[i], WIDE.m_axis()[j]
    vis_flat = np.exp(2j * np.pi * (u * l + v * m))
    vis_w = vis_flat * np.exp(2j * np.pi * w * (np.sqrt(1 - l * l - m * m) - 1))
    rows = np.union1d(np.arange(0, WIDE.npix, 8), np.arange(j - 12, j + 13))
    cols = np.union1d(np.arange(0, WIDE.npix, 8), np.arange(i - 12, i + 13))
    ref_w = dft_pixels(u, v, vis_w, WIDE, rows, cols, w=w)
    ref_flat = dft_pixels(u, v, vis_flat, WIDE, rows, cols)
    return u, v, w, vis_w, vis_flat, np.ix_(rows, cols), ref_w, ref_flat


@pytest.mark.parametrize("name", [needs(n) for n in ALGORITHMS])
def test_every_algorithm_w_corrected_is_the_direct_sum_with_the_w_term(far_source, name):
    """Max error over the oracle's pixels, in units of the peak (measured, flat → w-corrected).

    conv 1.26e-7 → 1.33e-7; ducc 5.5e-9 → 1.0e-8 (its w-gridder); nn 0.387 → 0.387
    (raw aliasing); nn-oversampled and pruned-nn (β = 4) 1.47e-2 → 1.52e-2; hybrid
    (β = 8) 5.1e-3 → 5.9e-3. Without the correction every one is off by 0.77–0.85.
    """
    u, v, w, vis_w, vis_flat, pix, ref_w, ref_flat = far_source
    params, grid, peak = PARAMS[name], get_gridder(name), float(u.size)
    own = np.abs(grid(u, v, vis_flat, WIDE, params)[pix] - ref_flat).max() / peak
    got = grid(u, v, vis_w, WIDE, params.with_(wstack=True), w=w)[pix]
    err = np.abs(got - ref_w).max() / peak
    assert err <= 1.5 * own + 1e-6, (err, own)
    smeared = np.abs(grid(u, v, vis_w, WIDE, params)[pix] - ref_w).max() / peak
    assert smeared > 0.5  # the w-term matters here: the test can fail


@pytest.mark.parametrize("name", WSTACKED)
def test_the_w_stacked_pair_is_an_exact_adjoint(name):
    """``Re⟨G x, y⟩ = Re⟨x, Gᴴ y⟩`` with the w-term: 1e-17 relative measured for each."""
    u, v, w = samples(2)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(SPEC.npix, SPEC.npix))
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    params = PARAMS[name].with_(wstack=True)
    gx = get_gridder(name)(u, v, vis, SPEC, params, w=w)
    lhs = np.vdot(gx, x).real
    rhs = np.vdot(vis, degrid(x, u, v, SPEC, name, params, w=w)).real
    assert abs(lhs - rhs) <= 1e-10 * np.linalg.norm(gx) * np.linalg.norm(x)


@pytest.mark.parametrize("name", [needs(n) for n in ALGORITHMS])
def test_every_degridder_with_w_is_the_direct_predict(name):
    """‖error‖ / ‖V‖ (measured, flat → with w; sources near the edge, as in test_degrid).

    conv 1.6e-6 → 1.7e-6; nn 0.86 → 0.88; nn-oversampled and pruned-nn (β = 4)
    0.242 → 0.245; hybrid 0.096 → 0.095; ducc 1.0e-7 → 6.4e-8. Without w: 1.3.
    """
    u, v, w = samples()
    img = np.zeros((SPEC.npix, SPEC.npix))
    img[3, 7], img[40, 30], img[24, 24] = 1.0, 0.5, 0.2
    params = PARAMS[name]
    flat_want, want = image_vis(img, u, v, SPEC), image_vis(img, u, v, SPEC, w=w)
    flat = degrid(img, u, v, SPEC, name, params)
    own = rel(flat, flat_want)
    got = degrid(img, u, v, SPEC, name, params.with_(wstack=True), w=w)
    assert rel(got, want) <= 1.2 * own + 1e-6, (rel(got, want), own)
    assert rel(flat, want) > 1.0  # the w-term matters here: the test can fail


@pytest.mark.parametrize("kernel", ["es", "kb"])
def test_the_w_stacked_degridder_is_the_direct_sum_with_the_w_term(kernel):
    u, v, w = samples()
    img = np.zeros((SPEC.npix, SPEC.npix))
    img[3, 7], img[40, 30], img[24, 24] = 1.0, 0.5, 0.2
    params = GridParams(kernel=kernel, support=8, exact=True, wstack=True)
    want = image_vis(img, u, v, SPEC, w=w)
    got = predict_conv(img, u, v, SPEC, params, w=w)
    assert np.abs(got - want).max() <= 1e-5 * np.abs(want).max()
    flat = predict_conv(img, u, v, SPEC, params)  # without w: far off (the test can fail)
    assert np.abs(flat - want).max() > 0.1 * np.abs(want).max()


def test_a_complex_image_is_its_two_parts():
    u, v, w = samples(4)
    rng = np.random.default_rng(5)
    re, im = rng.normal(size=(2, SPEC.npix, SPEC.npix))
    params = GridParams.from_eps(1e-8, wstack=True)
    both = predict_conv(re + 1j * im, u, v, SPEC, params, w=w)
    want = image_vis(re, u, v, SPEC, w=w) + 1j * image_vis(im, u, v, SPEC, w=w)
    assert np.abs(both - want).max() <= 1e-6 * np.abs(want).max()


def test_it_is_the_adjoint_of_the_w_stacked_gridder():
    u, v, w = samples(2)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(SPEC.npix, SPEC.npix))
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    params = GridParams.from_eps(1e-8, wstack=True)
    lhs = np.vdot(dirty(u, v, vis, SPEC, params, w=w), x).real
    rhs = np.vdot(vis, predict_conv(x, u, v, SPEC, params, w=w)).real
    assert lhs == pytest.approx(rhs, rel=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["double", "single"])
@pytest.mark.parametrize("name", WSTACKED)
def test_with_cupy_inputs_the_host_w_stacking_runs_and_comes_back(name, precision):
    """Every CUDA gridder and degridder hands w-stacking to the host function: same numbers."""
    import cupy

    u, v, w = samples(6)
    rng = np.random.default_rng(7)
    x = rng.normal(size=(SPEC.npix, SPEC.npix))
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    params = PARAMS[name].with_(wstack=True, precision=precision)
    dev = [cupy.asarray(a) for a in (u, v, vis, w, x)]
    img = get_gridder(name, xp=cupy)(dev[0], dev[1], dev[2], SPEC, params, w=dev[3])
    pred = degrid(dev[4], dev[0], dev[1], SPEC, name, params, w=dev[3])
    assert isinstance(img, cupy.ndarray) and isinstance(pred, cupy.ndarray)
    want_img = get_gridder(name)(u, v, vis, SPEC, params, w=w)
    want_pred = degrid(x, u, v, SPEC, name, params, w=w)
    tol = 0.0 if precision == "double" else 1e-6  # the host's float64, cast
    assert rel(cupy.asnumpy(img), want_img) <= tol
    assert rel(cupy.asnumpy(pred), want_pred) <= tol
