"""The engine's cancel checks (:mod:`uvlab.gpu.blocks`): between blocks, never in the image.

Every CPU gridder calls ``on_block()`` at least once per chunk of records and once
per block of :data:`~uvlab.gpu.blocks.BLOCK_CELLS` grid cells; a check that raises
stops it there (no later block runs); and the image is bit-identical with and
without the check, and with the grid-wide steps cut into many small blocks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu import blocks
from uvlab.gpu.gridders import jit_grid, pruning, separable
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import axis_plans, get_gridder
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import make_image

SPEC = ImageSpec(64, math.radians(1 / 60))
SEPARABLE = ("conv", "nn", "nn-oversampled", "hybrid", "pruned-nn")
#: Tap entries per chunk: a few hundred records per chunk of a 7² kernel.
CHUNK = 7 * 7 * 300
SMALL_BLOCK = 4096


class Stop(Exception):
    pass


@pytest.fixture
def samples():
    rng = np.random.default_rng(28)
    n = 5000
    umax = 0.4 / SPEC.cell_rad
    u, v = rng.uniform(-umax, umax, (2, n))
    wvis = rng.normal(size=n) + 1j * rng.normal(size=n)
    return u, v, wvis


def counter(stop_at: int | None = None):
    calls = []

    def on_block():
        calls.append(1)
        if stop_at is not None and len(calls) >= stop_at:
            raise Stop

    return calls, on_block


def test_spans_cover_every_index_once():
    for n, per in ((10, 3), (9, 3), (1, 5), (7, 0)):
        covered = np.concatenate([np.arange(n)[s] for s in blocks.spans(n, per)])
        assert covered.tolist() == list(range(n))
    assert list(blocks.spans(0, 4)) == []


@pytest.mark.parametrize("name", SEPARABLE)
def test_checks_every_chunk_and_block_and_the_image_is_unchanged(name, samples, monkeypatch):
    u, v, wvis = samples
    params = GridParams.from_eps(1e-5, chunk=CHUNK, oversample=8)
    gridder = get_gridder(name)
    plain = gridder(u, v, wvis, SPEC, params)
    plan_u, plan_v = axis_plans(name, SPEC, params)
    records_per_chunk = CHUNK // (plan_u.rule.support * plan_v.rule.support)
    cells = plan_v.n_grid * (plan_u.n_grid // 2 + 1)
    for module in (separable, pruning):
        monkeypatch.setattr(module, "BLOCK_CELLS", SMALL_BLOCK)
    calls, on_block = counter()
    blocked = gridder(u, v, wvis, SPEC, params, on_block=on_block)
    assert np.array_equal(blocked, plain)  # bit-identical, the steps cut in many blocks
    assert len(calls) >= math.ceil(u.size / records_per_chunk)
    assert len(calls) >= cells // SMALL_BLOCK
    if name == "conv":  # at ε = 1e-5 it is the DFT (the nearest-cell ones are coarser)
        ref = dirty_dft(u, v, wvis, SPEC)
        assert np.abs(plain - ref).max() < 1e-4 * np.abs(ref).max()


@pytest.mark.parametrize("name", SEPARABLE)
def test_a_check_that_raises_stops_the_gridder_at_once(name, samples, monkeypatch):
    u, v, wvis = samples
    params = GridParams.from_eps(1e-5, chunk=CHUNK, oversample=8, threads=1)
    for module in (separable, pruning):
        monkeypatch.setattr(module, "BLOCK_CELLS", SMALL_BLOCK)
    every, on_block = counter()
    get_gridder(name)(u, v, wvis, SPEC, params, on_block=on_block)
    half = len(every) // 2
    calls, on_block = counter(stop_at=half)
    with pytest.raises(Stop):
        get_gridder(name)(u, v, wvis, SPEC, params, on_block=on_block)
    assert len(calls) == half < len(every)  # no block ran after the cancel


def test_the_dft_checks_every_chunk(samples):
    u, v, wvis = samples
    calls, on_block = counter()
    img = dirty_dft(u, v, wvis, SPEC, chunk=1000, on_block=on_block)
    assert len(calls) == math.ceil(u.size / 1000)
    assert np.array_equal(img, dirty_dft(u, v, wvis, SPEC, chunk=1000))


@pytest.mark.parametrize("algorithm", ["pruned-nn", "ducc"])
def test_make_image_passes_the_check_to_the_cpu_gridder(algorithm, samples):
    u, v, wvis = samples
    uvw = np.stack([u, v, np.zeros_like(u)], axis=1)
    freq = np.array([299_792_458.0])  # 1 m: metres are wavelengths
    args = (uvw, freq, wvis[:, None], np.ones((u.size, 1)), SPEC)
    kw = dict(algorithm=algorithm, device="cpu", params=GridParams(threads=1))  # reproducible
    calls, on_block = counter()
    checked = make_image(*args, **kw, on_block=on_block)
    plain = make_image(*args, **kw)
    assert len(calls) >= 2  # before and after ducc0's one call; many for pruned-nn
    assert np.array_equal(checked.dirty, plain.dirty)
    assert np.array_equal(checked.psf, plain.psf)
    with pytest.raises(Stop):
        make_image(*args, **kw, on_block=counter(stop_at=1)[1])


def test_a_check_that_raises_stops_every_gridding_thread(samples, monkeypatch):
    """On four threads each band stops before its next block: at most one check more
    per other thread than on one, and the exception reaches the caller."""
    u, v, wvis = samples
    params = GridParams.from_eps(1e-5, chunk=CHUNK, threads=4)
    monkeypatch.setattr(jit_grid, "BLOCK_CELLS", SMALL_BLOCK)
    if jit_grid.cpu_rung() != "numba":
        pytest.skip("the threads are the numba rung's")
    every, on_block = counter()
    get_gridder("conv")(u, v, wvis, SPEC, params, on_block=on_block)
    half = len(every) // 2
    calls, on_block = counter(stop_at=half)
    with pytest.raises(Stop):
        get_gridder("conv")(u, v, wvis, SPEC, params, on_block=on_block)
    assert half <= len(calls) <= half + 3 < len(every)
