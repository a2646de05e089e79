"""Weighting schemes against a plain per-sample computation."""

import numpy as np
import pytest

from uvlab.gpu.imaging.spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.weighting import Weighting, imaging_weights


def plain_density(u, v, w, spec):
    du = 1.0 / (spec.npix * spec.cell_rad)
    cells = {}
    for uu, vv, ww in zip(u, v, w):
        for s in (1, -1):
            key = (int(np.rint(s * uu / du)), int(np.rint(s * vv / du)))
            cells[key] = cells.get(key, 0.0) + ww
    return np.array([cells[(int(np.rint(uu / du)), int(np.rint(vv / du)))] for uu, vv in zip(u, v)])


@pytest.fixture
def samples(rng):
    spec = ImageSpec(32, 10 * ARCSEC)
    du = 1.0 / (spec.npix * spec.cell_rad)
    u, v = rng.normal(0, 4 * du, (2, 300))
    w = rng.uniform(0.5, 2.0, 300)
    w[:10] = 0.0
    return spec, u, v, w


def test_natural_is_identity(samples):
    spec, u, v, w = samples
    np.testing.assert_array_equal(imaging_weights(u, v, w, spec, Weighting()), w)


def test_uniform_matches_plain(samples):
    spec, u, v, w = samples
    dens = plain_density(u, v, w, spec)
    want = np.where(dens > 0, w / np.where(dens > 0, dens, 1), 0)
    np.testing.assert_allclose(imaging_weights(u, v, w, spec, Weighting("uniform")), want)


@pytest.mark.parametrize("robust", [-2.0, -0.5, 0.0, 1.0, 2.0])
def test_briggs_matches_formula(samples, robust):
    spec, u, v, w = samples
    dens = plain_density(u, v, w, spec)
    f2 = (5 * 10 ** (-robust)) ** 2 / (np.sum(dens * w) / np.sum(w))
    want = w / (1 + f2 * dens)
    got = imaging_weights(u, v, w, spec, Weighting("briggs", robust))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_briggs_limits(samples):
    spec, u, v, w = samples
    nat = imaging_weights(u, v, w, spec, Weighting("briggs", 2.0))
    uni = imaging_weights(u, v, w, spec, Weighting("briggs", -2.0))
    unif = imaging_weights(u, v, w, spec, Weighting("uniform"))
    ok = w > 0
    # Shapes (up to a constant factor) approach natural and uniform at the ends.
    assert np.corrcoef(nat[ok], w[ok])[0, 1] > 0.99
    assert np.corrcoef(uni[ok], unif[ok])[0, 1] > 0.99
    assert np.all(nat[~ok] == 0) and np.all(uni[~ok] == 0)


def test_taper_closed_form(samples):
    spec, u, v, w = samples
    theta = 20 * ARCSEC
    got = imaging_weights(u, v, w, spec, Weighting(taper_arcsec=20.0))
    want = w * np.exp(-((np.pi * theta) ** 2) * (u**2 + v**2) / (4 * np.log(2)))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_gpu_matches_cpu(xp, samples):
    spec, u, v, w = samples
    for wt in (Weighting("uniform"), Weighting("briggs", 0.5, 10.0)):
        got = imaging_weights(xp.asarray(u), xp.asarray(v), xp.asarray(w), spec, wt)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_allclose(got, imaging_weights(u, v, w, spec, wt), rtol=1e-12)


@pytest.mark.parametrize("bad", [dict(scheme="super"), dict(robust=3.0), dict(taper_arcsec=-1)])
def test_bad_weighting_rejected(bad):
    with pytest.raises(ValueError):
        Weighting(**bad)
