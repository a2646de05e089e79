"""ducc's parts added in one NUFFT per worker (gpu/imaging/nufft_parts.py) finish into the
one-process image.

Oracles: :func:`make_image` of all the data at once with ``ducc`` (ducc0's two-transform
plan; itself tested against the DFT), for one-row, uneven and single-part splits over two
workers' chains, natural, uniform and Briggs weighting, each product alone and both; and the
float64 direct DFT (the catalogue's ``dft``) to ducc0's ε.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tests.support.parts_data import SPEC, data, split
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.nufft_parts import finish_nufft, nufft_in_parts, nufft_part
from uvlab.gpu.imaging.weighting import Weighting

pytest.importorskip("ducc0")

SPLITS = {"one row each": list(range(61)), "uneven": [0, 7, 8, 30, 59, 60], "one part": [0, 60]}
WEIGHTINGS = [Weighting("natural"), Weighting("uniform"), Weighting("briggs", -0.5)]


def nufft_in_chains(bounds, weighting, params=None, **products):
    """The parts added two chains at a time (as two workers do), each chain finished, the
    images added."""
    parts, totals = split(bounds, weighting)
    npoints = data()[2].size  # what ducc0 is told to expect: every sample of the selection
    chains = [None, None]
    for k, p in enumerate(parts):
        chains[k % 2] = nufft_part(*p, SPEC, weighting, totals, params=params,
                                   npoints=npoints, into=chains[k % 2], **products)  # fmt: skip
    images = [finish_nufft(c) for c in chains if c is not None]
    return images[0] if len(images) == 1 else images[0] + images[1]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: f"{w.scheme}{w.robust:+}")
def test_the_parts_finish_into_the_one_process_image(split, weighting):
    uvw, freq, vis, weight, flag = data()
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=weighting,
                      algorithm="ducc", device="cpu")  # fmt: skip
    total = nufft_in_chains(SPLITS[split], weighting)
    dirty, psf = total.normalised()
    assert total.sum_weights == pytest.approx(want.sum_weights, rel=1e-12)
    assert total.nvis == want.nvis
    peak = np.abs(want.dirty).max()
    np.testing.assert_allclose(dirty, want.dirty, rtol=0, atol=1e-12 * peak)
    np.testing.assert_allclose(psf, want.psf, rtol=0, atol=1e-12)


@pytest.mark.parametrize("products", [dict(psf=False), dict(dirty=False)], ids=["dirty", "psf"])
def test_one_product_alone_is_the_same_image(products):
    wt = Weighting("briggs", 0.0)
    both = nufft_in_chains(SPLITS["uneven"], wt)
    alone = nufft_in_chains(SPLITS["uneven"], wt, **products)
    kept = "dirty" if products.get("psf") is False else "psf"
    assert getattr(alone, "psf" if kept == "dirty" else "dirty") is None
    want = getattr(both, kept)
    np.testing.assert_allclose(getattr(alone, kept), want, rtol=0,
                               atol=1e-12 * np.abs(want).max())  # fmt: skip


def test_the_image_is_the_direct_sum_to_ducc0s_accuracy():
    uvw, freq, vis, weight, flag = data()
    wt = Weighting("natural")
    eps = 1e-7
    total = nufft_in_chains(SPLITS["uneven"], wt, params=GridParams(eps=eps))
    dirty, psf = total.normalised()
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=wt, algorithm="dft",
                      device="cpu")  # fmt: skip
    assert np.abs(dirty - want.dirty).max() < 10 * eps * np.abs(want.dirty).max()
    assert np.abs(psf - want.psf).max() < 10 * eps
    assert np.abs(dirty - want.dirty).max() > 0  # ducc0's, not a copy of the DFT


def test_a_part_with_nothing_usable_finishes_empty_and_stays_on_its_worker():
    uvw, freq, vis, weight, flag = data()
    acc = nufft_part(uvw[7:8], freq, vis[7:8], weight[7:8], flag[7:8], SPEC, Weighting(),
                     npoints=vis.size)  # fmt: skip
    empty = finish_nufft(acc)
    assert (empty.dirty, empty.psf, empty.nvis) == (None, None, 0)
    acc = nufft_part(uvw, freq, vis, weight, flag, SPEC, Weighting(), npoints=vis.size)
    with pytest.raises(TypeError, match="stays on its worker"):
        pickle.dumps(acc)


def test_which_algorithms_add_in_a_nufft():
    assert nufft_in_parts("ducc")
    assert not nufft_in_parts("ducc", GridParams(wstack=True))  # the w-gridder's images
    assert not nufft_in_parts("conv") and not nufft_in_parts("dft")
    assert not nufft_in_parts("ducc", device="gpu")
