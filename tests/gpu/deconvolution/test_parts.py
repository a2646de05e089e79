"""Cotton–Schwab's residual in parts (gpu/deconvolution/parts.py) equals the whole one.

Oracle: :class:`MajorCycle` of all the data at once (itself tested against the direct
sum with the w-term), for uneven splits, natural and Briggs weighting with a taper, a
model and none; the PSF in parts (gpu/imaging/parts.psf_part) against ``wide_psf``. The
same on the GPU (``gpu`` marker) against the CPU.
"""

from __future__ import annotations

import functools
import itertools
from types import SimpleNamespace

import numpy as np
import pytest

from tests.support.parts_data import SPEC, data
from uvlab.gpu.deconvolution.inputs import major_cycle_for, wide_psf
from uvlab.gpu.deconvolution.parts import residual_part
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.parts import (
    PartImage,
    density_totals,
    needs_density,
    part_counts,
    psf_part,
)
from uvlab.gpu.imaging.weighting import Weighting

BOUNDS = [0, 7, 8, 30, 59, 60]
WEIGHTINGS = [Weighting("natural"), Weighting("briggs", 0.5, taper_arcsec=60.0)]
PARAMS = GridParams.from_eps(1e-9)


def model_image(n=SPEC.npix):
    m = np.zeros((n, n))
    m[n // 2, n // 2], m[n // 2 + 3, n // 2 - 5], m[4, 9] = 1.0, -0.4, 0.25
    return m


def parts_sum(fn, weighting, spec=SPEC, **kw):
    uvw, freq, vis, weight, flag = data()
    parts = [slice(a, b) for a, b in itertools.pairwise(BOUNDS)]
    args = [(uvw[p], freq, vis[p], weight[p], flag[p]) for p in parts]
    totals = None
    if needs_density(weighting):
        totals = density_totals(sum(part_counts(*a, SPEC, weighting) for a in args))
    return functools.reduce(PartImage.__add__, [fn(*a, spec, weighting, totals, **kw)
                                               for a in args])  # fmt: skip


def whole_major(weighting, xp=np):
    uvw, freq, vis, weight, flag = data()
    vd = SimpleNamespace(uvw=uvw, freq_hz=freq, vis=vis, weight=weight, flag=flag)
    return major_cycle_for(vd, SPEC, weighting, "conv", PARAMS, xp)


@pytest.mark.parametrize("with_model", [False, True], ids=["dirty", "model"])
@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: w.scheme)
def test_the_residual_parts_sum_to_the_whole_residual(weighting, with_model):
    model = model_image() if with_model else None
    want = whole_major(weighting).residual(model)
    got, _ = parts_sum(residual_part, weighting, model=model, params=PARAMS).normalised()
    np.testing.assert_allclose(got, want, atol=1e-12 * np.abs(want).max())


@pytest.mark.parametrize("weighting", WEIGHTINGS, ids=lambda w: w.scheme)
def test_the_psf_parts_sum_to_the_wide_psf(weighting):
    from dataclasses import replace

    uvw, freq, vis, weight, flag = data()
    vd = SimpleNamespace(uvw=uvw, freq_hz=freq, vis=vis, weight=weight, flag=flag)
    want = wide_psf(vd, SPEC, weighting, "conv", PARAMS, "cpu")
    wide = ImageSpec(2 * SPEC.npix, SPEC.cell_rad)
    dirty, psf = parts_sum(psf_part, replace(weighting, density_npix=SPEC.npix), spec=wide,
                           params=PARAMS).normalised()  # fmt: skip
    assert dirty is None and psf[SPEC.npix, SPEC.npix] == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(psf, want, atol=1e-12)


@pytest.mark.gpu
def test_the_residual_parts_on_the_gpu_equal_the_cpu_ones():
    weighting, model = WEIGHTINGS[1], model_image()
    want, _ = parts_sum(residual_part, weighting, model=model, params=PARAMS).normalised()
    got, _ = parts_sum(residual_part, weighting, model=model, params=PARAMS,
                       device="gpu").normalised()  # fmt: skip
    np.testing.assert_allclose(got, want, atol=1e-9 * np.abs(want).max())
