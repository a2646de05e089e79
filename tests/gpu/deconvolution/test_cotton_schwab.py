"""Cotton–Schwab major cycles (gpu/deconvolution/cotton_schwab.py).

Oracles: the float64 direct DFT and the direct predict written in
tests/support/oracles.py (the residual image must be the image of V − V_model
exactly), and the sky the visibilities were made of.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clean_scenes import CLEAN_SKY
from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.deconvolution.cotton_schwab import cotton_schwab
from uvlab.gpu.degridding import degrid
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import get_gridder
from uvlab.gpu.image_spec import ImageSpec

PARAMS = GridParams.from_eps(1e-9)


@pytest.fixture(scope="module")
def scene():
    u, v, _ = layout_uv("meerkat", n_times=6, hours=2.0)
    spec = meerkat_spec(u, v, 64)
    sky = [(di // 2, dj // 2, f) for di, dj, f in CLEAN_SKY]  # the 128² sky, on 64²
    vis = sky_vis(u, v, spec, sky)
    weight = np.ones(u.size)
    psf = dirty_dft(u, v, weight.astype(complex), ImageSpec(128, spec.cell_rad)) / weight.sum()
    return u, v, vis, weight, spec, psf, sky


def run(scene, **kw):
    u, v, vis, weight, spec, psf, _ = scene
    gridder = get_gridder("conv")
    return cotton_schwab(
        u, v, vis, weight, spec, psf,
        grid=lambda uu, vv, wv, sp, w=None: gridder(uu, vv, wv, sp, PARAMS, w=w),
        degrid_fn=lambda img, uu, vv, sp, w=None: degrid(img, uu, vv, sp, "conv", PARAMS, w=w),
        **kw,
    )  # fmt: skip


def test_the_residual_is_the_image_of_what_the_visibilities_still_hold(scene):
    u, v, vis, weight, spec, _, _ = scene
    mc = run(scene, gain=0.2, niter=300, mgain=0.7)
    assert mc.majors >= 2 and mc.iterations > 0
    j, i = np.nonzero(mc.model)
    l, m = spec.l_axis()[i], spec.m_axis()[j]
    predicted = np.exp(2j * np.pi * (np.outer(u, l) + np.outer(v, m))) @ mc.model[j, i]
    want = dft_image(u, v, weight * (vis - predicted), spec) / weight.sum()
    assert np.abs(mc.residual - want).max() <= 1e-7 * np.abs(want).max() + 1e-12


def test_major_cycles_explain_the_data_and_keep_the_flux(scene):
    """Noise-free point sources: every major cycle lowers the residual, the flux is kept.

    (On a 2-hour track the model may share a source's flux with its neighbours in a way
    the data cannot tell apart; restored peaks are checked on a VLA track in
    tests/app/commands/test_image_clean.py.)
    """
    *_, sky = scene
    mc = run(scene, gain=0.2, niter=20000, threshold=1e-6, mgain=0.9)
    assert mc.majors >= 3
    assert np.all(np.diff(mc.major_peaks) < 0)  # every major cycle lowered the peak
    assert mc.major_peaks[-1] < 1e-4 * mc.major_peaks[0]
    assert mc.model.sum() == pytest.approx(sum(f for *_, f in sky), rel=1e-4)


@pytest.mark.gpu
def test_cupy_major_cycles_equal_numpys(scene):
    import cupy

    u, v, vis, weight, spec, psf, _ = scene
    ref = run(scene, gain=0.2, niter=200, mgain=0.7)
    gridder = get_gridder("conv", xp=cupy)
    got = cotton_schwab(
        *(cupy.asarray(a) for a in (u, v, vis, weight)), spec, cupy.asarray(psf),
        grid=lambda uu, vv, wv, sp, w=None: gridder(uu, vv, wv, sp, PARAMS, w=w),
        degrid_fn=lambda img, uu, vv, sp, w=None: degrid(img, uu, vv, sp, "conv", PARAMS, w=w),
        gain=0.2, niter=200, mgain=0.7,
    )  # fmt: skip
    assert got.majors == ref.majors and got.iterations == ref.iterations
    scale = np.abs(ref.residual).max()
    np.testing.assert_allclose(cupy.asnumpy(got.model), ref.model, atol=1e-9)
    np.testing.assert_allclose(cupy.asnumpy(got.residual), ref.residual, atol=1e-8 * scale)
