"""The numba rung's fused loops (gpu/gridders/jit_grid.py ``axis_form``): taps formed in the loop.

Oracles: the rung's tap-array loops, fed the NumPy tap rules' weights (the same products,
so equal to rounding whatever the order of the records), the NumPy rung for the rules the
fused loops do not take, and ``np.argsort(kind="stable")`` for the band order.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.degridding import rel
from uvlab.gpu.gridders import jit_grid
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import axis_plans
from uvlab.gpu.gridders.separable import extended_shape, grid_into, to_half_plane
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

needs_numba = pytest.mark.skipif(
    jit_grid._loaded()[0] is None, reason=f"numba not importable: {jit_grid._loaded()[1]}"
)

SPEC = ImageSpec(40, 60.0 * ARCSEC)
#: (algorithm, parameters) whose two axes the fused loops take: a table read by nearest
#: lookup, the nearest cell, the ES kernel evaluated exactly (``uvlab image``'s conv).
FUSED = {
    "table": ("conv", GridParams(support=6, oversample=16)),
    "nearest": ("nn", GridParams()),
    "exact-es": ("conv", GridParams.from_eps(1e-7)),
    "pruned": ("pruned-nn", GridParams(oversample=4)),
}
#: Rules the fused loops leave to the tap arrays.
UNFUSED = {
    "linear": ("conv", GridParams(support=6, oversample=16, lookup="linear")),
    "exact-kb": ("conv", GridParams(kernel="kb", support=6, exact=True)),
}


def records(plan_u, plan_v, n=700, seed=3):
    """Half-plane records over the whole uv plane, in an order that jumps across it."""
    rng = np.random.default_rng(seed)
    u, v = rng.uniform(-0.5, 0.5, (2, n)) / SPEC.cell_rad
    vis = rng.normal(size=n) + 1j * rng.normal(size=n)
    return to_half_plane(plan_u.coords(u), -plan_v.coords(v), vis, plan_u.n_grid)


def gridded(plans, xu, xv, values):
    exts = [np.zeros(extended_shape(*plans), complex) for _ in values]
    grid_into(exts, xu, xv, values, *plans, 1 << 16)
    return exts


@needs_numba
@pytest.mark.parametrize("ngrid", [1, 2, 3])
@pytest.mark.parametrize("case", list(FUSED))
def test_the_fused_loop_grids_as_the_tap_arrays(monkeypatch, case, ngrid):
    """One, two (a pair: taps formed once) and three grids, complex and real values."""
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numba")
    name, params = FUSED[case]
    plans = axis_plans(name, SPEC, params)
    assert None not in (jit_grid.axis_form(p.rule) for p in plans)
    xu, xv, vis = records(*plans)
    values = [vis, np.abs(vis), vis * 1j][:ngrid]
    fused = gridded(plans, xu, xv, values)
    monkeypatch.setattr(jit_grid, "axis_form", lambda rule: None)
    taps = gridded(plans, xu, xv, values)
    for a, b in zip(fused, taps, strict=True):
        assert np.abs(b).max() > 0
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max()


@needs_numba
@pytest.mark.parametrize("case", list(FUSED))
def test_the_fused_loop_degrids_as_the_tap_arrays(monkeypatch, case):
    name, params = FUSED[case]
    plan_u, plan_v = axis_plans(name, SPEC, params)
    xu, xv, _ = records(plan_u, plan_v)
    rng = np.random.default_rng(9)
    shape = (plan_v.n_grid, plan_u.n_grid // 2 + 1)
    half = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    fused = jit_grid.interpolate_numba(half, xu, xv, plan_u, plan_v, 1 << 16)
    monkeypatch.setattr(jit_grid, "axis_form", lambda rule: None)
    taps = jit_grid.interpolate_numba(half, xu, xv, plan_u, plan_v, 1 << 16)
    assert rel(fused, taps) <= 1e-14  # the same terms in the same order (an exp's last bit)


@needs_numba
@pytest.mark.parametrize("case", list(UNFUSED))
def test_rules_the_fused_loop_leaves_still_grid_as_the_numpy_rung(monkeypatch, case):
    name, params = UNFUSED[case]
    plans = axis_plans(name, SPEC, params)
    assert jit_grid.axis_form(plans[0].rule) is None
    xu, xv, vis = records(*plans)
    out = []
    for rung in ("numpy", "numba"):
        monkeypatch.setenv(jit_grid.RUNG_ENV, rung)
        out.append(gridded(plans, xu, xv, [vis])[0])
    assert np.abs(out[1] - out[0]).max() <= 1e-12 * np.abs(out[0]).max()


@needs_numba
@pytest.mark.parametrize("case", ["table", "exact-es"])
def test_the_band_order_is_a_stable_sort_by_the_first_v_taps_band(case):
    name, params = FUSED[case]
    plan_u, plan_v = axis_plans(name, SPEC, params)
    _, xv, _ = records(plan_u, plan_v, n=2000)
    k0v, _ = plan_v.rule.taps(xv)  # the NumPy rule's first cells
    rows = 5
    band = (k0v % plan_v.n_grid) // rows
    want = np.argsort(band, kind="stable")
    form = jit_grid.axis_form(plan_v.rule)
    got, first = jit_grid._kernels().band_order(xv, form, plan_v.n_grid, rows)
    np.testing.assert_array_equal(got, want)
    nband = -(-plan_v.n_grid // rows)
    np.testing.assert_array_equal(first, np.searchsorted(np.sort(band), np.arange(nband + 1)))


@needs_numba
@pytest.mark.parametrize("case", ["table", "exact-es"])
def test_the_grid_does_not_depend_on_the_threads(monkeypatch, case):
    """Bands of a phase gridded at once share no row: the grid is the same bits on 1 … 4
    threads, with bands of a few rows and blocks of a few records (many batches)."""
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numba")
    monkeypatch.setattr(jit_grid, "BAND_ROWS", 1)  # bands of S rows
    monkeypatch.setattr(jit_grid, "BLOCK_CELLS", 40 * 49)
    name, params = FUSED[case]
    plans = axis_plans(name, SPEC, params)
    xu, xv, vis = records(*plans, n=3000)
    grids = []
    for threads in (1, 2, 4):
        exts = [np.zeros(extended_shape(*plans), complex) for _ in range(2)]
        grid_into(exts, xu, xv, [vis, np.abs(vis)], *plans, 1 << 16, threads=threads)
        grids.append(exts)
    for other in grids[1:]:
        for a, b in zip(grids[0], other, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("support", [1, 7, 16])
@pytest.mark.parametrize("nband", [1, 2, 5, 6, 33])
def test_no_two_bands_of_a_phase_share_a_row(nband, support):
    """Band b's taps reach rows b·R … (b + 1)·R + S − 2 (mod the grid), R = band_rows(S)."""
    rows = jit_grid.band_rows(support)
    mv = nband * rows - (rows // 2 if nband > 1 else 0)  # a short last band too
    phases = jit_grid.band_phases(mv, rows, support)
    assert sorted(b for p in phases for b in p) == list(range(-(-mv // rows)))
    for phase in phases:
        reached = [
            {r % mv for r in range(b * rows, min((b + 1) * rows, mv) + support - 1)} for b in phase
        ]
        for i, a in enumerate(reached):
            for b in reached[i + 1 :]:
                assert not a & b
