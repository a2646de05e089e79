"""WSClean's sub-minor loop (gpu/deconvolution/subminor.py).

Oracles: Högbom on the whole image (the same iterations when the active set is
every pixel), the residual written out as shifted PSFs summed directly, the
true sky of the PSF-convolved point sources, and the NumPy sub-loop for the CUDA one.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clean_scenes import CLEAN_SKY, meerkat_psf_and_dirty
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution import CleanDivergedError, box_mask, fit_beam, hogbom, restore
from uvlab.gpu.deconvolution.hogbom import psf_window
from uvlab.gpu.deconvolution.subminor import PsfConvolver, select_active, subloop_numpy

N = 128


def _direct_convolve(model, psf):
    """Σ over the model's pixels of the shifted PSF, as Högbom subtracts it."""
    n = model.shape[0]
    out = np.zeros_like(model)
    for j, i in zip(*np.nonzero(model)):
        rows, cols, prow, pcol = psf_window(n, psf.shape[0], j, i)
        out[rows, cols] += model[j, i] * psf[prow, pcol]
    return out


@pytest.mark.parametrize("side", [N, 2 * N])
def test_psf_convolver_is_the_sum_of_shifted_psfs(rng, side):
    psf, _, _ = meerkat_psf_and_dirty()
    psf = psf[N - side // 2 : N + side // 2, N - side // 2 : N + side // 2]
    model = np.zeros((N, N))
    j, i = rng.integers(0, N, (2, 40))
    model[j, i] = rng.normal(size=40)
    model[0, 0], model[N - 1, N - 1] = 0.7, -0.4  # corners: the PSF hangs off the image
    np.testing.assert_allclose(
        PsfConvolver(psf, N)(model), _direct_convolve(model, psf), atol=1e-13
    )


def test_select_active_keeps_the_brightest(rng):
    a = np.abs(rng.normal(size=5000))
    idx, level = select_active(a, 0.5, 10_000)
    np.testing.assert_array_equal(np.sort(idx), np.flatnonzero(a > 0.5))
    assert level == 0.5
    idx, level = select_active(a, 0.5, 100)
    order = np.argsort(a)[::-1]
    np.testing.assert_array_equal(np.sort(idx), np.sort(order[:100]))
    assert level == a[order[100]]


def test_every_pixel_active_is_hogbom_exactly():
    psf, dirty, _ = meerkat_psf_and_dirty()
    kw = dict(gain=0.1, niter=400, threshold=0.0)
    ref = hogbom(dirty, psf, **kw)
    sub = hogbom(dirty, psf, active_max=N * N, **kw)
    np.testing.assert_array_equal(sub.comp_j, ref.comp_j)
    np.testing.assert_array_equal(sub.comp_i, ref.comp_i)
    np.testing.assert_allclose(sub.comp_flux, ref.comp_flux, rtol=0, atol=1e-15)
    np.testing.assert_allclose(sub.residual, ref.residual, atol=1e-12)
    np.testing.assert_allclose(sub.peak, ref.peak, atol=1e-12)


@pytest.mark.parametrize("kmax", [30, 300])
def test_small_active_sets_clean_the_sky_and_keep_the_residual_exact(kmax):
    psf, dirty, spec = meerkat_psf_and_dirty()
    res = hogbom(dirty, psf, gain=0.1, niter=5000, threshold=1e-4, active_max=kmax)
    assert res.stop_reason == "threshold" and res.peak[-1] <= 1e-4
    assert res.peak.size == res.rms.size == res.iterations + 1
    # the residual is the dirty image minus the model ⊛ PSF, whatever the sub-loops did
    np.testing.assert_allclose(res.residual, dirty - _direct_convolve(res.model, psf), atol=1e-12)
    restored = restore(res.model, res.residual, fit_beam(psf, spec.cell_rad), spec.cell_rad)
    for di, dj, flux in CLEAN_SKY:
        assert restored[N // 2 + dj, N // 2 + di] == pytest.approx(flux, rel=0.01)
    assert res.model.sum() == pytest.approx(sum(f for *_, f in CLEAN_SKY), rel=1e-3)
    # the RMS is the whole image's at each sub-loop's start and at the end, NaN inside
    assert np.isfinite(res.rms[0]) and np.isfinite(res.rms[-1])
    assert res.rms[0] == pytest.approx(np.sqrt(np.mean(dirty**2)))


def test_subminor_keeps_mgain_mask_and_divergence_rules():
    psf, dirty, _ = meerkat_psf_and_dirty()
    peak0 = np.abs(dirty).max()
    res = hogbom(dirty, psf, niter=5000, mgain=0.8, threshold=1e-6, active_max=50)
    assert res.stop_reason == "mgain" and res.peak[-1] <= 0.2 * peak0
    box = (N // 2 - 5, N // 2 - 5, N // 2 + 5, N // 2 + 5)
    res = hogbom(dirty, psf, niter=2000, threshold=1e-3, mask=box_mask(N, [box]), active_max=20)
    rows, cols = np.nonzero(res.model)
    assert rows.min() >= box[0] and rows.max() <= box[2]
    assert cols.min() >= box[1] and cols.max() <= box[3]
    with pytest.raises(CleanDivergedError, match="diverged"):
        hogbom(dirty, 3.0 * psf, gain=1.0, niter=100, active_max=50)
    with pytest.raises(ValueError, match="active_max"):
        hogbom(dirty, psf, active_max=0)


def test_subloop_stops_at_its_level_after_one_free_iteration():
    psf, dirty, _ = meerkat_psf_and_dirty()
    a = np.abs(dirty).ravel()
    active, _ = select_active(a, 0.0, 40)
    jj, ii = active // N, active % N
    level = float(np.sort(a[active])[-1])  # the peak itself: one iteration, then stop
    sel, flux, peaks = subloop_numpy(
        dirty.ravel()[active].copy(), jj, ii, psf, 0.1, 50, level, 0.0, 10.0
    )
    assert sel.size == 1 and peaks[0] == pytest.approx(a.max())
    assert flux[0] == pytest.approx(0.1 * dirty.ravel()[active][sel[0]])


@pytest.mark.gpu
def test_cuda_subloop_equals_numpys():
    import cupy

    from uvlab.gpu.deconvolution.subminor import subloop_cupy

    psf, dirty, _ = meerkat_psf_and_dirty()
    a = np.abs(dirty).ravel()
    for kmax in (1, 37, 1500, N * N):
        active, level = select_active(a, 1e-3, kmax)
        jj, ii = active // N, active % N
        vals = dirty.ravel()[active].copy()
        ref = subloop_numpy(vals.copy(), jj, ii, psf, 0.1, 3000, level, 1e-3, 10.0)
        dev = subloop_cupy(
            cupy.asarray(vals), cupy.asarray(jj), cupy.asarray(ii), cupy.asarray(psf), 0.1, 3000,
            level, 1e-3, 10.0,
        )  # fmt: skip
        np.testing.assert_array_equal(dev[0], ref[0])
        np.testing.assert_array_equal(dev[1], ref[1])
        np.testing.assert_array_equal(dev[2], ref[2])


@pytest.mark.gpu
def test_cupy_subminor_hogbom_equals_numpys():
    import cupy

    psf, dirty, _ = meerkat_psf_and_dirty()
    kw = dict(gain=0.1, niter=3000, threshold=1e-4, active_max=64)
    ref = hogbom(dirty, psf, **kw)
    dev = hogbom(cupy.asarray(dirty), cupy.asarray(psf), **kw)
    assert dev.iterations == ref.iterations and dev.stop_reason == ref.stop_reason
    np.testing.assert_array_equal(dev.comp_j, ref.comp_j)
    np.testing.assert_array_equal(dev.comp_i, ref.comp_i)
    np.testing.assert_allclose(dev.comp_flux, ref.comp_flux, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(to_numpy(dev.residual), ref.residual, atol=1e-12)
