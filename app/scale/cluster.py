"""The Dask cluster uvlab computes on: an in-process local one, or one it joins.

With no scheduler named, :func:`cluster_client` starts a ``LocalCluster`` sized to
the machine: one worker process per core (at most ``workers``), one thread each
(casacore is not thread-safe), bound to 127.0.0.1 (their HTTP servers on free
ports there, so that several clusters can run side by side), each with an equal
share of the memory uvlab may use. ``--scheduler ADDRESS`` (or ``UVLAB_SCHEDULER``) joins
a running cluster instead, e.g. one started by ``dask scheduler`` / ``dask
worker`` or by dask-jobqueue on Slurm; its workers keep their own limits.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

log = logging.getLogger(__name__)

#: The environment variable naming a scheduler to join (as ``--scheduler``).
SCHEDULER_ENV = "UVLAB_SCHEDULER"


def default_workers() -> int:
    """Worker processes of a local cluster: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def cluster_client(
    scheduler: str | None = None,
    *,
    workers: int | None = None,
    memory_bytes: int | None = None,
) -> Iterator[object]:
    """A ``distributed.Client``: of ``scheduler`` (or ``UVLAB_SCHEDULER``), else of a local cluster.

    Parameters
    ----------
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a running scheduler.
    workers : int, optional
        Worker processes of the local cluster (default :func:`default_workers`).
    memory_bytes : int, optional
        Memory all local workers together may use (each gets an equal share, and Dask
        pauses and restarts a worker beyond it); default: Dask's own (the machine's).
    """
    from distributed import Client, LocalCluster

    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address:
        client = Client(address, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
    n = max(1, int(workers or default_workers()))
    limit = "auto" if memory_bytes is None else max(1, int(memory_bytes) // n)
    cluster = LocalCluster(
        n_workers=n, threads_per_worker=1, processes=True, memory_limit=limit,
        host="127.0.0.1", dashboard_address="127.0.0.1:0",
        worker_dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR,
    )  # fmt: skip
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def describe(client) -> str:
    """One line: where the work runs, and the dashboard's address (or that it is off).

    The dashboard is named only when the scheduler serves one and bokeh, which its
    pages need, is importable here; otherwise the line says it is off.
    """
    import importlib.util

    info = client.scheduler_info()
    nworkers = len(info.get("workers", {}))
    bokeh = importlib.util.find_spec("bokeh") is not None  # the status pages need it
    link = None
    if bokeh and info.get("services", {}).get("dashboard"):
        link = getattr(client, "dashboard_link", None)
    where = f"Dask cluster {client.scheduler.address}, {nworkers} workers; "
    if link:
        return where + f"dashboard {link}"
    return where + ("dashboard off" if bokeh else "dashboard off (bokeh is not installed)")
