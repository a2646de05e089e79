"""The cluster options that ``uvlab image`` and ``uvlab predict`` share (issue 27).

``--scheduler ADDRESS`` (or ``UVLAB_SCHEDULER``) joins a running Dask cluster;
``--workers N`` starts a local one of N worker processes; ``--abs-mem GB`` (WSClean's
name) caps the memory all local workers may use; ``--chunk-rows N`` sets the rows per
chunk. Any of them sends the command through its chunked path
(:mod:`uvlab.app.commands.image_scaled`, :mod:`uvlab.app.scale.ms_predict`), which
starts or joins the cluster with :func:`uvlab.app.scale.cluster.cluster_client`.
"""

from __future__ import annotations

import os

from uvlab.app.commands.validate import number

COUNT = number(1, integer=True)
GIGABYTES = number(0.0, open_lo=True, unit="GB")

#: How the options are named together in messages.
FLAGS = "--scheduler/--workers/--abs-mem/--chunk-rows"


def add_cluster_args(p, description: str) -> None:
    """Add ``--scheduler``, ``--workers``, ``--abs-mem`` and ``--chunk-rows`` to parser ``p``,
    in a group "scale" described by ``description``."""
    g = p.add_argument_group("scale", description)
    g.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="join this Dask scheduler (tcp://HOST:PORT; default $UVLAB_SCHEDULER)",
    )  # fmt: skip
    g.add_argument(
        "--workers", type=COUNT, metavar="N",
        help="worker processes of the local cluster (default: the cores)",
    )  # fmt: skip
    g.add_argument(
        "--abs-mem", type=GIGABYTES, metavar="GB",
        help="memory all local workers may use, GB (WSClean's -abs-mem; default: what is free)",
    )  # fmt: skip
    g.add_argument(
        "--chunk-rows", type=COUNT, metavar="N",
        help="rows per chunk (default: what fits a worker's memory)",
    )  # fmt: skip


def wanted(args) -> bool:
    """Whether ``args`` ask for the chunked path (any cluster option, or ``UVLAB_SCHEDULER``)."""
    from uvlab.app.scale.cluster import SCHEDULER_ENV

    return bool(
        args.scheduler or args.workers or args.abs_mem or args.chunk_rows
        or os.environ.get(SCHEDULER_ENV)
    )  # fmt: skip


def memory_bytes(args) -> int | None:
    """The memory all local workers together may use: the smallest of what is free (90 %)
    and ``--abs-mem``; None when neither is known."""
    from uvlab.app.runtime.memory import USABLE_FRACTION
    from uvlab.app.runtime.memory_limits import available_bytes

    free = available_bytes()
    free = None if free is None else int(USABLE_FRACTION * free)
    if args.abs_mem is None:
        return free
    cap = int(args.abs_mem * 2**30)
    return cap if free is None else min(cap, free)


def local_gpus(args) -> list[str]:
    """The GPUs a local cluster pins its workers to: the visible ones when the work runs on
    a GPU (``--device gpu``, or ``auto`` with one) and no scheduler is joined; else none."""
    from uvlab.app.scale.cluster import SCHEDULER_ENV, visible_gpus
    from uvlab.gpu.backend import DeviceError, resolve_device

    if args.scheduler or os.environ.get(SCHEDULER_ENV):
        return []
    try:
        on_gpu = resolve_device(args.device) == "gpu"
    except DeviceError:  # the command reports it, with its own message
        return []
    return visible_gpus() if on_gpu else []
