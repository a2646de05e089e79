"""``uvlab bench clean`` bookkeeping, on the CPU at a tiny size (timings are a benchmark's)."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.bench.clean_bench import format_record, point_vis, run_clean_bench
from uvlab.gpu.image_spec import ImageSpec


def test_point_vis_is_the_exact_sum_of_its_sources(rng):
    spec = ImageSpec(64, 1e-4)
    u, v = rng.uniform(-400, 400, (2, 30))
    got = point_vis(u, v, spec, 3, seed=9)
    r = np.random.default_rng(9)
    di, dj = r.integers(-16, 16, (2, 3))
    flux = r.uniform(0.1, 1.0, 3)
    want = sum(
        f * np.exp(2j * np.pi * (u * (-a * 1e-4) + v * (b * 1e-4)))
        for a, b, f in zip(di, dj, flux, strict=True)
    )
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_a_run_reports_its_cycles_and_cleans_the_sources(rng):
    ant = rng.uniform(-1500, 1500, (8, 3))
    r = run_clean_bench(ant, npix=64, ntime=6, nchan=2, device="cpu", niter=2000, max_major=5,
                        nsrc=4, eps=1e-6, precision="double")  # fmt: skip
    assert 1 <= r["majors"] <= 5 and 0 < r["iterations"] <= 2000
    assert r["clean_s"] > 0 and r["psf_s"] > 0
    assert r["major_peaks"][-1] < 0.2 * r["major_peaks"][0]  # the major cycles cleaned
    assert "major cycles" in format_record(r)
    r5 = np.random.default_rng(5)  # point_vis's sources: pixels, then fluxes
    r5.integers(-16, 16, (2, 4))
    assert r["model_flux_jy"] == pytest.approx(r5.uniform(0.1, 1.0, 4).sum(), rel=0.1)
