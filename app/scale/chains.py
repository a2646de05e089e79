"""Accumulation chains: each worker adds its chunks into one grid of its own, in place.

A grid part (:class:`~uvlab.gpu.imaging.grid_parts.PartGrid`) is as large as the
gridder's padded grid (≈ 270 MB for 2880² at σ = 2, dirty and PSF both), so summing a
copy per chunk in a tree would hold several at once. Instead each worker runs a *chain*:
task k of a chain takes the chain's accumulator (the future of task k − 1, None for the
first) and a chunk, and returns the same accumulator with the chunk gridded into it. An
accumulator is used by one task only, so adding into it in place is safe; Dask keeps the
object in the worker's memory, so nothing is copied between the tasks of a chain.

Each chain keeps at most :data:`IN_FLIGHT` chunk tasks submitted (the running one and the
next), so a worker never waits for the client between chunks. As each chunk ends,
``progress`` is called and ``cancelled()`` is asked: a cancel drops every task still to
run and raises :class:`Cancelled`. The chains' accumulators are then added pairwise on
the workers that hold them (:func:`reduce_on_workers`), so one more grid crosses the
network per addition, and one task finishes the sum.

Results that are small beside a grid, or already images (the density counts, a GPU
worker's or w-stacking's image of a chunk), fold the same way (:func:`fold_sum`): each
worker adds its chunks' results into one of its own in place, and the workers' sums are
added pairwise on the workers, so one result per worker crosses the network, however many
chunks there are.
"""

from __future__ import annotations

from collections.abc import Callable

#: Chunk tasks of one chain submitted at once: the running one and the next.
IN_FLIGHT = 2


class Cancelled(RuntimeError):
    """The caller's ``cancelled()`` said stop: no further chunk was started."""


def run_chains(
    client, fn: Callable, chunks, *, progress=None, cancelled=None, per_worker=None, **kwargs
) -> list[tuple[str, object]]:
    """Fold ``fn(chunk, acc, **kwargs) -> acc`` over ``chunks``, one chain per worker.

    Parameters
    ----------
    client : distributed.Client
    fn : callable
        ``fn(chunk, acc, **kwargs)``: ``acc`` is None for a chain's first chunk; returns
        the accumulator with the chunk added (it may add in place).
    chunks : sequence
        Handed to ``fn`` one at a time: each worker takes the chunks of its own queue
        (chunks that are futures of data kept on the workers,
        :func:`~uvlab.app.scale.ms_clean.hold`, go to the worker that holds them; the
        others are dealt out in turn), and a worker whose queue is empty takes from the
        longest queue the chunks that are not held (:func:`_next_chunk`).
    progress : callable(fraction), optional
        Called as each chunk's task ends.
    cancelled : callable() -> bool, optional
        Asked as each chunk's task ends; True cancels the rest and raises
        :class:`Cancelled`.
    per_worker : callable(worker) -> dict, optional
        Further keyword arguments of the tasks of ``worker``'s chain (called once per
        worker: e.g. the future of something each worker made for itself).

    Returns
    -------
    list of (worker address, future of its accumulator)
        The chains that received a chunk.
    """
    from distributed import as_completed

    workers = live_workers(client)
    todo = _queues(client, chunks, workers)
    extra = {w: (per_worker(w) if per_worker is not None else {}) for w in workers}
    total = max(1, len(chunks))
    head: dict[str, object] = {}  # worker → future of its chain's latest accumulator
    owner: dict[str, str] = {}  # task key → worker
    queue = as_completed()

    def submit(worker: str) -> None:
        chunk = _next_chunk(todo, worker)
        if chunk is None:
            return
        fut = client.submit(fn, chunk, head.get(worker), **kwargs, **extra[worker],
                            workers=[worker], allow_other_workers=False, pure=False)  # fmt: skip
        head[worker] = fut
        owner[fut.key] = worker
        queue.add(fut)

    for _ in range(IN_FLIGHT):
        for w in workers:
            submit(w)
    finished = 0
    for done in queue:
        if done.status == "error":
            _cancel(client, head)
            done.result()  # raises the task's exception here
        finished += 1
        if progress is not None:
            progress(finished / total)
        if cancelled is not None and cancelled():
            _cancel(client, head)
            raise Cancelled(f"cancelled after {finished} of {total} chunks")
        submit(owner.pop(done.key))
    return list(head.items())


#: Seconds to wait for a worker where the cluster has none (one restarting, one joining).
WORKER_WAIT_S = 120.0


def live_workers(client, wait_s: float = WORKER_WAIT_S) -> list[str]:
    """The cluster's workers' addresses, sorted, as the scheduler has them now; where it has
    none (a worker restarting after a crash, or not yet joined), waits up to ``wait_s`` for
    one before raising ``RuntimeError``."""
    workers = sorted(client.scheduler_info().get("workers", {}))
    if workers:
        return workers
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except TimeoutError:
        raise RuntimeError(f"the Dask cluster has no workers (waited {wait_s:g} s)") from None
    workers = sorted(client.scheduler_info().get("workers", {}))
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    return workers


def _queues(client, chunks, workers) -> dict:
    """Each worker's queue of chunks: those it holds (futures whose data it has), the rest
    dealt out in turn."""
    from collections import deque

    from distributed import Future

    chunks = list(chunks)
    futures = [c for c in chunks if isinstance(c, Future)]
    where = client.who_has(futures) if futures else {}
    queues = {w: deque() for w in workers}
    for k, chunk in enumerate(chunks):
        holders = where.get(chunk.key, ()) if isinstance(chunk, Future) else ()
        home = next((w for w in holders if w in queues), workers[k % len(workers)])
        queues[home].append(chunk)
    return queues


def _next_chunk(todo: dict, worker: str):
    """The next chunk for ``worker``: the first of its own queue; when that is empty, the
    last of the longest other queue, unless that is a chunk held on its worker (a future):
    held data are used where they are held (their major cycle may be kept in that worker's
    GPU memory, and a copy sent elsewhere would go over the network each pass). None: no
    chunk for it."""
    from distributed import Future

    if todo[worker]:
        return todo[worker].popleft()
    other = max(todo.values(), key=len)
    if not other or isinstance(other[-1], Future):
        return None
    return other.pop()


def _cancel(client, head: dict) -> None:
    client.cancel(list(head.values()))


def reduce_on_workers(client, pieces: Callable, add_piece: Callable, chains, nbands: int):
    """The chains' accumulators summed into the first one, a band at a time, on its worker.

    Parameters
    ----------
    pieces : callable
        ``pieces(acc, band, nbands)``: a copy of band ``band`` of ``nbands`` of ``acc``
        (run on ``acc``'s worker; small).
    add_piece : callable
        ``add_piece(acc, piece, band, nbands, *after)``: ``acc`` with ``piece`` added into
        its band ``band``, in place (run on the first chain's worker).
    chains : list of (worker, future)
        :func:`run_chains`'s result.
    nbands : int
        Bands each accumulator is sent in: the summing worker holds one band of another
        worker's grid at a time, not a whole grid.

    Returns
    -------
    (worker, future of the sum, [futures that must end before the sum is read])
        Each addition takes the previous one as ``after``, so they run in order and the
        last one's end means all have.
    """
    chains = list(chains)
    if not chains:
        raise ValueError("nothing to sum")
    (worker, acc), last = chains[0], None
    for other_worker, other in chains[1:]:
        for band in range(nbands):
            piece = client.submit(pieces, other, band, nbands, workers=[other_worker],
                                  allow_other_workers=False, pure=False)  # fmt: skip
            after = () if last is None else (last,)
            last = client.submit(add_piece, acc, piece, band, nbands, *after, workers=[worker],
                                 allow_other_workers=False, pure=False)  # fmt: skip
    return worker, acc, [] if last is None else [last]


def chain_sum(
    client, fold: Callable, chunks, *, progress=None, cancelled=None, finish=None, **kwargs
):  # fmt: skip
    """The future of the sum of the chains' accumulators: ``fold(chunk, acc, **kwargs)``
    over ``chunks``, a chain per worker (:func:`run_chains`), each brought to its
    worker's host memory (``finish``, by default :func:`on_host`: what a worker sends of
    its accumulator), then added pairwise where they are (:func:`pairwise_sum`)."""
    chains = run_chains(client, fold, chunks, progress=progress, cancelled=cancelled, **kwargs)
    finish = finish or on_host
    host = [client.submit(finish, acc, workers=[worker], allow_other_workers=False, pure=False)
            for worker, acc in chains]  # fmt: skip
    del chains
    return pairwise_sum(client, host)


def on_host(acc):
    """A chain's accumulator with its arrays in host memory: a GPU worker sums its chunks'
    images or density counts in device memory (its ``on_host()``, or a CuPy array's
    ``get()``: one copy per worker, not one per chunk); anything else as it is."""
    if hasattr(acc, "__cuda_array_interface__"):
        return acc.get()
    to_host = getattr(acc, "on_host", None)
    return acc if to_host is None else to_host()


def fold_sum(client, fn: Callable, chunks, *, progress=None, cancelled=None, **kwargs):
    """The future of Σ ``fn(chunk, **kwargs)`` over ``chunks``: :func:`chain_sum` where each
    chain adds its chunks' results into its first one in place (results that support
    ``+=``: arrays, :class:`~uvlab.gpu.imaging.parts.PartImage`). ``progress`` and
    ``cancelled`` as :func:`run_chains`'s."""
    return chain_sum(client, _add_into, chunks, progress=progress, cancelled=cancelled,
                     part=fn, **kwargs)  # fmt: skip


def _add_into(chunk, acc, *, part, **kwargs):
    result = part(chunk, **kwargs)
    if acc is None:
        return result
    acc += result  # in place: the chain's accumulator is used by this task alone
    return acc


def broadcast(client, value=None, *, future=None):
    """The future of ``value`` (or of ``future``'s result) held by every worker.

    The client sends ``value`` to one worker, and the workers copy it among themselves in a
    tree (``Client.replicate``: the holders double each round), rather than the client
    sending it once per worker (``scatter(broadcast=True)``): a 537 MB density grid or a
    134 MB model reaches 16 workers in four rounds, not sixteen sends in a row. ``future``:
    something made on the cluster (the density totals) goes out from where it is, never
    through the client.
    """
    if future is None:
        # hash=False: a value equal to an earlier one (a model from a cycle that cleaned
        # nothing, a second CLEAN) would take its key while the scheduler forgets it
        future = client.scatter(value, hash=False)
    client.replicate([future])
    return future


def pairwise_sum(client, futures):
    """The future of the sum of ``futures``, added pairwise on the workers that hold them."""
    import operator

    futures = list(futures)
    if not futures:
        raise ValueError("nothing to sum")
    while len(futures) > 1:
        pairs = [futures[k : k + 2] for k in range(0, len(futures), 2)]
        futures = [client.submit(operator.add, *p, pure=False) if len(p) == 2 else p[0]
                   for p in pairs]  # fmt: skip
    return futures[0]
