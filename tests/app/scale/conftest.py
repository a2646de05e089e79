"""A two-worker local Dask cluster for the scale tests (processes, 127.0.0.1 only)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="package")
def client():
    from uvlab.app.scale.cluster import cluster_client

    with cluster_client(workers=2) as c:
        yield c
