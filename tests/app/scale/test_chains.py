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


def test_a_broadcast_value_is_held_by_every_worker_and_equal():
    """``broadcast``: the client's value (and a value made on the cluster) ends up on every
    worker, equal to what was sent, before any task asks for it."""
    import numpy as np

    from uvlab.app.scale.chains import broadcast

    with (
        distributed.LocalCluster(n_workers=4, processes=False, protocol="tcp", host="127.0.0.1",
                                 dashboard_address="127.0.0.1:0") as cluster,
        distributed.Client(cluster) as client,
    ):  # fmt: skip
        client.wait_for_workers(4)
        value = np.arange(1000.0)
        sent = broadcast(client, value)
        made = broadcast(client, future=client.submit(np.multiply, value, 2.0, pure=False))
        workers = set(client.scheduler_info()["workers"])
        held = client.who_has([sent, made])
        assert len(workers) == 4
        assert set(held[sent.key]) == workers and set(held[made.key]) == workers, held
        np.testing.assert_array_equal(sent.result(), value)
        np.testing.assert_array_equal(made.result(), 2 * value)
