"""Grids made in parts (gpu/imaging/grid_parts.py) finish into one image of all the data.

Oracles: :func:`make_image` of all the data at once (itself tested against the DFT) for
one-row, uneven and single-part splits, natural, uniform and Briggs weighting (with a
taper), PSF included, and every algorithm that grids in parts; and the float64 direct
DFT (the catalogue's ``dft``) to the GCF's accuracy.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.parts_data import SPEC, data, split
from uvlab.gpu.gridders.half_image import fold_half
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import ALGORITHMS, axis_plans
from uvlab.gpu.gridders.separable import extended_shape
from uvlab.gpu.imaging.co_grid import grids_in_parts
from uvlab.gpu.imaging.grid_parts import empty_grid, finish, grid_part
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.weighting import Weighting

SPLITS = {
    "one row each": list(range(61)),
    "uneven": [0, 7, 8, 30, 59, 60],
    "one part": [0, 60],
}
WEIGHTINGS = [
    Weighting("natural"),
    Weighting("uniform"),
    Weighting("briggs", -0.5),
    Weighting("briggs", 0.5, taper_arcsec=60.0),
]
IN_PARTS = [a for a in ALGORITHMS if grids_in_parts(a)]


def grid_in_parts(bounds, weighting, algorithm="conv", params=None, psf=True):
    """The parts gridded two chains at a time (as two workers do), the chains then added."""
    parts, totals = split(bounds, weighting)
    chains = [None, None]
    for k, p in enumerate(parts):
        chains[k % 2] = grid_part(*p, SPEC, weighting, totals, algorithm=algorithm,
                                  params=params, psf=psf, into=chains[k % 2])  # fmt: skip
    total = chains[0] if chains[1] is None else chains[0].add(chains[1])
    return finish(total, SPEC, algorithm, params)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: f"{w.scheme}{w.robust:+}")
def test_the_grids_finish_into_the_whole_image(split, weighting):
    uvw, freq, vis, weight, flag = data()
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=weighting,
                      algorithm="conv", device="cpu")  # fmt: skip
    total = grid_in_parts(SPLITS[split], weighting)
    dirty, psf = total.normalised()
    assert total.sum_weights == pytest.approx(want.sum_weights, rel=1e-12)
    assert total.nvis == want.nvis
    np.testing.assert_allclose(dirty, want.dirty, rtol=0, atol=1e-12 * np.abs(want.dirty).max())
    np.testing.assert_allclose(psf, want.psf, rtol=0, atol=1e-12)
    wfreq = (weight * ~flag).sum(axis=0) @ freq / (weight * ~flag).sum()
    if weighting.scheme == "natural":  # the imaging weights are the data's
        assert total.mean_freq_hz == pytest.approx(wfreq, rel=1e-12)


@pytest.mark.parametrize("algorithm", IN_PARTS)
def test_every_separable_algorithm_grids_in_parts(algorithm):
    uvw, freq, vis, weight, flag = data()
    wt = Weighting("briggs", 0.0)
    params = GridParams(oversample=4)  # the fine grids small: β = 4 (even, as pruners need)
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=wt, algorithm=algorithm,
                      params=params, device="cpu")  # fmt: skip
    dirty, psf = grid_in_parts(SPLITS["uneven"], wt, algorithm, params).normalised()
    np.testing.assert_allclose(dirty, want.dirty, rtol=0, atol=1e-12 * np.abs(want.dirty).max())
    np.testing.assert_allclose(psf, want.psf, rtol=0, atol=1e-12)


def test_compressed_nearest_cell_grids_in_parts():
    uvw, freq, vis, weight, flag = data()
    params = GridParams(oversample=4, compress=True)
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, algorithm="pruned-nn",
                      params=params, device="cpu")  # fmt: skip
    dirty, _ = grid_in_parts(SPLITS["uneven"], Weighting(), "pruned-nn", params).normalised()
    np.testing.assert_allclose(dirty, want.dirty, rtol=0, atol=1e-12 * np.abs(want.dirty).max())


def test_conv_in_parts_matches_the_direct_dft():
    """Independent of the one-shot gridder: the exact float64 DFT, to conv's accuracy."""
    uvw, freq, vis, weight, flag = data()
    params = GridParams.from_eps(1e-7)
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, algorithm="dft", device="cpu")
    dirty, psf = grid_in_parts(SPLITS["uneven"], Weighting(), "conv", params).normalised()
    assert np.abs(dirty - want.dirty).max() < 1e-5 * np.abs(want.dirty).max()
    assert np.abs(psf - want.psf).max() < 1e-5


def test_no_psf_grid_when_not_asked():
    total = grid_in_parts(SPLITS["uneven"], Weighting(), psf=False)
    dirty, psf = total.normalised()
    assert psf is None and dirty.shape == (SPEC.npix, SPEC.npix)


def test_a_part_with_nothing_usable_adds_nothing():
    uvw, freq, vis, weight, flag = data()
    grid = grid_part(uvw[7:8], freq, vis[7:8], weight[7:8], flag[7:8], SPEC, Weighting())
    assert grid.nvis == 0 and grid.sum_weights == 0 and not grid.dirty.any()
    assert finish(grid, SPEC).dirty is None


def test_a_grid_added_a_band_at_a_time_is_the_grid_added_whole():
    uvw, freq, vis, weight, flag = data()
    a = grid_part(uvw[:30], freq, vis[:30], weight[:30], flag[:30], SPEC, Weighting())
    b = grid_part(uvw[30:], freq, vis[30:], weight[30:], flag[30:], SPEC, Weighting())
    whole = grid_part(uvw[:30], freq, vis[:30], weight[:30], flag[:30], SPEC, Weighting())
    whole.add(b)
    for band in range(5):  # uneven bands of the rows
        a.add(b.band(band, 5), band, 5)
    np.testing.assert_array_equal(a.dirty, whole.dirty)
    np.testing.assert_array_equal(a.psf, whole.psf)
    assert (a.sum_weights, a.nvis, a.sum_weighted_freq_hz) == (
        whole.sum_weights,
        whole.nvis,
        whole.sum_weighted_freq_hz,
    )


def test_grids_of_different_products_do_not_add():
    with pytest.raises(ValueError, match="do not add"):
        empty_grid(SPEC).add(empty_grid(SPEC, psf=False))


def test_in_place_fold_equals_the_copy():
    rng = np.random.default_rng(2)
    plan_u, plan_v = axis_plans("conv", SPEC, GridParams())
    shape = extended_shape(plan_u, plan_v)
    ext = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    pad = plan_u.rule.support // 2 + 1
    want = fold_half(ext, plan_u.n_grid, pad)
    got = fold_half(ext.copy(), plan_u.n_grid, pad, inplace=True)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    ("algorithm", "params", "device"),
    [("ducc", None, "cpu"), ("conv", GridParams(wstack=True), "cpu"), ("conv", None, "gpu"),
     ("dft", None, "cpu")],
)  # fmt: skip
def test_algorithms_without_a_grid_split_keep_image_parts(algorithm, params, device):
    assert not grids_in_parts(algorithm, params, device)
    if device == "cpu":
        with pytest.raises(ValueError, match="not gridded in parts"):
            empty_grid(SPEC, algorithm, params)


def test_banded_bincount_equals_one_bincount_for_several_sums():
    """Several bands (a grid over BLOCK_CELLS), several sums over one idx: bitwise equal."""
    from uvlab.gpu.blocks import BLOCK_CELLS
    from uvlab.gpu.gridders.separable import banded_bincount

    rng = np.random.default_rng(3)
    size = 2 * BLOCK_CELLS + 17
    idx = rng.integers(0, size, 200_000)
    idx[:5000] = size - 1  # many records in one cell: their order decides the rounding
    w1, w2 = rng.normal(size=idx.size), rng.normal(size=idx.size) * 1e8
    grid = np.zeros(size, dtype=np.complex128)
    banded_bincount(idx, [w1, w2], [grid.real, grid.imag])
    np.testing.assert_array_equal(grid.real, np.bincount(idx, w1, minlength=size))
    np.testing.assert_array_equal(grid.imag, np.bincount(idx, w2, minlength=size))
