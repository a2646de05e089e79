"""The one CLEAN driver (gpu/deconvolution/driver.py), against oracles.

Oracles: the float64 direct DFT of V − V_model written in tests/support/oracles.py
(Cotton–Schwab's residual), the sky the visibilities were made of (Högbom's flux), the
mask given, and the same CLEAN run in one piece (a chunked one must equal it).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import dft_image, sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution.cotton_schwab import MajorCycle, major_cycle_pair
from uvlab.gpu.deconvolution.driver import iter_clean, run_clean
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec

#: Point sources on pixels of a 64² image: (di, dj, Jy).
SKY = [(0, 0, 1.0), (9, -5, 0.5), (-12, 10, 0.8), (15, 14, -0.3)]


@pytest.fixture(scope="module")
def scene():
    u, v, _ = layout_uv("meerkat", n_times=6, hours=2.0)
    spec = meerkat_spec(u, v, 64)
    vis = sky_vis(u, v, spec, SKY)
    weight = np.ones(u.size)
    dirty = dirty_dft(u, v, weight * vis, spec) / weight.sum()
    psf = dirty_dft(u, v, weight.astype(complex), ImageSpec(128, spec.cell_rad)) / weight.sum()
    return u, v, vis, weight, spec, dirty, psf


def _major(scene, xp):
    u, v, vis, weight, spec, _, _ = scene
    grid, degrid_fn = major_cycle_pair("conv", GridParams.from_eps(1e-9), xp)
    return MajorCycle(*(xp.asarray(a) for a in (u, v, vis, weight)), spec, grid, degrid_fn)


def _source_flux(model: np.ndarray, spec, di: int, dj: int) -> float:
    """The model's flux within a pixel of the source (di, dj): row N/2 + dj, column N/2 + di."""
    c = spec.npix // 2
    return float(model[c + dj - 1 : c + dj + 2, c + di - 1 : c + di + 2].sum())


def test_cotton_schwab_residual_is_the_image_of_what_the_data_still_hold(scene, xp):
    u, v, vis, weight, spec, _, psf = scene
    opts = CleanOptions("cotton-schwab", niter=300, gain=0.2, mgain=0.7)
    out = run_clean(None, xp.asarray(psf), opts, major=_major(scene, xp))
    assert out.done and out.majors >= 2 and out.iterations > 0
    model, residual = to_numpy(out.model), to_numpy(out.residual)
    j, i = np.nonzero(model)
    l, m = spec.l_axis()[i], spec.m_axis()[j]
    predicted = np.exp(2j * np.pi * (np.outer(u, l) + np.outer(v, m))) @ model[j, i]
    want = dft_image(u, v, weight * (vis - predicted), spec) / weight.sum()
    assert np.abs(residual - want).max() <= 1e-7 * np.abs(want).max() + 1e-12
    # the history: one entry per iteration and the start, the last the major cycle's
    assert out.peak.size == out.rms.size == out.iterations + 1
    assert out.peak[-1] == pytest.approx(np.abs(residual).max())
    assert len(out.major_peaks) == out.majors + 1 and out.cycles == out.majors


def test_hogbom_recovers_the_point_fluxes(scene, xp):
    _, _, _, _, spec, dirty, psf = scene
    opts = CleanOptions("hogbom", niter=3000, gain=0.1, mgain=0.8, threshold_jy=1e-3)
    out = run_clean(xp.asarray(dirty), xp.asarray(psf), opts)
    assert out.stop_reason == "threshold" and out.cycles >= 2
    model = to_numpy(out.model)
    for di, dj, flux in SKY:
        assert _source_flux(model, spec, di, dj) == pytest.approx(flux, abs=0.02)
    assert model.sum() == pytest.approx(sum(f for *_, f in SKY), abs=0.03)
    assert np.abs(to_numpy(out.residual)).max() <= 1e-3


def test_states_per_cycle_and_chunks_that_change_nothing(scene):
    _, _, _, _, _, dirty, psf = scene
    opts = CleanOptions("hogbom", niter=400, gain=0.1, mgain=0.5)
    whole = list(iter_clean(dirty, psf, opts))
    chunked = list(iter_clean(dirty, psf, opts, chunk=7))
    assert whole[0].iterations == 0 and not whole[0].done and whole[-1].done
    assert [s.iterations for s in whole[1:-1]] == list(whole[-1].cycle_ends)
    assert len(chunked) > len(whole)  # the chunks were yielded too
    its = [s.iterations for s in chunked]
    assert its == sorted(its) and max(np.diff(its)) <= 7
    a, b = whole[-1], chunked[-1]
    assert np.array_equal(a.model, b.model) and np.array_equal(a.residual, b.residual)
    assert np.array_equal(a.comp_flux, b.comp_flux) and a.stop_reason == b.stop_reason
    assert np.array_equal(a.peak, b.peak) and a.cycle_ends == b.cycle_ends


def test_components_only_inside_the_mask_and_its_boxes(scene):
    _, _, _, _, spec, dirty, psf = scene
    c = spec.npix // 2
    mask = np.zeros((64, 64), bool)
    mask[c - 2 : c + 3, c - 2 : c + 3] = True  # the central source only
    box = (c + 10 - 2, c - 12 - 2, c + 10 + 2, c - 12 + 2)  # around (di, dj) = (-12, 10)
    opts = CleanOptions("hogbom", niter=500, gain=0.1, mgain=0.8, mask_boxes=(box,))
    out = run_clean(dirty, psf, opts, mask=mask)
    j, i = np.nonzero(out.model)
    inside = mask.copy()
    inside[box[0] : box[2] + 1, box[1] : box[3] + 1] = True
    assert inside[j, i].all() and mask[j, i].any() and (~mask[j, i]).any()  # both places
    # the peak history is the mask's: the last is the largest |residual| inside it
    assert out.peak[-1] == pytest.approx(np.abs(out.residual[inside]).max())


def test_cotton_schwab_needs_the_visibilities(scene):
    _, _, _, _, _, dirty, psf = scene
    with pytest.raises(ValueError, match="visibilities"):
        run_clean(dirty, psf, CleanOptions("cotton-schwab", niter=10))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"auto_mask": 1.0, "auto_threshold": 3.0}, "auto-mask"),
        ({"auto_mask": 0.0}, "auto-mask"),
        ({"active_max": 0}, "active_max"),
        ({"max_major": 0}, "max_major"),
        ({"mask_boxes": ((1, 2, 3),)}, "mask box"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CleanOptions(**kwargs)


def test_mask_boxes_from_json_lists_become_tuples():
    opts = CleanOptions(mask_boxes=[[1, 2, 3, 4]])
    assert opts.mask_boxes == ((1, 2, 3, 4),) and hash(opts)


def test_major_cycle_for_data_keeps_the_w_term_in_every_residual():
    """``major_cycle_for`` (both front ends' Cotton–Schwab) passes w to grid and degrid.

    Oracle: the direct sum with w·(n − 1) of V − V_model (as test_cotton_schwab_wterm.py).
    """
    from types import SimpleNamespace

    from tests.support.oracles import image_vis
    from uvlab.gpu.deconvolution.inputs import major_cycle_for
    from uvlab.gpu.image_spec import ARCSEC
    from uvlab.gpu.imaging.weighting import Weighting

    n = 64
    u, v, w = layout_uv("meerkat", n_times=2, hours=6.0, dec_deg=-30.0)
    spec = ImageSpec(n, 20.0 * ARCSEC)
    sky = np.zeros((n, n))
    sky[n // 2 + 27, n // 2 - 25] = 1.0  # 12′ off axis, where the w-term counts
    vis = image_vis(sky, u, v, spec, w=w)
    data = SimpleNamespace(  # metres at 299792458 Hz are wavelengths
        uvw=np.column_stack([u, v, w]), freq_hz=np.array([299792458.0]), vis=vis[:, None],
        weight=1.0, flag=np.zeros((u.size, 1), bool),
    )  # fmt: skip
    params = GridParams.from_eps(1e-7, wstack=True)
    major = major_cycle_for(data, spec, Weighting(), "conv", params, np)
    psf = dft_image(u, v, np.ones(u.size, complex), ImageSpec(2 * n, spec.cell_rad)) / u.size
    opts = CleanOptions("cotton-schwab", niter=60, gain=0.3, mgain=0.9, max_major=3)
    out = run_clean(None, psf, opts, major=major)
    assert out.majors == 3 and out.iterations > 0
    left = vis - image_vis(out.model, u, v, spec, w=w)
    want = dft_image(u, v, left, spec, w=w) / u.size
    dirty_peak = np.abs(dft_image(u, v, vis, spec, w=w)).max() / u.size
    assert np.abs(out.residual - want).max() <= 1e-7 * dirty_peak
