"""The least-misfit solve stops at a cancel check between its pieces, and keeps nothing.

A check that raises on its k-th call stops the solve there (no later piece runs),
nothing is cached, and the taps solved with a check that never raises are
bit-identical to those solved without one. The pruners and ``conv`` pass the
gridder's ``on_block`` to the solve (hybrid to its u table's and its pruner's), so a
cancel during a first pruned image stops it.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace

import numpy as np
import pytest

from uvlab.gpu.gridders import least_misfit
from uvlab.gpu.gridders.least_misfit import least_misfit_taps
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruning import make_pruner
from uvlab.gpu.gridders.registry import get_gridder
from uvlab.gpu.gridders.tables import gcf_taps
from uvlab.gpu.image_spec import ImageSpec

#: Scored starts plus sweeps of one solve: the pieces between two checks.
STARTS, SWEEPS = 13, 40


class Stop(Exception):
    pass


def counter(stop_at: int | None = None):
    """(calls, on_block): each call records the engine function that checked."""
    calls = []

    def on_block():
        calls.append(sys._getframe(2).f_code.co_name)  # past blocks.block_done
        if stop_at is not None and len(calls) >= stop_at:
            raise Stop

    return calls, on_block


def fresh(*key) -> None:
    """Forget a solved table (each test solves its own, not one another test cached)."""
    least_misfit._solved.pop(key, None)


@pytest.mark.parametrize("k", [1, 2, STARTS, STARTS + 1, STARTS + SWEEPS])
def test_a_check_raising_on_its_kth_call_stops_the_solve_there(k):
    key = (6, 5, 0.22, SWEEPS)
    fresh(*key)
    calls, on_block = counter(stop_at=k)
    with pytest.raises(Stop):
        least_misfit_taps(6, 5, 0.22, on_block=on_block)
    assert len(calls) == k  # nothing ran after the check that raised
    assert key not in least_misfit._solved  # a cancelled solve keeps nothing
    every, on_block = counter()
    checked = least_misfit_taps(6, 5, 0.22, on_block=on_block)
    assert len(every) == STARTS + SWEEPS  # a check before every piece
    fresh(*key)
    plain = least_misfit_taps(6, 5, 0.22)
    assert plain.tobytes() == checked.tobytes()  # bit-identical with and without checks
    assert least_misfit_taps(6, 5, 0.22, on_block=counter(stop_at=1)[1]) is plain  # cached


def test_a_pruner_solves_its_taps_with_the_check_of_its_first_apply():
    fresh(7, 3, 0.25, SWEEPS)
    pruner = make_pruner("lm", 7, 3)
    rng = np.random.default_rng(4)
    grid = rng.normal(size=(3 * 32, 6)) + 1j * rng.normal(size=(3 * 32, 6))
    calls, on_block = counter(stop_at=5)
    with pytest.raises(Stop):
        pruner.apply(grid, axis=0, on_block=on_block)
    assert len(calls) == 5
    every, on_block = counter()
    checked = pruner.apply(grid, axis=0, on_block=on_block)
    assert len(every) >= STARTS + SWEEPS
    plain = make_pruner("lm", 7, 3).apply(grid, axis=0)  # the taps cached by now
    assert checked.tobytes() == plain.tobytes()
    np.testing.assert_array_equal(pruner.taps, least_misfit_taps(7, 3))


def test_a_conv_table_of_the_least_misfit_kernel_is_solved_with_the_check():
    fresh(5, 6, 0.25, SWEEPS)
    calls, on_block = counter(stop_at=3)
    with pytest.raises(Stop):
        gcf_taps("lm", 5, 6, 2.0, on_block=on_block)
    assert len(calls) == 3


@pytest.mark.parametrize("name", ["pruned-nn", "conv", "hybrid"])
def test_a_first_image_with_a_new_table_checks_through_its_solve(name):
    """The gridder's own on_block reaches the solve: a cancel during it stops the image."""
    spec = ImageSpec(32, math.radians(1 / 60))
    rng = np.random.default_rng(28)
    u, v = rng.uniform(-0.4 / spec.cell_rad, 0.4 / spec.cell_rad, (2, 2000))
    wvis = rng.normal(size=2000) + 1j * rng.normal(size=2000)
    if name == "pruned-nn":  # α = β/2 = 3, S_z = 9
        params, key = GridParams(oversample=6, prune_support=9), (9, 3, 0.25, SWEEPS)
    else:  # the least-misfit table of conv (hybrid's along u): S = 6, β = 8, x0 = 1/(2σ)
        params = GridParams(kernel="lm", support=6, oversample=8, sigma=2.0)
        key = (6, 8, 0.25, SWEEPS)
    gridder = get_gridder(name)
    if name == "hybrid":  # its pruner's table solved already: only the u table's solve counts
        gridder(u, v, wvis, spec, replace(params, kernel="es"))
    fresh(*key)
    first, on_block = counter()
    checked = gridder(u, v, wvis, spec, params, on_block=on_block)
    again, on_block = counter()
    assert np.array_equal(gridder(u, v, wvis, spec, params, on_block=on_block), checked)
    assert len(first) - len(again) == STARTS + SWEEPS  # the solve's checks, the first time
    assert first.count("_solve") == STARTS + SWEEPS
    fresh(*key)
    middle = first.index("_solve") + 20
    stopped, on_block = counter(stop_at=middle)
    with pytest.raises(Stop):  # a cancel in the middle of the solve stops the image there
        gridder(u, v, wvis, spec, params, on_block=on_block)
    assert len(stopped) == middle and stopped[-1] == "_solve"
    fresh(*key)
    assert np.array_equal(gridder(u, v, wvis, spec, params), checked)
