"""What a worker of the grid path holds through CLEAN (app/scale/budget.py clean_grid_costs).

Oracles: the bytes of the grids the passes really make (:mod:`uvlab.gpu.imaging.grid_parts`:
the 2N PSF's grid, a major cycle's residual grid, the model's grid and the model image),
and the peak of NumPy's allocations (tracemalloc) while a chunk's residual or PSF is
gridded into a worker's grid, on both CPU rungs, against the chunk budget the costs give.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from uvlab.app.scale.budget import (
    WORKER_OVERHEAD_BYTES,
    clean_grid_costs,
    grid_costs,
    jit_bytes,
)
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.grid_parts import empty_grid, grid_part, model_grid
from uvlab.gpu.imaging.weighting import Weighting

N = 64
SPEC = ImageSpec(N, 1.0 / (2.4 * 1700 * 1.1e9 / 3e8))
CHAINS = {"conv": GridParams(), "pruned-nn": GridParams(oversample=4)}


def model_image():
    m = np.zeros((N, N))
    m[N // 2, N // 2], m[N // 2 + 3, 9] = 1.0, -0.4
    return m


@pytest.mark.parametrize("algorithm", CHAINS)
@pytest.mark.parametrize("density", [0, N], ids=["natural", "uniform"])
def test_the_fixed_part_holds_every_passes_grids(algorithm, density):
    params = CHAINS[algorithm]
    costs = clean_grid_costs(N, algorithm, params, density_npix=density)
    rest = (
        WORKER_OVERHEAD_BYTES + jit_bytes(algorithm) + 3 * 8.0 * (2 * density) ** 2 * bool(density)
    )
    dirty = empty_grid(SPEC, algorithm, params)  # the dirty image's two grids
    psf = empty_grid(ImageSpec(2 * N, SPEC.cell_rad), algorithm, params, dirty=False)
    residual = empty_grid(SPEC, algorithm, params, psf=False)
    model = model_image()
    half = model_grid(model, SPEC, algorithm, params)
    major = residual.nbytes + half.nbytes + model.nbytes
    assert costs.fixed >= rest + max(dirty.nbytes, psf.nbytes, major)
    # no more than that, to the model's grid's padding (it is counted as the residual's)
    assert costs.fixed - rest <= max(dirty.nbytes, psf.nbytes, 2 * residual.nbytes + model.nbytes)
    # Högbom makes no major cycle; the dirty image alone is grid_costs'
    hogbom = clean_grid_costs(N, algorithm, params, density_npix=density, major=False)
    assert hogbom.fixed == rest + max(dirty.nbytes, psf.nbytes) <= costs.fixed
    assert grid_costs(N, algorithm, params, density_npix=density).fixed == rest + dirty.nbytes


def chunk(nrow=3000, nchan=16):
    rng = np.random.default_rng(1)
    uvw = np.column_stack([rng.normal(0, 400, nrow), rng.normal(0, 400, nrow),
                           rng.normal(0, 20, nrow)])  # fmt: skip
    freq = np.linspace(1.0e9, 1.1e9, nchan)
    vis = (rng.normal(size=(nrow, nchan)) + 1j * rng.normal(size=(nrow, nchan))).astype(
        np.complex64
    )
    weight = rng.uniform(0.5, 1.5, (nrow, nchan)).astype(np.float32)
    return uvw, freq, vis, weight, rng.random((nrow, nchan)) < 0.05


@pytest.mark.parametrize("rung", ["numpy", "numba"])
@pytest.mark.parametrize("algorithm", CHAINS)
@pytest.mark.parametrize("kind", ["residual", "psf"])
def test_a_chunks_clean_pass_stays_within_its_chunk_budget(monkeypatch, rung, algorithm, kind):
    """The peak of a chunk's residual (or 2N PSF) gridded into a worker's grid, over the
    grid it adds to, is at most the chunk's budget: samples × per_sample plus its taps."""
    from uvlab.gpu.gridders import jit_grid

    if rung == "numba" and jit_grid.cpu_rung() != "numba":
        pytest.skip("numba is not importable here")
    monkeypatch.setenv(jit_grid.RUNG_ENV, rung)
    params = CHAINS[algorithm]
    spec = SPEC if kind == "residual" else ImageSpec(2 * N, SPEC.cell_rad)
    data = chunk()
    kw = dict(algorithm=algorithm, params=params, psf=kind == "psf", dirty=kind != "psf")
    if kind == "residual":
        kw["model"] = model_grid(model_image(), SPEC, algorithm, params)
    grid = empty_grid(spec, algorithm, params, psf=kw["psf"], dirty=kw["dirty"])
    small = [a if a is data[1] else a[:5] for a in data]  # five rows, every channel
    grid_part(*small, spec, Weighting(), into=grid, **kw)  # kernels compiled, caches filled
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        grid_part(*data, spec, Weighting(), into=grid, **kw)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    costs = clean_grid_costs(N, algorithm, params)
    nsamp = data[2].size
    budget = nsamp * costs.per_sample + min(costs.tap_cap, nsamp * costs.tap_per_sample)
    assert grid.nvis > 0.9 * nsamp
    assert peak <= budget, f"{peak / nsamp:.0f} B a sample, budget {budget / nsamp:.0f}"


def test_the_2n_psfs_finish_stays_within_its_budget():
    """The 2N PSF's grid folded, transformed and corrected (its finish: the v-transformed
    rows kept in the grid) peaks over the grid at no more than the finish the costs give,
    at a size whose grid spans several blocks of the FFT."""
    from uvlab.gpu.imaging.grid_parts import finish

    n = 512
    wide = ImageSpec(2 * n, SPEC.cell_rad)
    grid = empty_grid(wide, "conv", GridParams(), dirty=False)
    grid_part(*chunk(nrow=200, nchan=4), wide, Weighting(), into=grid, dirty=False)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        img = finish(grid, wide, "conv", GridParams())
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert img.psf.shape == (2 * n, 2 * n) and img.psf.max() > 0
    costs = clean_grid_costs(n, "conv", GridParams())
    assert peak <= costs.finish, f"{peak / 2**20:.1f} MiB, budget {costs.finish / 2**20:.1f}"


def test_a_2880_cotton_schwab_clean_is_planned_under_2_3_gb():
    """Issue 27's target (2.5 GB for all processes at 2880² with ``--niter``): one worker of
    ``--abs-mem 2.3`` holds ``conv``'s image-sized part of every pass of Cotton–Schwab and
    a chunk of MeerKAT's 64 channels and 4 correlations (the 2N PSF's finish keeps its
    rows in its grid; it needed 2.77 GB before)."""
    from uvlab.app.scale.budget import chunk_rows, grid_share

    costs = clean_grid_costs(2880, "conv", GridParams())
    plan = chunk_rows(grid_share(2.3e9), 64, 4, costs.fixed, grid=costs)
    assert plan.rows >= 1000
