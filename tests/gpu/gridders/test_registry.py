"""The algorithm catalogue: one record per algorithm, each imaging like the DFT.

The command line's choices and the window's lists are checked against the
catalogue in tests/app/commands/test_algorithm_choices.py and
tests/app/gui/test_imaging_panel.py.
"""

import dataclasses
import importlib
import types
from functools import partial

import numpy as np
import pytest

from tests.support.oracles import sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.gridders import registry
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import (
    ALGORITHMS,
    CATALOGUE,
    COMPARED,
    NAMES,
    Algorithm,
    algorithm,
    axis_plans,
    get_gridder,
)

#: What each algorithm's image of a point source may differ from the DFT's, as a
#: fraction of the peak, with PARAMS: conv and ducc at ε = 1e-6; the nearest cell of a
#: β = 16 fine grid (hybrid, pruned-nn, nn-oversampled: measured 7.7e-4); raw nn,
#: uncorrected on the N×N grid (measured 8.6e-2).
TOLERANCE = {
    "dft": 1e-12,
    "conv": 1e-6,
    "ducc": 1e-6,
    "nn": 0.15,
    "nn-oversampled": 2e-3,
    "hybrid": 2e-3,
    "pruned-nn": 2e-3,
}
PARAMS = GridParams.from_eps(1e-6, oversample=16)
#: The point source, in pixels from the centre (off the pixel grid).
SOURCE = (10.3, -5.7)


def fake_cupy():
    return types.SimpleNamespace(__name__="cupy")


def test_names_are_unique_and_key_their_records():
    assert len(set(NAMES)) == len(NAMES) == len(CATALOGUE)
    for name, record in CATALOGUE.items():
        assert isinstance(record, Algorithm) and record.name == name
        assert record.summary and "\n" not in record.summary
    assert NAMES[0] == "dft" and not CATALOGUE["dft"].is_gridder
    assert ALGORITHMS == tuple(n for n in NAMES if n != "dft")
    assert set(COMPARED) <= set(ALGORITHMS) and len(COMPARED) >= 2


def test_records_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CATALOGUE["conv"].summary = "changed"


def test_uses_names_gridparams_fields():
    fields = {f.name for f in dataclasses.fields(GridParams)}
    for record in CATALOGUE.values():
        assert record.uses <= fields, record.name
    assert not CATALOGUE["dft"].uses and CATALOGUE["nn"].uses == {"compress", "wstack"}


@pytest.fixture(scope="module")
def point_source():
    u, v, _ = layout_uv(n_times=8)
    spec = meerkat_spec(u, v, 64)
    vis = sky_vis(u, v, spec, [(*SOURCE, 1.0)])
    ref = CATALOGUE["dft"].cpu(u, v, vis, spec, None)
    return u, v, vis, spec, ref


@pytest.mark.parametrize("name", NAMES)
def test_every_record_images_a_point_source_like_the_dft(point_source, name):
    u, v, vis, spec, ref = point_source
    img = CATALOGUE[name].cpu(u, v, vis, spec, PARAMS)
    assert img.shape == ref.shape and img.dtype == np.float64
    peak = np.abs(vis).sum()
    assert np.abs(img - ref).max() <= TOLERANCE[name] * peak
    j, i = np.unravel_index(np.argmax(img), img.shape)
    assert (i - 32, j - 32) == tuple(round(x) for x in SOURCE)


def test_every_name_has_a_tolerance():
    assert set(TOLERANCE) == set(NAMES)


def test_cuda_functions_resolve_and_are_bound_to_their_record():
    for record in CATALOGUE.values():
        if record.cuda is None:  # array-generic: the CPU function takes cupy arrays too
            assert record.gridder(fake_cupy()) is record.cpu
            continue
        module, _, attribute = record.cuda.partition(":")
        fn = getattr(importlib.import_module(module), attribute)
        bound = record.gridder(fake_cupy())
        assert isinstance(bound, partial) and bound.func is fn and bound.args == (record,)
    assert CATALOGUE["conv"].cuda == registry.SEPARABLE_CUDA


@pytest.mark.parametrize("name", ALGORITHMS)
def test_get_gridder_and_axis_plans_read_the_record(name):
    record = CATALOGUE[name]
    assert get_gridder(name) is record.cpu
    assert get_gridder(name, xp=np) is record.cpu
    spec = meerkat_spec(np.array([100.0]), np.array([100.0]), 32)
    plan_u, plan_v = axis_plans(name, spec, PARAMS)
    assert (plan_u.n_grid, plan_v.n_grid) == tuple(p.n_grid for p in record.plans(spec, PARAMS))


def test_the_dft_is_no_gridder_and_unknown_names_are_refused():
    assert algorithm("dft").gridder() is CATALOGUE["dft"].cpu
    for call in (lambda: get_gridder("dft"), lambda: axis_plans("dft", None, PARAMS)):
        with pytest.raises(ValueError, match="unknown gridding algorithm 'dft'"):
            call()
    with pytest.raises(ValueError, match=r"unknown algorithm 'fft'; choose one of \('dft'"):
        algorithm("fft")


@pytest.mark.parametrize("name", ALGORITHMS)
def test_constraints_and_fine_grid_match_the_plans(name):
    """``fine_grid``: β sizes a grid even for an exact kernel; ``even_oversample``: odd β fails."""
    record = CATALOGUE[name]
    spec = meerkat_spec(np.array([100.0]), np.array([100.0]), 32)
    sizes = {
        tuple(p.n_grid for p in record.plans(spec, PARAMS.with_(oversample=beta)))
        for beta in (4, 8)
    }
    assert (len(sizes) == 2) == record.fine_grid
    odd = PARAMS.with_(oversample=5)
    if record.even_oversample:
        with pytest.raises(ValueError, match="even"):
            record.plans(spec, odd)
    else:
        record.plans(spec, odd)


def test_the_backend_names_what_computes_the_image(monkeypatch):
    """ducc0 (its own kernel) on the host, else uvlab's chain: numba or NumPy, CUDA kernels
    or CuPy."""
    from uvlab.gpu.gridders import jit_grid

    chains = {n for n in NAMES if algorithm(n).plans is not None and not algorithm(n).host_only}
    rung = "numba" if jit_grid.cpu_rung() == "numba" else "NumPy"
    assert {algorithm(n).backend("cpu") for n in chains} == {rung}
    assert {algorithm(n).backend("cpu") for n in set(NAMES) - chains} <= {"NumPy", "ducc0"}
    assert algorithm("dft").backend("cpu") == "NumPy"
    monkeypatch.setenv(jit_grid.RUNG_ENV, "numpy")
    assert algorithm("conv").backend("cpu") == "NumPy"
    assert algorithm("ducc").backend("cpu") == algorithm("ducc").backend("gpu") == "ducc0"
    assert algorithm("conv").backend("gpu") == "CUDA"  # uvlab's CUDA chain
    assert algorithm("dft").backend("gpu") == "CuPy"  # array code on cupy arrays
