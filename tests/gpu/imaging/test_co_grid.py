"""The dirty image and the PSF in one pass for the separable gridders (gpu/imaging/co_grid.py).

Oracles: the same imager making them in two passes (each grid receives the same products
in the same order: the same bits), and the float64 direct sums for the PSF.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import dft_image
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging import co_grid
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.weighting import Weighting

SPEC = ImageSpec(48, 20.0 * ARCSEC)
FREQ = np.array([1.0e9, 1.2e9, 1.4e9])
CASES = {
    "conv": GridParams.from_eps(1e-7),
    "nn-oversampled": GridParams(oversample=4),
    "pruned-nn": GridParams(oversample=4),
}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    nrow = 900
    uvw = rng.normal(0, 250, (nrow, 3))
    vis = rng.normal(size=(nrow, FREQ.size)) + 1j * rng.normal(size=(nrow, FREQ.size))
    weight = rng.uniform(0.5, 1.0, (nrow, FREQ.size))
    flag = rng.uniform(size=(nrow, FREQ.size)) < 0.05
    return uvw, vis, weight, flag


@pytest.mark.parametrize("scheme", ["natural", "uniform"])
@pytest.mark.parametrize("name", list(CASES))
def test_one_pass_makes_the_two_passes_images(data, monkeypatch, name, scheme):
    uvw, vis, weight, flag = data
    calls = []
    one_pass = co_grid.dirty_and_psf
    monkeypatch.setattr(
        co_grid, "dirty_and_psf", lambda *a, **k: calls.append(1) or one_pass(*a, **k)
    )
    kw = dict(flag=flag, algorithm=name, params=CASES[name], weighting=Weighting(scheme))
    one = make_image(uvw, FREQ, vis, weight, SPEC, **kw)
    assert calls == [1]
    monkeypatch.setattr(co_grid, "co_grids", lambda *a: False)
    two = make_image(uvw, FREQ, vis, weight, SPEC, **kw)
    assert calls == [1]
    np.testing.assert_array_equal(one.dirty, two.dirty)
    np.testing.assert_array_equal(one.psf, two.psf)


def test_the_one_pass_psf_is_the_direct_sum(data):
    uvw, vis, weight, flag = data
    img = make_image(uvw, FREQ, vis, weight, SPEC, flag=flag, algorithm="conv",
                     params=CASES["conv"])  # fmt: skip
    keep = ~flag
    lam = FREQ / 299792458.0
    u = (uvw[:, :1] * lam)[keep]
    v = (uvw[:, 1:2] * lam)[keep]
    w = weight[keep]
    want = dft_image(u, v, w + 0j, SPEC) / w.sum()
    assert np.abs(img.psf - want).max() <= 1e-6


def test_compressed_records_keep_two_passes():
    assert co_grid.co_grids("conv", GridParams())
    assert not co_grid.co_grids("conv", GridParams(compress=True))
    assert not co_grid.co_grids("conv", GridParams(wstack=True))
    assert not co_grid.co_grids("ducc", GridParams())
