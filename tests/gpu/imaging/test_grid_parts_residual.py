"""CLEAN's passes gridded in parts (gpu/imaging/grid_parts.py: ``model``, ``dirty=False``).

Oracles: Cotton–Schwab's :class:`MajorCycle` of all the data at once (itself tested
against the direct sum) for the residual of a model read from the model's grid, for
one-row, uneven and single-part splits, natural, uniform and Briggs weighting, ``conv``
and the pruned ``pruned-nn``; :func:`wide_psf` for the CLEAN PSF of side 2N gridded alone;
the degridder (:func:`~uvlab.gpu.degridding.degrid`) for the visibilities read from the
model's grid.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from tests.support.parts_data import SPEC, data
from uvlab.gpu.deconvolution.inputs import major_cycle_for, wide_psf
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.grid_parts import empty_grid, finish, grid_part, model_grid
from uvlab.gpu.imaging.parts import density_totals, needs_density, part_counts
from uvlab.gpu.imaging.weighting import Weighting

SPLITS = {
    "one row each": list(range(61)),
    "uneven": [0, 7, 8, 30, 59, 60],
    "one part": [0, 60],
}
WEIGHTINGS = [Weighting("natural"), Weighting("uniform"), Weighting("briggs", 0.5)]
CHAINS = {
    "conv": GridParams.from_eps(1e-9),
    "pruned-nn": GridParams(oversample=4),  # the fine grid small: β = 4 (even, as pruners need)
}


def model_image(n=SPEC.npix):
    m = np.zeros((n, n))
    m[n // 2, n // 2], m[n // 2 + 3, n // 2 - 5], m[4, 9] = 1.0, -0.4, 0.25
    return m


def whole():
    uvw, freq, vis, weight, flag = data()
    return SimpleNamespace(uvw=uvw, freq_hz=freq, vis=vis, weight=weight, flag=flag)


def in_parts(bounds, weighting, algorithm, params, spec=SPEC, **kw):
    """Parts gridded two chains at a time (as two workers do), the chains added, finished."""
    vd = whole()
    parts = [slice(a, b) for a, b in itertools.pairwise(bounds)]
    args = [(vd.uvw[p], vd.freq_hz, vd.vis[p], vd.weight[p], vd.flag[p]) for p in parts]
    totals = None
    if needs_density(weighting):
        totals = density_totals(sum(part_counts(*a, spec, weighting) for a in args))
    chains = [None, None]
    for k, a in enumerate(args):
        chains[k % 2] = grid_part(*a, spec, weighting, totals, algorithm=algorithm,
                                  params=params, into=chains[k % 2], **kw)  # fmt: skip
    total = chains[0] if chains[1] is None else chains[0].add(chains[1])
    return finish(total, spec, algorithm, params)


@pytest.mark.parametrize("algorithm", CHAINS)
@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: w.scheme)
def test_residual_grids_finish_into_the_major_cycles_residual(weighting, split, algorithm):
    params, model = CHAINS[algorithm], model_image()
    want = major_cycle_for(whole(), SPEC, weighting, algorithm, params, np).residual(model)
    half = model_grid(model, SPEC, algorithm, params)
    total = in_parts(SPLITS[split], weighting, algorithm, params, psf=False, model=half)
    got, psf = total.normalised()
    assert psf is None
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())


def test_the_residual_is_not_the_dirty_image():
    """The model's visibilities are subtracted: a model of the dirty image's brightest
    pixel lowers the residual there by what it predicts (a test that can fail)."""
    params, wt = CHAINS["conv"], Weighting("natural")
    dirty, _ = in_parts(SPLITS["uneven"], wt, "conv", params, psf=False).normalised()
    j, i = np.unravel_index(np.argmax(dirty), dirty.shape)
    model = np.zeros_like(dirty)
    model[j, i] = dirty[j, i]
    half = model_grid(model, SPEC, "conv", params)
    res, _ = in_parts(SPLITS["uneven"], wt, "conv", params, psf=False, model=half).normalised()
    want = major_cycle_for(whole(), SPEC, wt, "conv", params, np).residual(model)
    assert abs(res[j, i]) < 0.5 * dirty[j, i]
    np.testing.assert_allclose(res, want, rtol=0, atol=1e-12 * np.abs(want).max())


@pytest.mark.parametrize("algorithm", CHAINS)
def test_the_model_grid_reads_the_degridders_visibilities(algorithm):
    from uvlab.gpu.degridding import degrid
    from uvlab.gpu.gridders.degrid import read_grid
    from uvlab.gpu.gridders.registry import axis_plans

    params, model = CHAINS[algorithm], model_image()
    rng = np.random.default_rng(5)
    u, v = rng.normal(0, 900, 300), rng.normal(0, 900, 300)
    want = degrid(model, u, v, SPEC, algorithm, params)
    plan_u, plan_v = axis_plans(algorithm, SPEC, params)
    got = read_grid(model_grid(model, SPEC, algorithm, params), u, v, plan_u, plan_v)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-13 * np.abs(want).max())


@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: w.scheme)
def test_the_psf_grid_alone_finishes_into_the_wide_psf(weighting):
    params = CHAINS["conv"]
    want = wide_psf(whole(), SPEC, weighting, "conv", params, "cpu")
    wide = ImageSpec(2 * SPEC.npix, SPEC.cell_rad)
    total = in_parts(SPLITS["uneven"], replace(weighting, density_npix=SPEC.npix), "conv",
                     params, spec=wide, dirty=False)  # fmt: skip
    dirty, psf = total.normalised()
    assert dirty is None and psf[SPEC.npix, SPEC.npix] == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(psf, want, rtol=0, atol=1e-12)


def test_psf_alone_grids_half_the_bytes_and_adds_only_its_kind():
    both, alone = empty_grid(SPEC), empty_grid(SPEC, dirty=False)
    assert alone.dirty is None and alone.nbytes * 2 == both.nbytes
    with pytest.raises(ValueError, match="do not add"):
        alone.add(empty_grid(SPEC, psf=False))
    with pytest.raises(ValueError, match="neither"):
        empty_grid(SPEC, psf=False, dirty=False)
    band = alone.band(1, 3)
    assert band.dirty is None and alone.add(band, 1, 3) is alone
