"""Caller-named data in the ImagingCache (make_image's data_key and vis_key), CPU and GPU.

Oracle: the same image made with no cache at all (itself checked against the
float64 DFT in test_reuse.py), and the CPU image for the GPU's.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.support.imaging_data import Data, make_data
from uvlab.gpu.imaging import reuse
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.reuse import ImagingCache
from uvlab.gpu.imaging.weighting import Weighting


@pytest.fixture(scope="module")
def data() -> Data:
    return make_data()


def image(d: Data, device: str, cache=None, data_key=None, vis_key=None):
    return make_image(
        d.uvw, d.freq, d.vis, d.weight, d.spec, flag=d.flag, weighting=d.weighting,
        algorithm=d.algorithm, params=d.params, device=device, cache=cache,
        data_key=data_key, vis_key=vis_key,
    )  # fmt: skip


def assert_same(a, b, atol=1e-12):
    scale = np.abs(b.dirty).max()
    np.testing.assert_allclose(a.dirty, b.dirty, rtol=0, atol=atol * scale)
    np.testing.assert_allclose(a.psf, b.psf, rtol=0, atol=atol)
    assert a.sum_weights == pytest.approx(b.sum_weights, rel=1e-12)


def test_a_data_key_replaces_the_fingerprint_on_the_cpu(data, monkeypatch):
    briggs = replace(data, weighting=Weighting("briggs", 0.0))
    other = replace(data, uvw=data.uvw * 1.1)
    fresh = [image(d, "cpu") for d in (data, briggs, other)]  # no cache: the references
    cache = ImagingCache()
    monkeypatch.setattr(reuse, "fingerprint", lambda *a: pytest.fail("fingerprinted"))
    assert_same(image(data, "cpu", cache, data_key="obs-1"), fresh[0])
    assert_same(image(briggs, "cpu", cache, data_key="obs-1"), fresh[1])
    assert cache.hits["samples"] == 1
    assert_same(image(other, "cpu", cache, data_key="obs-2"), fresh[2])  # selected anew
    assert cache.hits["samples"] == 1


@pytest.mark.gpu
def test_gpu_keeps_samples_and_visibilities_on_the_device_under_their_names(data):
    cache = ImagingCache()
    first = image(data, "gpu", cache, "obs", "vis-1")
    assert_same(first, image(data, "gpu"))  # no cache, nothing named
    assert_same(first, image(data, "cpu"), atol=1e-6)  # ε = 1e-6 both
    again = image(data, "gpu", cache, "obs", "vis-1")
    assert {k: cache.hits.get(k) for k in ("samples", "vis", "weights")} == dict.fromkeys(
        ("samples", "vis", "weights"), 1
    ) and cache.hits["psf"] == 1
    assert_same(again, first)  # atomics: the same sums to rounding
    assert again.timing["host→device"] < first.timing["host→device"]
    briggs = replace(data, weighting=Weighting("briggs", 0.5))
    assert_same(image(briggs, "gpu", cache, "obs", "vis-1"), image(briggs, "gpu"))
    assert cache.hits["samples"] == 2 and cache.hits["vis"] == 2
    new_vis = replace(data, vis=data.vis * np.exp(0.4j) + 0.3)  # a new prediction, a new name
    assert_same(image(new_vis, "gpu", cache, "obs", "vis-2"), image(new_vis, "gpu"))
    assert cache.hits["vis"] == 2
    bad = data.vis.copy()
    bad[3, 1] = np.nan  # non-finite: dropped, as without the cache
    named = image(replace(data, vis=bad), "gpu", cache, "obs", "vis-3")
    assert_same(named, image(replace(data, vis=bad), "gpu"))
    assert named.nvis == data.vis.size - 1
