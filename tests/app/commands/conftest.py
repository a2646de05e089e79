"""What the commands' tests share: one two-worker local Dask cluster (processes,
127.0.0.1), one simulated VLA-C track, and the MeasurementSets ``uvlab image``'s tests image."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="package")
def cluster():
    """``--scheduler ADDRESS`` of a two-worker local cluster, started once for the package.

    The chunked runs of test_image_scaled.py and test_image_spw.py join it instead of each
    starting a cluster of its own (two spawned worker processes, their imports and numba
    compiles); the chunking and the sums over workers are the same whichever process started
    the cluster. A cluster started by the command (``--workers``) is tested by
    test_image_scaled.py's --abs-mem tests, test_logs.py and bench/test_scale.py.
    """
    pytest.importorskip("distributed")
    from uvlab.app.scale.cluster import cluster_client

    with cluster_client(workers=2) as client:
        yield ["--scheduler", client.scheduler.address]


@pytest.fixture(scope="package")
def vla_c_track(tmp_path_factory):
    """A 4 h VLA-C track of a point source (10 min integrations, one channel), simulated
    once for the package: the weighting tests' data (density frames, WSClean's cells)."""
    from tests.support.cli import run_cli

    ms = tmp_path_factory.mktemp("vla-c") / "w.ms"
    code, _, err = run_cli(
        "simulate", "--array", "vla.c", "--ra", 150, "--dec", 30, "--ha-start", -2,
        "--ha-stop", 2, "--int-s", 600, "--sky", "point", "--out", ms,
    )  # fmt: skip
    assert code == 0, err
    return ms


@pytest.fixture(scope="package")
def sims(tmp_path_factory):
    """{feeds: MS} of :mod:`tests.support.image_sims`' sources with linear and circular feeds,
    simulated once for the package (test_image.py, test_image_errors.py)."""
    from tests.support.image_sims import simulate_sources

    folder = tmp_path_factory.mktemp("sims")
    return {feeds: simulate_sources(folder, feeds) for feeds in ("linear", "circular")}
