"""Several ``--pol`` products from one read of each chunk (app/scale/products.py, issue 27).

Oracles: :func:`read_visibilities` of each product alone, and :func:`make_image` of each
product's whole selection read at once (itself tested against the DFT and tclean), for
one-row, uneven and single-chunk splits, natural and Briggs weighting, on the grid, NUFFT
and image sums; the bytes of the grids a chain of several products really holds.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.ms_factory import make_ms
from uvlab.app.ms.reader import read_products, read_visibilities
from uvlab.app.scale.ms_image import MSRead, image_ms, row_chunks
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.weighting import Weighting

SPEC = ImageSpec(32, 2.0e-4)
IQUV = ("I", "Q", "U", "V")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("products") / "obs.ms"
    make_ms(path, np.random.default_rng(7), spw_nchan=(4,), ntime=2, nant=4, flag_rows=(3,))
    return str(path)


def whole(path, product, weighting, **kw):
    vd = read_visibilities(path, stokes=product)
    return make_image(vd.uvw, vd.freq_hz, vd.vis, vd.weight, SPEC, flag=vd.flag,
                      weighting=weighting, device="cpu", **kw)  # fmt: skip


def test_one_read_forms_each_product_as_its_own_read_does(ms, tmp_path):
    got = read_products(ms, (*IQUV, "XY"), row_range=(3, 10))
    for product, vd in zip((*IQUV, "XY"), got, strict=True):
        one = read_visibilities(ms, stokes=product, row_range=(3, 10))
        assert vd.stokes == one.stokes == product
        for name in ("vis", "weight", "flag", "uvw", "time", "rows"):
            np.testing.assert_array_equal(getattr(vd, name), getattr(one, name))


def test_non_finite_values_are_counted_for_each_product(tmp_path):
    """A NaN in XY only: flagged in U and V (which use XY), not in I and Q."""
    from casacore import tables

    path = tmp_path / "nan.ms"
    make_ms(path, np.random.default_rng(3), ntime=2, nant=3, flag_fraction=0.0)
    with tables.table(str(path), readonly=False, ack=False) as t:
        data = t.getcol("DATA")
        row = int(np.flatnonzero(t.getcol("ANTENNA1") != t.getcol("ANTENNA2"))[0])
        data[row, 1, 1] = np.nan
        t.putcol("DATA", data)
    got = read_products(str(path), IQUV)
    for product, vd in zip(IQUV, got, strict=True):
        one = read_visibilities(str(path), stokes=product)
        assert vd.nonfinite_vis_samples == one.nonfinite_vis_samples
        np.testing.assert_array_equal(vd.flag, one.flag)
        np.testing.assert_array_equal(vd.vis, one.vis)
    assert [vd.nonfinite_vis_samples for vd in got] == [0, 0, 1, 1]


@pytest.mark.parametrize("rows", [1, 5, 10_000], ids=["one-row", "uneven", "one-chunk"])
@pytest.mark.parametrize(
    "weighting", [Weighting("natural"), Weighting("briggs", 0.5)], ids=lambda w: w.scheme
)
def test_each_product_equals_its_whole_image(client, ms, rows, weighting):
    got = image_ms(client, MSRead(ms, products=IQUV), SPEC, weighting, chunk_rows=rows)
    assert len(got) == len(IQUV)
    nchunks = len(row_chunks(MSRead(ms).count(), rows))
    for product, image in zip(IQUV, got, strict=True):
        want = whole(ms, product, weighting)
        assert image.chunks == nchunks and image.nvis == want.nvis
        assert image.sum_weights == pytest.approx(want.sum_weights, rel=1e-12)
        np.testing.assert_allclose(image.dirty, want.dirty, atol=1e-12 * np.abs(want.dirty).max())
        np.testing.assert_allclose(image.psf, want.psf, atol=1e-12)


@pytest.mark.parametrize(("algorithm", "summed"), [("ducc", "nufft"), ("dft", "images")])
def test_nufft_and_image_sums_of_each_product(client, ms, algorithm, summed):
    wt = Weighting("briggs", -0.5)
    pols = ("XX", "V")
    got = image_ms(client, MSRead(ms, products=pols), SPEC, wt, chunk_rows=5,
                   algorithm=algorithm)  # fmt: skip
    for product, image in zip(pols, got, strict=True):
        want = whole(ms, product, wt, algorithm=algorithm)
        assert image.summed == summed and image.nvis == want.nvis
        np.testing.assert_allclose(image.dirty, want.dirty, atol=1e-10 * np.abs(want.dirty).max())
        np.testing.assert_allclose(image.psf, want.psf, atol=1e-10)


def test_a_chains_grids_are_counted_once_per_product(ms):
    """What a worker's chain holds for two products (one grid pair each, read from one
    chunk) is within :func:`for_products`' fixed part, and more than one product's."""
    from uvlab.app.scale.budget import for_products, grid_costs
    from uvlab.app.scale.ms_image import _grid
    from uvlab.app.scale.products import each_fold

    source = MSRead(ms, products=("I", "V"))
    wt = Weighting("natural")
    acc = each_fold(_grid, (source, (0, 5)), None, spec=SPEC, weighting=wt, totals=None,
                    algorithm="conv", params=None, psf=True)  # fmt: skip
    held = sum(g.nbytes for g in acc)
    one = grid_costs(SPEC.npix, "conv")
    two = for_products(one, 2, SPEC.npix)
    assert two.fixed - two.shared >= held > one.fixed - one.shared
    assert two.shared == one.shared  # the worker's overhead once
    assert two.per_sample > one.per_sample and two.finish > one.finish
    assert replace(one) == for_products(one, 1, SPEC.npix)


def test_a_workers_share_holds_fewer_rows_for_more_products():
    """The same share: four products' grids and samples leave room for fewer rows, and a
    share that holds one product's grids but not four is refused for four."""
    from uvlab.app.scale.budget import BudgetError, chunk_rows, for_products, grid_costs

    one = grid_costs(256, "conv")
    four = for_products(one, 4, 256)
    share = 4 * one.fixed
    rows_one = chunk_rows(share, 16, 4, one.fixed, grid=one).rows
    rows_four = chunk_rows(share, 16, 4, four.fixed, grid=four).rows
    assert 0 < rows_four < rows_one
    tight = one.fixed + one.finish + 2**20  # one product's grids and finish, and 1 MiB
    assert chunk_rows(tight, 16, 4, one.fixed, grid=one).rows > 0
    with pytest.raises(BudgetError, match="per worker"):
        chunk_rows(tight, 16, 4, four.fixed, grid=four)
