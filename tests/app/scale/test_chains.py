"""The chains' view of the cluster: the workers the scheduler has now, waiting for one."""

from __future__ import annotations

import pytest

distributed = pytest.importorskip("distributed")

from uvlab.app.scale.chains import live_workers  # noqa: E402


def test_a_cluster_without_workers_is_waited_for_then_refused_in_one_line():
    """None at all: a RuntimeError after the wait; one that joins during the wait is used
    (a worker restarting after a crash, or a cluster still starting, is not an error)."""
    with (
        distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                 dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):  # fmt: skip
        with pytest.raises(RuntimeError, match=r"has no workers \(waited 0.2 s\)"):
            live_workers(client, wait_s=0.2)
        cluster.scale(1)
        got = live_workers(client, wait_s=120)
        assert got == sorted(client.scheduler_info()["workers"]) and len(got) == 1
