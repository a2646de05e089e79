"""Images made in parts (gpu/imaging/parts.py) equal one image of all the data.

Oracle: :func:`make_image` of all the data at once (itself tested against the DFT), for
one-row, uneven and single-part splits, natural, uniform and Briggs weighting (with a
taper), and every catalogue algorithm.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from tests.support.parts_data import SPEC, data, split
from uvlab.gpu.gridders.registry import NAMES
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.parts import (
    PartImage,
    image_part,
)
from uvlab.gpu.imaging.weighting import Weighting


def in_parts(bounds, weighting, algorithm="conv", **kw):
    parts, totals = split(bounds, weighting)
    images = [image_part(*p, SPEC, weighting, totals, algorithm=algorithm, **kw)
              for p in parts]  # fmt: skip
    return functools.reduce(PartImage.__add__, images)


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


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: f"{w.scheme}{w.robust:+}")
def test_the_parts_sum_to_the_whole_image(split, weighting):
    uvw, freq, vis, weight, flag = data()
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=weighting,
                      device="cpu")  # fmt: skip
    total = in_parts(SPLITS[split], weighting, device="cpu")
    dirty, psf = total.normalised()
    assert total.sum_weights == pytest.approx(want.sum_weights, rel=1e-12)
    assert total.nvis == want.nvis
    np.testing.assert_allclose(dirty, want.dirty, rtol=0, atol=1e-12 * np.abs(want.dirty).max())
    np.testing.assert_allclose(psf, want.psf, rtol=0, atol=1e-12)


def test_density_from_one_part_alone_would_differ():
    """The first pass matters: a part weighted on its own density is another image."""
    uvw, freq, vis, weight, flag = data()
    wt = Weighting("uniform")
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=wt, device="cpu")
    own = [make_image(uvw[p], freq, vis[p], weight[p], SPEC, flag=flag[p], weighting=wt,
                      device="cpu") for p in (slice(0, 30), slice(30, 60))]  # fmt: skip
    summed = sum(r.dirty * r.sum_weights for r in own) / sum(r.sum_weights for r in own)
    assert np.abs(summed - want.dirty).max() > 1e-3 * np.abs(want.dirty).max()


@pytest.mark.parametrize("algorithm", [a for a in NAMES if a != "dft"])
def test_every_algorithm_images_in_parts(algorithm):
    uvw, freq, vis, weight, flag = data()
    wt = Weighting("briggs", 0.0)
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=wt, algorithm=algorithm,
                      device="cpu")  # fmt: skip
    dirty, psf = in_parts(SPLITS["uneven"], wt, algorithm=algorithm, device="cpu").normalised()
    np.testing.assert_allclose(dirty, want.dirty, atol=1e-9 * np.abs(want.dirty).max())
    np.testing.assert_allclose(psf, want.psf, atol=1e-9)


def test_uniform_without_totals_is_refused():
    uvw, freq, vis, weight, flag = data()
    with pytest.raises(ValueError, match="density totals"):
        image_part(uvw, freq, vis, weight, flag, SPEC, Weighting("uniform"))


@pytest.mark.gpu
def test_parts_on_the_gpu_sum_to_the_cpu_image():
    uvw, freq, vis, weight, flag = data()
    wt = Weighting("uniform")
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=wt, device="cpu",
                      algorithm="dft")  # fmt: skip
    dirty, psf = in_parts(SPLITS["uneven"], wt, algorithm="dft", device="gpu").normalised()
    np.testing.assert_allclose(dirty, want.dirty, atol=1e-10 * np.abs(want.dirty).max())
    np.testing.assert_allclose(psf, want.psf, atol=1e-10)


@pytest.mark.gpu
def test_parts_kept_on_the_device_sum_there_to_the_cpu_image():
    """``on_device``: each part's images are CuPy arrays, added in device memory in place
    (a GPU worker's chain), and the sum brought to the host once equals the CPU image."""
    cupy = pytest.importorskip("cupy")
    uvw, freq, vis, weight, flag = data()
    wt = Weighting("briggs", 0.0)
    want = make_image(uvw, freq, vis, weight, SPEC, flag=flag, weighting=wt, device="cpu",
                      algorithm="dft")  # fmt: skip
    parts, totals = split(SPLITS["uneven"], wt)
    total = None
    for p in parts:
        part = image_part(*p, SPEC, wt, totals, algorithm="dft", device="gpu", on_device=True)
        made = [a for a in (part.dirty, part.psf) if a is not None]  # None: nothing usable
        assert all(isinstance(a, cupy.ndarray) for a in made)
        if total is None:
            total = part
        else:
            total += part
    host = total.on_host()
    assert isinstance(host.dirty, np.ndarray) and host.on_host() is host
    dirty, psf = host.normalised()
    np.testing.assert_allclose(dirty, want.dirty, atol=1e-10 * np.abs(want.dirty).max())
    np.testing.assert_allclose(psf, want.psf, atol=1e-10)


@pytest.mark.gpu
def test_density_counts_and_weights_made_on_the_gpu_equal_the_cpu_ones():
    """``device="gpu"``: each part's counts are added into one CuPy grid (a GPU worker's
    chain), and each part's imaging weights are made on the device from the totals' one
    device copy; both equal the CPU's (the counts to rounding: the device adds them in
    another order)."""
    cupy = pytest.importorskip("cupy")
    from uvlab.gpu.imaging.parts import density_totals, part_counts, part_weights, to_device

    wt = Weighting("briggs", -0.5)
    parts, want_totals = split(SPLITS["uneven"], wt)
    acc = None
    for p in parts:
        acc = part_counts(*p, SPEC, wt, acc, device="gpu")
    assert isinstance(acc, cupy.ndarray)
    totals = density_totals(acc.get())
    np.testing.assert_allclose(totals.grid, want_totals.grid, rtol=1e-12, atol=1e-12)
    assert totals.mean == pytest.approx(want_totals.mean, rel=1e-12)
    for p in parts:
        want = part_weights(*p, SPEC, wt, want_totals)
        _, dev = to_device("gpu", *p)
        got = part_weights(*dev, SPEC, wt, totals)
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_allclose(got.get(), want, rtol=1e-12, atol=0)
    assert totals.cells_in(cupy) is totals.cells_in(cupy)  # one device copy, kept


def test_density_totals_travel_without_their_device_copy():
    """A worker's device copy of the grid (:meth:`DensityTotals.cells_in`) is not part of
    what is sent to another worker: only the host grid and the mean are."""
    import pickle

    from uvlab.gpu.imaging.parts import density_totals

    class FakeDevice:  # stands for CuPy: a module whose asarray makes a copy of its own
        asarray = staticmethod(lambda a: np.array(a, copy=True))

    totals = density_totals(np.arange(16.0))
    kept = totals.cells_in(FakeDevice)
    assert kept is totals.cells_in(FakeDevice) and kept is not totals.grid
    sent = pickle.loads(pickle.dumps(totals))
    assert "_device" not in vars(sent)
    np.testing.assert_array_equal(sent.grid, totals.grid)
    assert sent.mean == totals.mean


def test_counts_sent_as_bands_give_the_whole_grids_totals():
    """What a worker sends of its counts is the band of rows holding any
    (:class:`CountsBand`); bands of uneven parts add, and the totals made from their sum —
    a symmetric band of the mirrored grid — look up, at every sample, the density of the
    whole (2N)² grid, with the same Briggs mean; outside the band they look up 0."""
    from uvlab.gpu.imaging.parts import CountsBand, density_totals, part_counts
    from uvlab.gpu.imaging.reuse import select_samples
    from uvlab.gpu.imaging.weighting import lookup_density, mean_density, mirrored

    wt = Weighting("briggs", 0.0)
    uvw, freq, vis, weight, flag = data()
    uvw[:, 1] *= 0.2  # v within a fifth of u's range: a band well short of the grid
    pieces = [(uvw[a:b], freq, vis[a:b], weight[a:b], flag[a:b]) for a, b in ((0, 9), (9, 60))]
    counts = [part_counts(*p, SPEC, wt) for p in pieces]
    bands = [CountsBand.of(c) for c in counts]
    whole = counts[0] + counts[1]
    totals = density_totals(bands[0] + bands[1])
    side = 2 * SPEC.npix
    assert 0 < totals.grid.size < side * side and totals.first_row > 0
    np.testing.assert_array_equal((bands[0] + bands[1]).whole(), whole)
    s = select_samples(uvw, freq, weight, flag, vis=vis)
    dspec = wt.density_spec(SPEC)
    want = lookup_density(mirrored(whole), s.u, s.v, dspec)
    np.testing.assert_allclose(totals.looked_up(s.u, s.v, dspec), want, rtol=1e-15, atol=0)
    assert totals.mean == pytest.approx(mean_density(whole), rel=1e-13)
    far = np.array([0.0]), np.array([0.9 / SPEC.cell_rad])  # v at 0.9 N cells
    assert totals.looked_up(*far, dspec)[0] == 0.0  # a cell beyond the band
