"""pruned-nn's u axis gridded straight onto its pruned cells (gpu/gridders/direct_prune.py).

Oracles: the NumPy rung's textbook chain (fine grid, then the pruners: the same products,
summed in another order, so equal to rounding, 1e-12 of the peak) and the float64 direct
sum (tests/support/oracles.py) within pruned-nn's own accuracy.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import dft_image, image_vis
from tests.support.rungs import both_rungs, needs_numba
from uvlab.gpu.gridders import jit_grid
from uvlab.gpu.gridders.direct_prune import direct_axis, direct_plans
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import axis_plans, get_gridder
from uvlab.gpu.gridders.separable import extended_shape
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.co_grid import dirty_and_psf

SPEC = ImageSpec(32, 30.0 * ARCSEC)
#: Equal to rounding: the same products in another order.
ROUNDING = 1e-12


@pytest.fixture(scope="module")
def records():
    """300 records over the whole uv plane (|u|, |v| up to 0.5/cell), the visibilities of
    three point sources in the field (two near its edges) and the records' weights."""
    rng = np.random.default_rng(15)
    n = 300
    u, v = rng.uniform(-0.5, 0.5, (2, n)) / SPEC.cell_rad
    img = np.zeros((SPEC.npix, SPEC.npix))
    img[2, 5], img[27, 20], img[16, 16] = 1.0, 0.5, 0.2
    return u, v, image_vis(img, u, v, SPEC), rng.uniform(0.5, 1.0, n)


@needs_numba
@pytest.mark.parametrize(("beta", "tol"), [(16, 0.015), (6, 0.045)], ids=["alpha8", "alpha3"])
def test_direct_u_axis_makes_the_chains_image(records, monkeypatch, beta, tol):
    """pruned-nn's image and its one-pass (dirty, PSF) on both rungs: the same to rounding
    (α = 8, a power of two, and α = 3), and within pruned-nn's accuracy of the DFT (max
    |I − I_dft| / peak ~1.5× the 0.0098 and 0.029 measured; records reach the uv edges)."""
    u, v, vis, wt = records
    params = GridParams(oversample=beta, chunk=40)  # chunks: the rungs add in other orders
    plain, jit = both_rungs(monkeypatch, lambda: get_gridder("pruned-nn")(u, v, vis, SPEC, params))
    ref = dft_image(u, v, vis, SPEC)
    peak = np.abs(ref).max()
    assert np.abs(jit - plain).max() <= ROUNDING * peak
    assert np.abs(jit - ref).max() <= tol * peak

    def one_pass():
        return dirty_and_psf(u, v, wt * vis, wt, SPEC, "pruned-nn", params)

    (d0, p0), (d1, p1) = both_rungs(monkeypatch, one_pass)
    assert np.abs(d1 - d0).max() <= ROUNDING * np.abs(d0).max()
    assert np.abs(p1 - p0).max() <= ROUNDING * np.abs(p0).max()


def test_only_the_pruned_nearest_axis_is_gridded_directly(monkeypatch):
    """pruned-nn's u axis goes onto its pruned cells (no Nβ-cell u axis, the chain's
    corrector kept); other axes, and every axis on the NumPy rung, stay as planned."""
    params = GridParams(oversample=16)
    pu, pv = axis_plans("pruned-nn", SPEC, params)
    du = direct_axis(pu)
    assert (du.n_grid, du.n_fft, du.pruner) == (2 * SPEC.npix, 2 * SPEC.npix, None)
    assert du.rule.support == 15 and du.rule.half == 56  # S_z = 14, D = 14·8/2
    np.testing.assert_array_equal(du.corrector, pu.corrector)
    assert extended_shape(du, pv) == (16 * SPEC.npix, SPEC.npix + 1 + 2 * 8)
    for name in ("conv", "nn-oversampled", "hybrid"):
        plan_u = axis_plans(name, SPEC, GridParams.from_eps(1e-6, oversample=8))[0]
        assert direct_axis(plan_u) is plan_u
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numpy")
    assert direct_plans((pu, pv)) == (pu, pv)


@needs_numba
def test_the_numba_rung_grids_the_u_axis_directly_and_keeps_v(monkeypatch):
    pu, pv = axis_plans("pruned-nn", SPEC, GridParams(oversample=16))
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numba")
    gu, gv = direct_plans((pu, pv))
    assert gu.pruner is None and gu.n_grid == 2 * SPEC.npix
    assert gv is pv  # v keeps its Nβ rows and the compiled column pruner
