"""The numba rung of the CPU separable gridder and degridder (gpu/gridders/jit_grid.py).

Oracles: the NumPy rung (the same taps summed by ``np.bincount`` / ``einsum``: equal to
rounding, 1e-12 of the peak / of ‖V‖), and the float64 direct sums with and without the
w-term (tests/support/oracles.py), each algorithm held to its own accuracy. The rung is
forced with ``UVLAB_CPU_RUNG`` (:func:`uvlab.gpu.gridders.jit_grid.cpu_rung`, the one
place it is chosen).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.support.degridding import rel
from tests.support.oracles import dft_image, image_vis
from tests.support.rungs import both_rungs, needs_numba
from uvlab.gpu.degridding import degrid
from uvlab.gpu.gridders import jit_grid
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruning import make_pruner
from uvlab.gpu.gridders.registry import axis_plans, get_gridder
from uvlab.gpu.gridders.separable import grid_extended, to_half_plane
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

#: A 1.2° field: w·(n − 1) of several radians at |w| ~ 6000 λ.
SPEC = ImageSpec(48, 90.0 * ARCSEC)
#: Each separable algorithm's parameters (chunks of a few dozen records, so that the rungs
#: add in another order) and its bounds on max |I − I_dft| / peak and ‖V − V_dft‖ / ‖V_dft‖,
#: ~1.5× what both rungs measure here, flat and w-stacked: conv 3.8e-7 and 1.7e-6, nn 0.45
#: and 0.92, nn-oversampled and pruned-nn (β = 4) 3.9e-2 and 0.28, hybrid 1.6e-2 and 9.8e-2.
CASES = {
    "conv": (GridParams.from_eps(1e-6, chunk=2000), 1e-6, 3e-6),
    "nn": (GridParams(chunk=2000), 0.7, 1.4),
    "nn-oversampled": (GridParams(oversample=4, chunk=50), 0.06, 0.4),
    "hybrid": (GridParams.from_eps(1e-6, oversample=8, chunk=500), 0.03, 0.15),
    "pruned-nn": (GridParams(oversample=4, chunk=50), 0.06, 0.4),
}
#: Equal to rounding: the rungs add the same products in another order.
ROUNDING = 1e-12


@pytest.fixture(scope="module")
def samples():
    """400 records reaching the grid's edges (|u|, |v| up to 0.5/cell), w of ~6000 λ, and an
    image of three point sources, two near the edges, with its visibilities (flat, with w)."""
    rng = np.random.default_rng(28)
    n = 400
    u, v = rng.uniform(-0.5, 0.5, (2, n)) / SPEC.cell_rad
    w = rng.normal(0, 6000, n)
    img = np.zeros((SPEC.npix, SPEC.npix))
    img[3, 7], img[40, 30], img[24, 24] = 1.0, 0.5, 0.2
    vis = {False: image_vis(img, u, v, SPEC), True: image_vis(img, u, v, SPEC, w=w)}
    return u, v, w, img, vis


@needs_numba
@pytest.mark.parametrize("wstack", [False, True], ids=["flat", "wstack"])
@pytest.mark.parametrize("name", list(CASES))
def test_the_rungs_make_the_same_image_and_both_are_the_dft(samples, monkeypatch, name, wstack):
    u, v, w, _, vis = samples
    vis = vis[wstack]
    params, img_tol, _ = CASES[name]
    params = params.with_(wstack=wstack)
    kw = {"w": w} if wstack else {}
    ref = dft_image(u, v, vis, SPEC, w=w if wstack else None)
    peak = np.abs(ref).max()
    plain, jit = both_rungs(monkeypatch, lambda: get_gridder(name)(u, v, vis, SPEC, params, **kw))
    assert np.abs(jit - plain).max() <= ROUNDING * peak
    for img in (plain, jit):
        assert np.abs(img - ref).max() <= img_tol * peak


@needs_numba
@pytest.mark.parametrize("wstack", [False, True], ids=["flat", "wstack"])
@pytest.mark.parametrize("name", list(CASES))
def test_the_rungs_degrid_alike_and_both_are_the_dft_predict(samples, monkeypatch, name, wstack):
    u, v, w, img, vis = samples
    params, _, vis_tol = CASES[name]
    params = params.with_(wstack=wstack)
    kw = {"w": w} if wstack else {}
    want = vis[wstack]
    plain, jit = both_rungs(monkeypatch, lambda: degrid(img, u, v, SPEC, name, params, **kw))
    assert rel(jit, plain) <= ROUNDING
    for vis in (plain, jit):
        assert rel(vis, want) <= vis_tol


@needs_numba
def test_a_complex_image_degrids_as_its_two_parts(samples, monkeypatch):
    u, v, _, _, _ = samples
    rng = np.random.default_rng(5)
    img = rng.normal(size=(SPEC.npix, SPEC.npix)) + 1j * rng.normal(size=(SPEC.npix, SPEC.npix))
    params = CASES["conv"][0]
    plain, jit = both_rungs(monkeypatch, lambda: degrid(img, u, v, SPEC, "conv", params))
    assert rel(jit, plain) <= ROUNDING
    assert rel(jit, image_vis(img, u, v, SPEC)) <= 1e-5


@needs_numba
@pytest.mark.parametrize(("kernel", "alpha", "axis"), [("lm", 4, 0), ("es", 8, 0), ("lm", 4, 1)])
def test_the_rungs_prune_as_the_explicit_sum(monkeypatch, kernel, alpha, axis):
    """``out[k] = Σ_d taps[d]·g[(α·k + d) mod M_f]``, d = −H … H, along ``axis``."""
    pruner = make_pruner(kernel, 6, alpha)
    rng = np.random.default_rng(alpha)
    mf = 24 * alpha
    grid = rng.normal(size=(mf, 10)) + 1j * rng.normal(size=(mf, 10))
    taps, h = pruner.taps, pruner.half
    want = np.zeros((mf // alpha, 10), dtype=complex)
    for k in range(mf // alpha):
        for d in range(-h, h + 1):
            want[k] += taps[d + h] * grid[(alpha * k + d) % mf]
    if axis == 1:
        grid, want = grid.T, want.T
    plain, jit = both_rungs(monkeypatch, lambda: pruner.apply(grid, axis=axis))
    for got in (plain, jit):
        assert np.abs(got - want).max() <= ROUNDING * np.abs(want).max()


@needs_numba
def test_a_check_that_raises_stops_the_compiled_gridder_mid_grid(samples, monkeypatch):
    """``on_block()`` runs before every block of taps; the one that raises ends the gridding."""
    u, v, _, _, vis = samples
    vis = vis[False]
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numba")
    monkeypatch.setattr(jit_grid, "BLOCK_CELLS", 36 * 20)  # 20 records of conv's 6² taps
    params = GridParams(support=6, oversample=16)
    plan_u, plan_v = axis_plans("conv", SPEC, params)
    assert plan_u.rule.support * plan_v.rule.support == 36
    xu, xv, vis = to_half_plane(plan_u.coords(u), -plan_v.coords(v), vis, plan_u.n_grid)
    calls = []

    def on_block():
        calls.append(len(calls))
        if len(calls) == 8:
            raise RuntimeError("cancelled")

    with pytest.raises(RuntimeError, match="cancelled"):
        grid_extended(xu, xv, vis, plan_u, plan_v, 36 * 100, on_block=on_block)
    assert len(calls) == 8  # nothing ran past the check that raised
    every = []
    grid_extended(xu, xv, vis, plan_u, plan_v, 36 * 100, on_block=lambda: every.append(1))
    assert len(every) >= math.ceil(u.size / 20)  # a check per block of 20 records


@needs_numba
def test_records_outside_the_half_plane_raise_instead_of_writing_past_the_grid(monkeypatch):
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numba")
    plan_u, plan_v = axis_plans("conv", SPEC, GridParams(support=6, oversample=16))
    xu = np.array([-float(plan_u.n_grid)])  # not wrapped into [0, Mu/2]
    with pytest.raises(ValueError, match="outside the grid"):
        grid_extended(xu, np.zeros(1), np.ones(1, complex), plan_u, plan_v, 1 << 20)


@needs_numba
def test_warm_compiles_both_loops(monkeypatch):
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numba")
    assert jit_grid.warm() >= 0.0
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numpy")
    assert jit_grid.warm() is None


def test_a_bad_rung_names_the_variable(monkeypatch):
    monkeypatch.setenv(jit_grid.RUNG_ENV, "fortran")
    with pytest.raises(ValueError, match="UVLAB_CPU_RUNG='fortran' is not one of"):
        jit_grid.cpu_rung()


def test_without_numba_the_numpy_rung_runs_and_numba_forced_says_why():
    """In a fresh interpreter with numba blocked: auto falls back; forcing numba raises."""
    code = textwrap.dedent(
        """
        import os, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "numba":
                    raise ImportError("numba blocked")
        sys.meta_path.insert(0, Block())
        import numpy as np
        from uvlab.gpu.gridders import jit_grid
        from uvlab.gpu.gridders.conv import dirty
        from uvlab.gpu.gridders.params import GridParams
        from uvlab.gpu.image_spec import ImageSpec
        os.environ["UVLAB_CPU_RUNG"] = "auto"
        assert jit_grid.cpu_rung() == "numpy"
        img = dirty(np.array([10.0]), np.array([5.0]), np.array([1 + 0j]),
                    ImageSpec(16, 1e-3), GridParams.from_eps(1e-6))
        assert abs(img[8, 8] - 1.0) < 1e-5
        os.environ["UVLAB_CPU_RUNG"] = "numba"
        try:
            jit_grid.cpu_rung()
        except ImportError as exc:
            print(exc)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("UVLAB_CPU_RUNG=numba but numba is not importable")
