"""W-projection for conv (gpu/gridders/wproject.py, wkernels.py), gridding and degridding.

Oracle: the float64 direct sum with the w-term (tests/support/oracles.py), on a
VLA-C-like short track (2 h, 2106 records, |w| ≤ 1.13e4 λ at 1.4 GHz) imaged at
256² of 8″ with two sources about 14′ off axis, where the w-term's phase reaches
0.6 rad. W-projection rounds each w to its nearest plane, so its error is bounded by
the plane spacing (and the bilinear reading of kernels sampled 8 times per cell), not
by ε: the tolerances below are stated from the measured values, well below what the
uncorrected image misses by.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.support.degridding import rel
from tests.support.oracles import dft_pixels, image_vis
from tests.support.scenes import layout_uv
from uvlab.gpu.gridders.conv import dirty
from uvlab.gpu.gridders.degrid import predict_conv
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import CATALOGUE, get_gridder
from uvlab.gpu.gridders.wkernels import auto_planes
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

SPEC = ImageSpec(256, 8.0 * ARCSEC)
#: Two sources [j, i], 106 and 114 pixels (14.1′ and 15.2′) off the centre.
SOURCES = ((128 + 80, 128 - 70), (128 - 60, 128 + 95))
FLAT = GridParams.from_eps(1e-6)


@pytest.fixture(scope="module")
def track():
    """(u, v, w, vis with the w-term, pixels, direct sum at the pixels).

    The oracle covers every 8th row and column plus a 21² window around each source.
    """
    u, v, w = layout_uv("vla.c", n_times=6, hours=2.0, dec_deg=20.0, lat_deg=34.08)
    vis = np.zeros(u.size, dtype=np.complex128)
    for j, i in SOURCES:
        l, m = SPEC.l_axis()[i], SPEC.m_axis()[j]
        vis += np.exp(2j * np.pi * (u * l + v * m + w * (math.sqrt(1 - l * l - m * m) - 1)))
    rows = np.unique(np.concatenate([np.arange(0, 256, 8), *(np.arange(j - 10, j + 11)
                                                             for j, _ in SOURCES)]))  # fmt: skip
    cols = np.unique(np.concatenate([np.arange(0, 256, 8), *(np.arange(i - 10, i + 11)
                                                             for _, i in SOURCES)]))  # fmt: skip
    ref = dft_pixels(u, v, vis, SPEC, rows, cols, w=w)
    return u, v, w, vis, np.ix_(rows, cols), ref


def test_the_w_projected_image_is_the_direct_sum_with_the_w_term(track):
    """Max error over the oracle's pixels / peak, measured: 4.6e-4 with 64 planes; conv
    without w-correction 9.2e-2 (the test can fail)."""
    u, v, w, vis, pix, ref = track
    got = dirty(u, v, vis, SPEC, FLAT.with_(wprojplanes=64), w=w)
    err = np.abs(got[pix] - ref).max() / u.size
    assert err < 1e-3
    flat = np.abs(dirty(u, v, vis, SPEC, FLAT)[pix] - ref).max() / u.size
    assert flat > 0.05 and err < flat / 100


def test_automatic_planes_follow_tclean_and_correct_the_image(track):
    """tclean's rule on this track: ⌊1.05·max|w|·sin(N·cell/2)⌋ = 59 planes (rms|w| is
    below the mean of its extremes); measured error 4.3e-4 of the peak."""
    u, v, w, vis, pix, ref = track
    a = np.abs(w)
    assert np.sqrt(np.mean(a * a)) < 0.5 * (a.min() + a.max())
    want = int(1.05 * a.max() * math.sin(256 * 8.0 * ARCSEC / 2))
    assert auto_planes(w, SPEC) == want == 59
    got = dirty(u, v, vis, SPEC, FLAT.with_(wprojplanes=-1), w=w)
    assert np.abs(got[pix] - ref).max() / u.size < 1e-3


def test_the_automatic_rule_scales_with_the_rms_of_w():
    """|w| of 0 and 1000 λ: rms 707 > mean 500, so W = 707/500·1.05·1000."""
    w = np.array([0.0, 1000.0, -1000.0, 0.0])
    scale = math.sqrt(0.5) / 0.5
    assert auto_planes(w, SPEC) == int(scale * 1050.0 * math.sin(256 * 8.0 * ARCSEC / 2))
    assert auto_planes(np.zeros(4), SPEC) == 1


def test_one_plane_is_the_flat_conv_image(track):
    u, v, w, vis = track[:4]
    one = dirty(u, v, vis, SPEC, FLAT.with_(wprojplanes=1), w=w)
    flat = dirty(u, v, vis, SPEC, FLAT)
    assert np.abs(one - flat).max() < 2e-4 * u.size


def test_the_degridder_is_the_direct_predict_with_the_w_term(track):
    """‖error‖/‖V‖ measured 2.9e-3 with 64 planes (each record's own w rounded: no
    averaging over records as in the image); conv without the w-term 0.17."""
    u, v, w = track[:3]
    img = np.zeros((SPEC.npix, SPEC.npix))
    (j1, i1), (j2, i2) = SOURCES
    img[j1, i1], img[j2, i2], img[128, 128] = 1.0, 0.5, 0.2
    want = image_vis(img, u, v, SPEC, w=w)
    got = predict_conv(img, u, v, SPEC, FLAT.with_(wprojplanes=64), w=w)
    assert rel(got, want) < 5e-3
    assert rel(predict_conv(img, u, v, SPEC, FLAT), want) > 0.1


def test_a_cotton_schwab_major_cycle_subtracts_the_model_with_the_w_term(track):
    """The residual of the true model, |peak| / the dirty peak: measured 3.8e-4 with the
    w-projected pair; the pair without w-correction leaves 0.097 (the test can fail)."""
    from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle, major_cycle_pair

    u, v, w, vis = track[:4]
    model = np.zeros((SPEC.npix, SPEC.npix))
    for j, i in SOURCES:
        model[j, i] = 1.0
    left = []
    for params, wl in ((FLAT.with_(wprojplanes=64), w), (FLAT, None)):
        grid, degrid_fn = major_cycle_pair("conv", params, np)
        cycle = MajorCycle(u, v, vis, np.ones(u.size), SPEC, grid, degrid_fn, w=wl)
        left.append(np.abs(cycle.residual(model)).max() / cycle.residual(None).max())
    assert left[0] < 2e-3 and left[1] > 5e-2


def test_gridder_and_degridder_are_an_exact_adjoint_pair():
    """``Re⟨G x, y⟩ = Re⟨x, Gᴴ y⟩`` with the w-term (records on both signs of u and w)."""
    spec = ImageSpec(64, 60.0 * ARCSEC)
    rng = np.random.default_rng(7)
    u, v, w = rng.normal(0, 400, 300), rng.normal(0, 400, 300), rng.normal(0, 3000, 300)
    x = rng.normal(size=(64, 64))
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    params = FLAT.with_(wprojplanes=16)
    gx = dirty(u, v, vis, spec, params, w=w)
    lhs = np.vdot(gx, x).real
    rhs = np.vdot(vis, predict_conv(x, u, v, spec, params, w=w)).real
    assert abs(lhs - rhs) <= 1e-10 * np.linalg.norm(gx) * np.linalg.norm(x)
    both = predict_conv(x + 2j * x.T, u, v, spec, params, w=w)
    parts = predict_conv(x, u, v, spec, params, w=w) + 2j * predict_conv(
        x.T, u, v, spec, params, w=w
    )
    assert np.abs(both - parts).max() < 1e-9 * np.abs(parts).max()


@pytest.mark.parametrize("name", [n for n, a in CATALOGUE.items() if a.is_gridder])
def test_the_catalogue_decides_who_offers_it(name):
    """Only the records with ``w_projection`` take ``wprojplanes``; the rest refuse it."""
    rng = np.random.default_rng(1)
    u, v, w = rng.normal(0, 300, (3, 50))
    params = GridParams(wprojplanes=4)
    record = CATALOGUE[name]
    if record.w_projection:
        record.check(params)
        assert record.corrects_w(params)
        return
    with pytest.raises(ValueError, match="w-projection"):
        record.check(params)
    if record.host_only:  # ducc
        pytest.importorskip("ducc0")
    spec = ImageSpec(64, 60.0 * ARCSEC)
    with pytest.raises(ValueError, match="w-projection"):
        get_gridder(name)(u, v, np.ones(50, complex), spec, params, w=w)


def test_wprojplanes_values_and_combinations_are_checked():
    assert GridParams(wprojplanes=-1).w_term and not GridParams().w_term
    for bad in (-2, 1.5, True):
        with pytest.raises(ValueError, match="wprojplanes"):
            GridParams(wprojplanes=bad)
    with pytest.raises(ValueError, match="wstack"):
        GridParams(wprojplanes=8, wstack=True)


@pytest.mark.gpu
@pytest.mark.parametrize("precision", ["double", "single"])
def test_with_cupy_inputs_the_host_w_projection_runs_and_comes_back(precision):
    """conv's CUDA gridder and degridder hand w-projection to the host function: same numbers."""
    import cupy

    from uvlab.gpu.degridding import degrid

    spec = ImageSpec(64, 60.0 * ARCSEC)
    rng = np.random.default_rng(6)
    u, v, w = rng.normal(0, 400, 300), rng.normal(0, 400, 300), rng.normal(0, 3000, 300)
    x = rng.normal(size=(64, 64))
    vis = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    params = FLAT.with_(wprojplanes=16, precision=precision)
    dev = [cupy.asarray(a) for a in (u, v, vis, w, x)]
    img = get_gridder("conv", xp=cupy)(dev[0], dev[1], dev[2], spec, params, w=dev[3])
    pred = degrid(dev[4], dev[0], dev[1], spec, "conv", params, w=dev[3])
    assert isinstance(img, cupy.ndarray) and isinstance(pred, cupy.ndarray)
    want_img = dirty(u, v, vis, spec, params, w=w)
    want_pred = predict_conv(x, u, v, spec, params, w=w)
    tol = 0.0 if precision == "double" else 1e-6  # the host's float64, cast
    assert rel(cupy.asnumpy(img), want_img) <= tol
    assert rel(cupy.asnumpy(pred), want_pred) <= tol
