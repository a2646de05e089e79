"""Högbom CLEAN: recovers point sources from a real PSF, stops where told, refuses bad input."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.clean_scenes import CLEAN_SKY, meerkat_psf_and_dirty
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution import CleanDivergedError, box_mask, fit_beam, hogbom, restore

N = 128


def _truth(n=N) -> np.ndarray:
    img = np.zeros((n, n))
    for di, dj, flux in CLEAN_SKY:
        img[n // 2 + dj, n // 2 + di] = flux
    return img


def test_recovers_the_deltas_of_a_psf_convolved_sky(xp):
    psf, dirty, _ = meerkat_psf_and_dirty()
    res = hogbom(xp.asarray(dirty), xp.asarray(psf), gain=0.1, niter=5000, threshold=1e-4)
    model = to_numpy(res.model)
    assert type(res.model) is type(xp.asarray(dirty))
    assert res.stop_reason == "threshold"
    np.testing.assert_allclose(model, _truth(), atol=2e-3)  # every flux on its own pixel
    assert abs(model.sum() / _truth().sum() - 1) < 1e-3
    assert res.peak.size == res.iterations + 1 and res.rms.size == res.iterations + 1
    assert res.peak[0] == pytest.approx(np.abs(dirty).max())
    assert res.peak[-1] <= 1e-4 < res.peak[-2]
    # the residual is the dirty image minus the model convolved with the PSF
    conv = np.zeros((N, N))
    for j, i in zip(*np.nonzero(model)):
        conv += model[j, i] * psf[N - j : 2 * N - j, N - i : 2 * N - i]
    np.testing.assert_allclose(to_numpy(res.residual), dirty - conv, atol=1e-12)


def test_restored_peaks_and_model_flux_within_one_percent():
    psf, dirty, spec = meerkat_psf_and_dirty()
    res = hogbom(dirty, psf, gain=0.1, niter=5000, threshold=1e-4)
    restored = restore(res.model, res.residual, fit_beam(psf, spec.cell_rad), spec.cell_rad)
    for di, dj, flux in CLEAN_SKY:
        assert restored[N // 2 + dj, N // 2 + di] == pytest.approx(flux, rel=0.01)
    assert res.model.sum() == pytest.approx(sum(f for *_, f in CLEAN_SKY), rel=0.01)


def test_components_list_sums_to_the_model():
    psf, dirty, _ = meerkat_psf_and_dirty()
    res = hogbom(dirty, psf, gain=0.2, niter=50)
    assert res.stop_reason == "niter" and res.iterations == 50
    rebuilt = np.zeros((N, N))
    np.add.at(rebuilt, (res.comp_j, res.comp_i), res.comp_flux)
    np.testing.assert_allclose(rebuilt, res.model, atol=1e-15)
    assert res.comp_flux[0] == pytest.approx(0.2 * dirty.flat[np.abs(dirty).argmax()])


@pytest.mark.gpu
def test_cupy_matches_numpy():
    import cupy

    psf, dirty, _ = meerkat_psf_and_dirty()
    mask = box_mask(N, [(10, 10, 118, 100)])
    kw = dict(gain=0.1, niter=700, threshold=1e-3, mask=mask)
    ref = hogbom(dirty, psf, **kw)
    for batch in (1, 64, 1000):
        kw_dev = {**kw, "mask": cupy.asarray(mask)}
        dev = hogbom(cupy.asarray(dirty), cupy.asarray(psf), batch=batch, **kw_dev)
        assert dev.iterations == ref.iterations and dev.stop_reason == ref.stop_reason
        np.testing.assert_array_equal(dev.comp_j, ref.comp_j)
        np.testing.assert_array_equal(dev.comp_i, ref.comp_i)
        np.testing.assert_allclose(dev.comp_flux, ref.comp_flux, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(dev.model.get(), ref.model, atol=1e-12)
        np.testing.assert_allclose(dev.residual.get(), ref.residual, atol=1e-12)
        np.testing.assert_allclose(dev.peak, ref.peak, atol=1e-12)
        np.testing.assert_allclose(dev.rms, ref.rms, rtol=1e-10)


def test_psf_of_side_n_subtracts_where_it_overlaps():
    psf, dirty, _ = meerkat_psf_and_dirty()
    small = psf[N // 2 : N // 2 + N, N // 2 : N // 2 + N]  # N², peak at [N/2, N/2]
    assert small[N // 2, N // 2] == pytest.approx(1.0)
    res = hogbom(dirty, small, gain=0.1, niter=5000, threshold=1e-3)
    assert res.model.sum() == pytest.approx(_truth().sum(), rel=0.01)


def test_auto_threshold_and_mgain_levels(rng):
    psf, dirty, _ = meerkat_psf_and_dirty()
    sigma = 1.4826 * np.median(np.abs(dirty - np.median(dirty)))
    res = hogbom(dirty, psf, niter=5000, auto_threshold=3.0)
    assert res.stop_reason == "auto-threshold"
    assert res.threshold == pytest.approx(3 * sigma) and res.peak[-1] <= res.threshold
    peak0 = np.abs(dirty).max()
    res = hogbom(dirty, psf, niter=5000, mgain=0.8, threshold=1e-6)
    assert res.stop_reason == "mgain"
    assert res.mgain_level == pytest.approx(0.2 * peak0)
    assert res.peak[-1] <= 0.2 * peak0 < res.peak[-2]


def test_mask_keeps_components_inside():
    psf, dirty, _ = meerkat_psf_and_dirty()
    box = (N // 2 - 5, N // 2 - 5, N // 2 + 5, N // 2 + 5)  # the centre source only
    res = hogbom(dirty, psf, niter=2000, threshold=1e-3, mask=box_mask(N, [box]))
    rows, cols = np.nonzero(res.model)
    assert rows.min() >= box[0] and rows.max() <= box[2]
    assert cols.min() >= box[1] and cols.max() <= box[3]
    assert res.model[N // 2, N // 2] > 0.5  # the rest: sidelobes of the sources outside


def test_zero_image_stops_at_once():
    res = hogbom(np.zeros((8, 8)), np.pad(np.ones((1, 1)), ((8, 7), (8, 7))), niter=10)
    assert res.iterations == 0 and res.stop_reason == "zero"


def test_divergence_guard_gives_one_line():
    psf, dirty, _ = meerkat_psf_and_dirty()
    with pytest.raises(CleanDivergedError) as err:
        hogbom(dirty, 3.0 * psf, gain=1.0, niter=100)  # a PSF not normalised to 1
    assert "diverged" in str(err.value) and "\n" not in str(err.value)
    bad = dirty.copy()
    bad[3, 3] = np.nan
    with pytest.raises(CleanDivergedError, match="non-finite"):
        hogbom(bad, psf)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(gain=0.0), "gain"),
        (dict(gain=1.5), "gain"),
        (dict(niter=-1), "niter"),
        (dict(threshold=-1.0), "threshold"),
        (dict(auto_threshold=-3.0), "auto-threshold"),
        (dict(mgain=0.0), "mgain"),
        (dict(mask=np.ones((4, 4), bool)), "mask"),
    ],
)
def test_bad_parameters_give_one_line(kwargs, match):
    dirty = np.zeros((8, 8))
    with pytest.raises(ValueError, match=match) as err:
        hogbom(dirty, np.zeros((16, 16)), **kwargs)
    assert "\n" not in str(err.value)


def test_bad_shapes():
    with pytest.raises(ValueError, match="PSF"):
        hogbom(np.zeros((8, 8)), np.zeros((12, 12)))
    with pytest.raises(ValueError, match="square"):
        hogbom(np.zeros((8, 6)), np.zeros((16, 16)))


def test_an_f_ordered_dirty_image_cleans_as_a_c_ordered_one():
    """The NumPy conv gridder returns F-ordered images; the loop updates its residual in place."""
    psf, dirty, _ = meerkat_psf_and_dirty()
    c = hogbom(dirty, psf, gain=0.2, niter=200)
    f = hogbom(np.asfortranarray(dirty), np.asfortranarray(psf), gain=0.2, niter=200)
    np.testing.assert_array_equal(f.model, c.model)
    np.testing.assert_array_equal(f.residual, c.residual)
    assert np.abs(c.residual).max() < 0.1 * np.abs(dirty).max()
