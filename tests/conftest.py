"""Shared fixtures: the `gpu` marker skips cleanly without a CUDA device."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tests.support.device import HAS_GPU
from tests.support.paths import TEST_DATA
from uvlab.gpu.backend import device_info

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# uvlab's cache (the IERS table, uvlab.app.observing.iers_cache) goes to a folder of this run,
# not the user's ~/.cache; subprocesses (the CLI and docs tests) inherit it and share it.
os.environ.setdefault("UVLAB_CACHE", tempfile.mkdtemp(prefix="uvlab-test-cache-"))


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason=f"no CUDA device: {device_info().reason}")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


@pytest.fixture(params=["numpy", pytest.param("cupy", marks=pytest.mark.gpu)])
def xp(request):
    """Run a test once with NumPy and once with CuPy (skipped without a GPU)."""
    if request.param == "cupy":
        import cupy

        return cupy
    return np


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


@pytest.fixture
def ms_copy(tmp_path):
    """Copy a real MeasurementSet from tests/data into tmp_path (casacore writes lock files)."""

    def _copy(name: str) -> Path:
        dst = tmp_path / name
        shutil.copytree(TEST_DATA / name, dst)
        return dst

    return _copy
