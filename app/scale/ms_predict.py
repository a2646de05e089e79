"""``uvlab predict`` over a Dask cluster: chunks computed on the workers, written here in order.

Each task opens the MeasurementSet read-only on its worker, reads its chunk's UVW,
INTERVAL (and TIME and antennas for Jones terms), predicts it with the engine
(:meth:`~uvlab.app.ms.predict_chunks.ChunkPredict.compute`, the same code and the same
chunks as the one-process predict) and returns its correlations, checked finite. The
client, which holds the MS's write lock and the open journaled write
(:func:`~uvlab.app.ms.column_writer.write_column`), writes the chunks into the new column
in row order as they arrive, with at most ``window`` tasks in flight, and the column is
switched once at the end: the all-or-nothing promise of docs/data-safety.md is the
one-process predict's, because only this process writes the table.

The workers read without casacore's table locks (``usernoread``): the client holds the
table open for writing, and a reader that waited for its lock would wait for ever. That is
safe here: the write lock ``UVLAB_LOCK`` keeps every other uvlab writer out, and the client
changes only the new column, which the workers never read; the table's description on disk
(``table.dat``) is the old one until the client's flush after the last chunk is written.
"""

from __future__ import annotations

import logging
from collections import deque

from uvlab.app.ms.predict_chunks import CHUNK_BYTES, Chunk, ChunkPredict, ChunkResult

log = logging.getLogger(__name__)

#: A worker's memory beside its chunk's temporaries: Python, NumPy and casacore's caches.
WORKER_FIXED_BYTES = 96 * 2**20
#: The smallest chunk budget a worker may be left with (bytes of temporaries).
MIN_CHUNK_BYTES = 2**20


def chunk_budget(memory_bytes: int | None, workers: int) -> int:
    """Bytes of temporaries per chunk on a worker whose share of ``memory_bytes`` (all the
    workers') is ``memory_bytes / workers``: the one-process predict's
    :data:`~uvlab.app.ms.predict_chunks.CHUNK_BYTES` (the same chunks, the same bytes) when
    that fits beside :data:`WORKER_FIXED_BYTES`, else what does.

    Raises
    ------
    uvlab.app.scale.budget.BudgetError
        When a worker's share leaves less than :data:`MIN_CHUNK_BYTES` for its chunk.
    """
    from uvlab.app.runtime.memory import format_bytes
    from uvlab.app.scale.budget import BudgetError

    if memory_bytes is None:
        return CHUNK_BYTES
    share = int(memory_bytes) // max(1, int(workers))
    room = share - WORKER_FIXED_BYTES
    if room < MIN_CHUNK_BYTES:
        raise BudgetError(
            f"predict needs at least {format_bytes(WORKER_FIXED_BYTES + MIN_CHUNK_BYTES)} per "
            f"worker, but a worker may use {format_bytes(share)}: give more memory (--abs-mem) "
            "or fewer workers"
        )
    return min(CHUNK_BYTES, room)


def predict_task(chunks: ChunkPredict, chunk: Chunk) -> ChunkResult:
    """On a worker: read ``chunk``'s rows from the MS (read-only, no table locks) and predict
    them."""
    from casacore import tables

    from uvlab.app.ms.tables import translated

    with translated(chunks.path):
        tab = tables.table(chunks.path, readonly=True, ack=False, lockoptions="usernoread")
    try:
        return chunks.compute(tab, chunk)
    finally:
        tab.close()


def cluster_runner(client, *, window: int | None = None):
    """A ``runner`` for :func:`~uvlab.app.ms.predict_ms.predict_to_ms` that computes the
    chunks on ``client``'s cluster (at most ``window`` in flight; default two per worker)
    and writes them here, in row order."""

    def run(chunks, tab, name, progress, cancelled) -> None:
        fill_on_cluster(client, chunks, tab, name, progress, cancelled, window=window)

    return run


def fill_on_cluster(client, chunks, tab, name, progress=None, cancelled=None, *, window=None):
    """Write every chunk of ``tab``'s column ``name``, each computed by :func:`predict_task`.

    The chunks are submitted in row order, at most ``window`` at a time, and written as the
    oldest one ends, so the client holds at most ``window`` chunks' correlations. A task's
    error (a non-finite chunk, an unreadable MS) is raised here, the other tasks are
    cancelled, and :func:`~uvlab.app.ms.column_writer.write_column` rolls the column back,
    as on a cancel (``cancelled()`` is checked before each chunk is awaited).
    """
    from uvlab.app.ms.column_writer import put_rows
    from uvlab.app.ms.tables import translated
    from uvlab.app.runtime.errors import Cancelled

    if window is None:
        window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    shared = client.scatter(chunks.on_host(), broadcast=True, hash=False)
    plan = chunks.plan(tab)  # FIELD_ID and DATA_DESC_ID read here, a block at a time
    pending: deque = deque()

    def submit_next() -> None:
        chunk = next(plan, None)
        if chunk is not None:
            pending.append(client.submit(predict_task, shared, chunk, pure=False))

    try:
        for _ in range(max(1, int(window))):
            submit_next()
        done = 0
        while pending:
            if cancelled is not None and cancelled():
                raise Cancelled(f"predict into {chunks.path} cancelled")
            res = pending.popleft().result()
            submit_next()  # the window stays full while this chunk is written
            chunks.record(res)
            with translated(chunks.path):
                put_rows(tab, name, res.chunk.start, res.corr)
            done += res.chunk.nrow
            if progress is not None:
                progress(done / max(chunks.nrows, 1))
    finally:
        if pending:
            client.cancel(list(pending))
        client.cancel([shared])
