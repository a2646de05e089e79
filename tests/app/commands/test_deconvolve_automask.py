"""WSClean's -auto-mask in ``uvlab.app.lab.deconvolve.clean``: a mask from the components found
down to auto-mask·σ, then CLEAN inside it only, down to the auto-threshold.

Oracles: a plain CLEAN to auto-mask·σ (the mask it must make, computed separately), the
residual's own MAD σ, and a plain CLEAN to the auto-threshold (which strays into the noise).
"""

from __future__ import annotations

from argparse import Namespace

import numpy as np
import pytest

from tests.support.clean_scenes import meerkat_psf_and_dirty
from uvlab.app.commands.clean_args import check_options
from uvlab.app.lab.deconvolve import clean
from uvlab.gpu.deconvolution import auto_sigma
from uvlab.gpu.deconvolution.driver import run_clean
from uvlab.gpu.deconvolution.options import CleanOptions
from uvlab.gpu.deconvolution.subminor import PsfConvolver


def _opts(**kw) -> CleanOptions:
    return CleanOptions(**{"niter": 20000, "gain": 0.1, "mgain": 0.8, **kw})


def _args(**kw) -> Namespace:
    """The CLI's flags as argparse gives them (for the flag-worded complaints)."""
    base = dict(
        niter=20000, gain=0.1, mgain=0.8, threshold_jy=0.0, auto_threshold=None,
        auto_mask=None, deconvolver="hogbom",
    )  # fmt: skip
    return Namespace(**{**base, **kw})


def deconvolve(dirty, psf, opts):
    return run_clean(dirty, psf, opts)


@pytest.fixture(scope="module")
def noisy():
    psf, dirty, spec = meerkat_psf_and_dirty()
    n = dirty.shape[0]
    # noise as the array sees it: white noise convolved with the PSF, σ ≈ 0.05 Jy/beam
    noise = PsfConvolver(psf, n)(np.random.default_rng(11).normal(size=(n, n)))
    return psf, dirty + noise * (0.05 / noise.std()), spec


def test_stage_two_cleans_only_where_stage_one_found_components(noisy):
    psf, dirty, spec = noisy
    mask_ref = deconvolve(dirty, psf, _opts(auto_threshold=5.0)).model != 0
    loose = deconvolve(dirty, psf, _opts(auto_threshold=0.5)).model != 0
    assert (loose & ~mask_ref).sum() > 20  # cleaning to 0.5σ everywhere strays into the noise
    res = clean(None, spec, dirty, psf, _opts(auto_mask=5.0, auto_threshold=0.5), None, None)
    assert res.stop_reason == "auto-threshold"
    inside = res.model != 0
    assert inside.any() and not (inside & ~mask_ref).any()  # every component in the mask
    assert res.iterations > int(mask_ref.sum())  # stage two went on past stage one
    sigma = auto_sigma(res.residual)
    assert np.abs(res.residual[mask_ref]).max() <= 0.5 * sigma * 1.25  # σ of a cycle's start
    # the peaks and RMS cover both stages, one entry per iteration and the end
    assert res.peak.size == res.rms.size == res.iterations + 1


def test_auto_mask_options_are_checked():
    assert check_options(_args(auto_mask=3.0, auto_threshold=1.0)) is None
    assert check_options(_args(auto_mask=1.0, auto_threshold=3.0)).startswith("--auto-mask")
    assert "auto-mask" in check_options(_args(auto_mask=-1.0))
    assert "auto-mask" in check_options(_args(auto_mask=float("nan")))
