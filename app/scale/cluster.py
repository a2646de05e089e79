"""The Dask cluster uvlab computes on: an in-process local one, or one it joins.

With no scheduler named, :func:`cluster_client` starts a ``LocalCluster`` sized to
the machine: one worker process per core (at most ``workers``), one thread each
(casacore is not thread-safe), bound to 127.0.0.1 (their HTTP servers on free
ports there, so that several clusters can run side by side), each with an equal
share of the memory uvlab may use. ``--scheduler ADDRESS`` (or ``UVLAB_SCHEDULER``) joins
a running cluster instead, e.g. one started by ``dask scheduler`` / ``dask
worker`` or by dask-jobqueue on Slurm; its workers keep their own limits.

With GPUs (``gpus``: the visible devices, :func:`visible_gpus`) the local cluster's workers
are pinned to them instead (:func:`default_worker_count`, or ``workers``; the GPUs given
round-robin), each a ``Nanny``
process whose ``CUDA_VISIBLE_DEVICES`` names its GPU alone, so CuPy's device 0 is its own
(distributed's ``SpecCluster``; dask-cuda's ``LocalCUDACluster`` does the same but pins
an older dask through ``rapids-dask-dependency``).
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


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as ``CUDA_VISIBLE_DEVICES`` entries (none without CuPy).

    The entries of ``CUDA_VISIBLE_DEVICES`` where it is set (a worker pinned to one of
    them must name it as the parent does), else ``0 … count − 1``.
    """
    try:
        import cupy

        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no CuPy, no driver, no device: no GPU workers
        return []
    named = os.environ.get("CUDA_VISIBLE_DEVICES")
    if named is not None:
        return [d.strip() for d in named.split(",") if d.strip()][:count]
    return [str(i) for i in range(count)]


#: Workers per GPU by default: reading and weighting a chunk on the host takes far longer
#: than imaging it on an H200 (50 000 MeerKAT rows at 4096²: about 0.8 s against 0.02 s),
#: so one worker per GPU leaves it mostly idle; more help where the host has the cores
#: (BENCHMARKS.md: 4 → 16 workers on one H200, 1.88×), but each holds its own CUDA
#: context, FFT plans and images in device memory, hence four, and ``--workers`` for more.
WORKERS_PER_GPU = 4


def default_worker_count(gpus: list[str] | None = None) -> int:
    """Workers of a local cluster: one per core; with GPUs, :data:`WORKERS_PER_GPU` per GPU
    (at most one per core, at least one per GPU)."""
    if not gpus:
        return default_workers()
    return max(len(gpus), min(default_workers(), WORKERS_PER_GPU * len(gpus)))


def gpu_worker_specs(gpus: list[str], workers: int | None, limit) -> dict:
    """``SpecCluster`` worker specs: ``workers`` (default one per GPU) ``Nanny`` processes,
    GPU ``gpus[k % len(gpus)]`` alone visible to worker k, one thread each, on 127.0.0.1."""
    from distributed import Nanny

    n = max(1, int(workers or len(gpus)))
    return {
        f"gpu{k}-{gpus[k % len(gpus)]}": {
            "cls": Nanny,
            "options": {
                "nthreads": 1, "memory_limit": limit, "host": "127.0.0.1",
                "env": {"CUDA_VISIBLE_DEVICES": gpus[k % len(gpus)]},
                "dashboard_address": "127.0.0.1:0", "silence_logs": logging.ERROR,
            },
        }
        for k in range(n)
    }  # fmt: skip


def _local_cluster(workers, memory_bytes, gpus):
    """A LocalCluster of CPU workers, or a SpecCluster of one worker per GPU.

    Dask's pause at 80 % of a worker's limit is off: uvlab sizes its chunks to the limit
    (:mod:`~uvlab.app.scale.budget`), and a worker paused by memory that no task of its
    own can free waits for ever (a 0.2 GB worker loading the numba rung did). Past 95 %
    the nanny still restarts the worker, and the job fails with Dask's KilledWorker.
    """
    import dask
    from distributed import LocalCluster, Scheduler, SpecCluster

    dask.config.set({"distributed.worker.memory.pause": False})

    n = max(1, int(workers or default_worker_count(gpus)))
    limit = "auto" if memory_bytes is None else max(1, int(memory_bytes) // n)
    if gpus:
        where = {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}
        scheduler = {"cls": Scheduler, "options": where}
        return SpecCluster(
            workers=gpu_worker_specs(gpus, n, limit), scheduler=scheduler,
            silence_logs=logging.ERROR,
        )  # fmt: skip
    return LocalCluster(
        n_workers=n, threads_per_worker=1, processes=True, memory_limit=limit,
        host="127.0.0.1", dashboard_address="127.0.0.1:0",
        worker_dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR,
    )  # fmt: skip


@contextlib.contextmanager
def cluster_client(
    scheduler: str | None = None,
    *,
    workers: int | None = None,
    memory_bytes: int | None = None,
    gpus: list[str] | None = None,
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
    gpus : list of str, optional
        GPUs for a local cluster (``CUDA_VISIBLE_DEVICES`` entries, :func:`visible_gpus`):
        workers pinned to them round-robin (:func:`default_worker_count` of them, or
        ``workers``).
    """
    from distributed import Client

    address = scheduler or os.environ.get(SCHEDULER_ENV) or None
    if address:
        client = Client(address, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
    cluster = _local_cluster(workers, memory_bytes, gpus)
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
