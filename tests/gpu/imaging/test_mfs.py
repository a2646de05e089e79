"""Multi-frequency synthesis over spectral windows (gpu/imaging/mfs.py) and CLEAN's inputs
over parts (gpu/deconvolution/inputs.py: ``wide_psf_of_parts``, ``major_cycle_of_parts``).

Oracle: the float64 direct DFT of every sample (tests.support.oracles), with imaging
weights built here in NumPy: uniform and Briggs densities counted per uv cell (CASA's
cells, both Hermitian halves) over the samples of *all* windows.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.support.oracles import C_LIGHT, dft_image
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.mfs import mfs_image, mfs_totals, mfs_weights
from uvlab.gpu.imaging.weighting import Weighting

N = 32
SPEC = ImageSpec(N, 1.0 / (2.4 * 1700 * 1.3e9 / 3e8))
BANDS = ((1.0e9, 2), (1.12e9, 4), (1.3e9, 3))  # (first frequency, channels) per window


def windows(seed=29, nrow=40):
    """Three windows of different channel counts; each row its own uvw (metres)."""
    rng = np.random.default_rng(seed)
    out = []
    for f0, nchan in BANDS:
        uvw = np.column_stack([rng.normal(0, 400, nrow), rng.normal(0, 400, nrow),
                               rng.normal(0, 20, nrow)])  # fmt: skip
        shape = (nrow, nchan)
        out.append(SimpleNamespace(
            uvw=uvw, freq_hz=f0 + 8e6 * np.arange(nchan),
            vis=rng.normal(size=shape) + 1j * rng.normal(size=shape),
            weight=rng.uniform(0.5, 1.5, shape), flag=rng.random(shape) < 0.1,
        ))  # fmt: skip
    return out


def flat(parts):
    """(u, v, w in wavelengths, f, vis, data weight) of every usable sample, all windows."""
    cols = []
    for p in parts:
        r, c = np.nonzero(~p.flag)
        scale = p.freq_hz[c] / C_LIGHT
        cols.append((p.uvw[r, 0] * scale, p.uvw[r, 1] * scale, p.uvw[r, 2] * scale,
                     p.freq_hz[c], p.vis[r, c], p.weight[r, c]))  # fmt: skip
    return [np.concatenate(k) for k in zip(*cols, strict=True)]


def oracle_weights(u, v, d, scheme, robust=0.0, spec=SPEC):
    if scheme == "natural":
        return d
    du = 1.0 / (spec.npix * spec.cell_rad)
    iu, iv = np.floor(u / du).astype(int), np.floor(v / du).astype(int)
    cells: dict = {}
    for a, b, w in zip(iu, iv, d, strict=True):
        for key in ((a, b), (-a - 1, -b - 1)):
            cells[key] = cells.get(key, 0.0) + w
    dens = np.array([cells[(a, b)] for a, b in zip(iu, iv, strict=True)])
    if scheme == "uniform":
        return d / dens
    f2 = (5.0 * 10.0 ** (-robust)) ** 2 / ((d * dens).sum() / d.sum())
    return d / (1.0 + f2 * dens)


WEIGHTINGS = [Weighting(), Weighting("uniform"), Weighting("briggs", -0.5)]


@pytest.mark.parametrize("wt", WEIGHTINGS, ids=lambda w: w.scheme)
def test_mfs_image_is_the_dft_of_every_window(wt):
    parts = windows()
    u, v, _w, f, vis, d = flat(parts)
    w = oracle_weights(u, v, d, wt.scheme, wt.robust)
    res = mfs_image(parts, SPEC, wt, algorithm="dft")
    ref = dft_image(u, v, w * vis, SPEC) / w.sum()
    np.testing.assert_allclose(res.dirty, ref, rtol=0, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_allclose(res.psf, dft_image(u, v, w + 0j, SPEC) / w.sum(), atol=1e-9)
    assert res.sum_weights == pytest.approx(w.sum(), rel=1e-12)
    assert res.nvis == u.size
    assert res.mean_freq_hz == pytest.approx((w * f).sum() / w.sum(), rel=1e-12)


def test_a_gridder_agrees_and_the_weights_are_the_bands():
    parts = windows()
    wt = Weighting("uniform")
    u, v, _w, _f, vis, d = flat(parts)
    w = oracle_weights(u, v, d, "uniform")
    got = np.concatenate([x[~p.flag] for x, p in zip(mfs_weights(parts, SPEC, wt), parts,
                                                       strict=True)])  # fmt: skip
    np.testing.assert_allclose(got, w, rtol=1e-12)
    from uvlab.gpu.gridders.params import GridParams

    res = mfs_image(parts, SPEC, wt, mfs_totals(parts, SPEC, wt), algorithm="conv",
                    params=GridParams.from_eps(1e-6))  # fmt: skip
    ref = dft_image(u, v, w * vis, SPEC) / w.sum()
    np.testing.assert_allclose(res.dirty, ref, rtol=0, atol=1e-5 * np.abs(ref).max())
    own = [oracle_weights(*flat([p])[:2], flat([p])[5], "uniform") for p in parts]
    assert not np.allclose(np.concatenate(own), w)  # a cell's density spans the windows


@pytest.mark.parametrize("wt", WEIGHTINGS[1:], ids=lambda w: w.scheme)
def test_clean_psf_of_windows_is_the_2n_dft_with_the_n_image_densities(wt):
    from uvlab.gpu.deconvolution.inputs import wide_psf_of_parts

    parts = windows()
    u, v, _w, _f, _vis, d = flat(parts)
    w = oracle_weights(u, v, d, wt.scheme, wt.robust)  # on the N² image's cells
    psf2 = wide_psf_of_parts(parts, SPEC, wt, "dft", None, "cpu")
    ref = dft_image(u, v, w + 0j, ImageSpec(2 * N, SPEC.cell_rad)) / w.sum()
    np.testing.assert_allclose(psf2, ref, rtol=0, atol=1e-9)
    assert psf2[N, N] == pytest.approx(1.0)


def test_major_cycle_of_windows_subtracts_the_model_from_every_window():
    from uvlab.gpu.deconvolution.inputs import major_cycle_of_parts
    from uvlab.gpu.gridders.params import GridParams

    parts = windows()
    wt = Weighting("briggs", 0.5)
    u, v, _w, _f, vis, d = flat(parts)
    w = oracle_weights(u, v, d, "briggs", 0.5)
    model = np.zeros((N, N))
    model[N // 2 + 3, N // 2 - 5], model[N // 2 - 7, N // 2 + 2] = 1.5, -0.4
    major = major_cycle_of_parts(parts, SPEC, wt, "conv", GridParams.from_eps(1e-9), np)
    l, m = np.meshgrid(SPEC.l_axis(), SPEC.m_axis())
    j, i = np.nonzero(model)
    mvis = (model[j, i] * np.exp(2j * np.pi * (np.outer(u, l[j, i]) + np.outer(v, m[j, i])))).sum(1)
    ref = dft_image(u, v, w * (vis - mvis), SPEC) / w.sum()
    np.testing.assert_allclose(major.residual(model), ref, rtol=0, atol=1e-7 * np.abs(ref).max())
    assert major.wsum == pytest.approx(w.sum(), rel=1e-12)
