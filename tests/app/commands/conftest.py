"""The commands' shared cluster: one two-worker local Dask cluster (processes, 127.0.0.1)."""

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
