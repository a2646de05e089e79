"""Images reusing an ImagingCache: against the float64 DFT, ducc0's w-gridder and fresh runs.

Each thing the cache keeps (samples, density, weights, NUFFT plan, PSF) is
checked by changing every input it depends on, with the same cache: the image
must change, and equal a run with no cache at all.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.imaging_data import FREQ, NATURAL, PARAMS, Data, channel_uv, make_data  # noqa: F401
from tests.support.oracles import dft_image
from uvlab.gpu import ducc_engine
from uvlab.gpu.aliasing import error_map
from uvlab.gpu.gridders.ducc import dirty as dirty_ducc
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.reuse import ImagingCache, fingerprint, select_samples
from uvlab.gpu.imaging.weighting import Weighting


@pytest.fixture(scope="module")
def data() -> Data:
    return make_data()


def test_ducc_nufft_matches_the_dft_and_ducc0_wgridder(data):
    """The lab's ducc (ducc0's NUFFT, dirty and PSF in one pass) at ε = 1e-6."""
    res = data.image(ImagingCache())
    cu, cv = channel_uv(data.uvw, data.freq)
    u, v, vis = cu.ravel(), cv.ravel(), data.vis.ravel()
    for got, wvis in ((res.dirty, vis), (res.psf, np.ones_like(vis))):
        ref = dft_image(u, v, wvis, data.spec) / u.size
        _, met = error_map(got, ref)
        assert met["rms_central"] <= 1e-5 and met["rms_full"] <= 1e-5
        other = ducc_engine.dirty_image(u, v, wvis, 64, data.spec.cell_rad, 1e-7) / u.size
        assert np.sqrt(np.mean((got - other) ** 2)) <= 1e-5 * np.sqrt(np.mean(other**2))
    assert res.psf.max() == pytest.approx(1.0, abs=1e-6)
    assert res.nvis == u.size and res.sum_weights == u.size


def test_dirty_and_psf_in_one_pass_equal_two_passes(data, rng):
    spec = data.spec
    u, v = rng.normal(0, 0.3 / spec.cell_rad, (2, 5000))
    wvis = rng.normal(size=(2, 5000)) + 1j * rng.normal(size=(2, 5000))
    params = GridParams.from_eps(1e-6)
    both = dirty_ducc(u, v, wvis, spec, params)
    for k in range(2):
        one = dirty_ducc(u, v, wvis[k], spec, params)
        np.testing.assert_allclose(both[k], one, rtol=0, atol=1e-12 * np.abs(one).max())
        ref = dft_image(u, v, wvis[k], spec)
        assert np.abs(one - ref).max() <= 1e-5 * np.abs(ref).max()


def test_all_samples_and_gathered_samples_are_the_same_numbers(data):
    """select_samples' two paths (every entry used, or some dropped) agree exactly."""
    every = select_samples(data.uvw, data.freq, 1.0, data.flag)
    flag = data.flag.copy()
    flag[5] = True
    some = select_samples(data.uvw, data.freq, 1.0, flag)
    keep = np.ones(every.shape, bool)
    keep[5] = False
    assert every.index is None and some.index.size == keep.sum()
    for a, b in ((every.u, some.u), (every.v, some.v), (every.w, some.w)):
        np.testing.assert_array_equal(a[keep.ravel()], b)
    np.testing.assert_array_equal(some.take(data.vis), data.vis[keep])


def other_uvw(d: Data) -> Data:
    uvw = d.uvw.copy()
    uvw[:, :2] = uvw[:, :2] @ np.array([[0.8, 0.6], [-0.6, 0.8]])  # rotated tracks
    return replace(d, uvw=uvw)


def flag_rows(d: Data) -> Data:
    flag = d.flag.copy()
    flag[::3] = True
    return replace(d, flag=flag)


def random_weight(d: Data) -> Data:
    w = np.random.default_rng(5).uniform(0.2, 2.0, d.vis.shape)
    return replace(d, weight=w)


#: (name, change, what the cache reuses after it)
CHANGES = [
    (
        "vis",
        lambda d: replace(d, vis=d.vis * np.exp(0.3j) + 0.5),
        {"samples", "weights", "plan", "psf"},
    ),
    ("uvw", other_uvw, set()),
    ("freq", lambda d: replace(d, freq=d.freq * 1.05), set()),
    ("weight", random_weight, set()),
    ("flag", flag_rows, set()),
    (
        "uniform",
        lambda d: replace(d, weighting=Weighting("uniform")),
        {"samples", "density", "plan"},
    ),
    (
        "robust",
        lambda d: replace(d, weighting=Weighting("briggs", 0.5)),
        {"samples", "density", "plan"},
    ),
    (
        "taper",
        lambda d: replace(d, weighting=Weighting("briggs", taper_arcsec=30.0)),
        {"samples", "density", "plan"},
    ),
    ("cell", lambda d: replace(d, spec=ImageSpec(64, d.spec.cell_rad * 0.8)), {"samples"}),
    ("npix", lambda d: replace(d, spec=ImageSpec(96, d.spec.cell_rad)), {"samples"}),
    ("eps", lambda d: replace(d, params=d.params.with_(eps=1e-3)), {"samples", "weights"}),
    ("sigma", lambda d: replace(d, params=d.params.with_(sigma=2.5)), {"samples", "weights"}),
    ("algorithm", lambda d: replace(d, algorithm="nn"), {"samples", "weights"}),
]


@pytest.mark.parametrize(("name", "change", "reused"), CHANGES, ids=[c[0] for c in CHANGES])
def test_a_changed_input_gives_the_fresh_image(data, name, change, reused):
    base = replace(data, weighting=Weighting("briggs"))  # the density takes part
    cache = ImagingCache()
    before = base.image(cache)
    changed = change(base)
    after = changed.image(cache)
    fresh = changed.image()  # no cache
    for got, want in ((after.dirty, fresh.dirty), (after.psf, fresh.psf)):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    assert after.sum_weights == pytest.approx(fresh.sum_weights, rel=1e-14)
    assert after.nvis == fresh.nvis
    assert {k for k, n in cache.hits.items() if n} == reused
    if before.dirty.shape == after.dirty.shape:  # the change shows in the image (and PSF)
        assert np.abs(after.dirty - before.dirty).max() > 1e-9 * np.abs(before.dirty).max()
        psf_change = np.abs(after.psf - before.psf).max()
        assert psf_change == 0 if name == "vis" else psf_change > 1e-9


def test_the_same_request_reuses_everything_and_uvw_changed_in_place_is_seen(data):
    d = replace(data, uvw=data.uvw.copy(), weighting=Weighting("briggs", 0.0))
    cache = ImagingCache()
    first = d.image(cache)
    again = d.image(cache)
    assert set(cache.hits) == {"samples", "weights", "plan", "psf"}
    np.testing.assert_array_equal(again.dirty, first.dirty)
    d.uvw[:, 1] *= -1.0  # the same array, other values
    moved = d.image(cache)
    fresh = replace(d, uvw=d.uvw.copy()).image()
    np.testing.assert_allclose(moved.dirty, fresh.dirty, rtol=0, atol=1e-12)
    assert np.abs(moved.dirty - first.dirty).max() > 1e-3


def test_threads_rebuild_the_plan_but_keep_the_psf(data):
    cache = ImagingCache()
    one = data.image(cache)
    two = replace(data, params=data.params.with_(threads=2)).image(cache)
    assert cache.hits.get("plan", 0) == 0 and cache.hits["psf"] == 1
    np.testing.assert_allclose(two.dirty, one.dirty, rtol=0, atol=1e-13)


def test_nonfinite_visibilities_are_dropped_and_nothing_is_kept_for_them(data):
    bad = data.vis.copy()
    bad[7, 1] = np.nan
    bad[11, 0] = np.inf
    cache = ImagingCache()
    data.image(cache)  # the finite data's samples and PSF are kept
    got = replace(data, vis=bad).image(cache)
    flag = np.zeros(bad.shape, bool)
    flag[7, 1] = flag[11, 0] = True
    want = replace(data, vis=np.where(flag, 0, bad), flag=flag).image()
    np.testing.assert_allclose(got.dirty, want.dirty, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.psf, want.psf, rtol=0, atol=1e-12)
    assert got.nvis == data.vis.size - 2
    # the finite data again: their own PSF, not the one without the two samples
    again = data.image(cache)
    fresh = data.image()
    np.testing.assert_allclose(again.psf, fresh.psf, rtol=0, atol=1e-12)


def test_fingerprint_sees_values_shapes_and_dtypes():
    a = np.arange(6.0)
    assert fingerprint(a, None, 1.0) == fingerprint(a.copy(), None, 1.0)
    b = a.copy()
    b[3] += 1e-12
    assert fingerprint(b) != fingerprint(a)
    assert fingerprint(a.reshape(2, 3)) != fingerprint(a)
    assert fingerprint(a.astype(np.float32)) != fingerprint(a)
    assert fingerprint(None, a) != fingerprint(a, None)
