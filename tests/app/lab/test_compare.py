"""The one comparison loop (iter_comparison): entries, chunked references, progress."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.app.errors import Cancelled
from uvlab.app.lab.compare import (
    DFT_BUDGET,
    Entry,
    compare_algorithms,
    drain,
    iter_comparison,
)
from uvlab.app.lab.jobs import Progress
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.imaging.spec import ImageSpec

C = 299792458.0


@pytest.fixture(scope="module")
def data():
    """Random uv coverage, 1 channel, two point sources (one off-pixel)."""
    rng = np.random.default_rng(11)
    nrow, freq = 2000, np.array([1.0e9])
    r = 2000.0 * np.sqrt(rng.random(nrow))
    phi = rng.uniform(0, 2 * np.pi, nrow)
    uvw = np.stack([r * np.cos(phi), r * np.sin(phi), np.zeros(nrow)], axis=1)
    spec = ImageSpec(32, 1.0 / (3 * 2000 * freq[0] / C))
    u, v = uvw[:, 0] * freq[0] / C, uvw[:, 1] * freq[0] / C
    vis = np.exp(2j * np.pi * (u * 3.4 * spec.cell_rad - v * 5.7 * spec.cell_rad)) + 0.5
    return uvw, freq, vis[:, None], spec


def test_a_chunked_reference_is_the_one_call_reference(data):
    uvw, freq, vis, spec = data
    entries = [Entry("nn", "nn"), Entry("conv", "conv", GridParams.from_eps(1e-6, threads=1))]
    one = drain(iter_comparison(uvw, freq, vis, 1.0, spec, entries, device="cpu"))
    events = list(iter_comparison(uvw, freq, vis, 1.0, spec, entries, device="cpu", chunk_work=1e5))
    assert all(isinstance(e, Progress) for e in events)
    fractions = [e.fraction for e in events]
    assert fractions == sorted(fractions) and fractions[0] == 0 and fractions[-1] == 1
    assert sum(e.stage == "DFT reference" for e in events) >= 1 + 32**2 * 2000 // 1e5
    chunked = drain(
        iter_comparison(uvw, freq, vis, 1.0, spec, entries, device="cpu", chunk_work=1e5)
    )
    np.testing.assert_allclose(chunked.reference, one.reference, rtol=0, atol=1e-14)
    assert list(chunked.results) == ["nn", "conv"] and chunked.step == one.step == 1
    for label in ("nn", "conv"):
        np.testing.assert_array_equal(chunked.results[label].image, one.results[label].image)


def test_each_entry_keeps_its_parameters_and_padding(data):
    uvw, freq, vis, spec = data
    loose, tight = GridParams.from_eps(1e-3, threads=1), GridParams.from_eps(1e-7, threads=1)
    cmp = drain(
        iter_comparison(
            uvw,
            freq,
            vis,
            1.0,
            spec,
            [
                Entry("loose", "conv", loose),
                Entry("tight", "conv", tight),
                Entry("tight σ=1.5", "conv", tight, ImageSpec(spec.npix, spec.cell_rad, 1.5)),
            ],
            device="cpu",
        )
    )
    rms = {label: r.metrics["rms_full"] for label, r in cmp.results.items()}
    assert rms["tight"] < rms["loose"] / 100 and rms["tight σ=1.5"] < rms["loose"]
    # the names of compare_algorithms are one entry each, sharing its parameters
    same = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["conv"], params=tight)
    np.testing.assert_array_equal(same.results["conv"].image, cmp.results["tight"].image)


def test_the_dft_budget_is_one_value_per_device(data, monkeypatch):
    uvw, freq, vis, spec = data
    monkeypatch.setitem(DFT_BUDGET, "cpu", (spec.npix / 4) ** 2 * len(uvw))
    cmp = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], device="cpu")
    assert cmp.step == 4 and cmp.reference.shape == (8, 8)


def test_cancelled_between_chunks(data):
    uvw, freq, vis, spec = data
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 2

    events = iter_comparison(
        uvw, freq, vis, 1.0, spec, [Entry("nn", "nn")], chunk_work=1e5, cancelled=cancelled
    )
    with pytest.raises(Cancelled):
        drain(events)
    assert len(calls) == 3
