"""``uvlab simulate`` over a Dask cluster: chunks predicted on the workers, noise added here.

:func:`~uvlab.app.ms.writer.write_ms` asks for the visibilities of its row chunks (whole
integrations) one after the other and writes them into the build folder, which is renamed
into place when complete (docs/data-safety.md). :func:`cluster_runner` gives it a function
that predicts those chunks on the workers, at most ``window`` ahead of the writer, each the
noiseless :func:`~uvlab.app.ms.simulate.visibility_chunks` of its rows (sent to every
worker once, with the observation, the sky and the Jones terms), and adds the thermal noise
here, in row order, from the one generator ``numpy.random.default_rng(seed)`` the
one-process simulation draws from chunk after chunk: the same bytes for the same seed.
Only this process writes, as without a cluster.
"""

from __future__ import annotations

from collections import deque


def _call(fn, rows: slice):
    return fn(rows)


class OrderedChunks:
    """``rows → visibilities`` for :func:`~uvlab.app.ms.writer.write_ms`, computed on a cluster.

    The first call's rows give the chunk length; the chunks after it (to ``nrow``) are
    submitted ahead, at most ``window`` in flight, and each call returns the next one
    (the writer asks for them in order: any other order is a ``ValueError``), its noise
    added here. :meth:`close` cancels what is still in flight.
    """

    def __init__(self, client, fn, nrow: int, noise_jy: float, seed, window: int):
        import numpy as np

        self.client, self.nrow, self.noise_jy = client, int(nrow), float(noise_jy)
        self.window = max(1, int(window))
        self.rng = np.random.default_rng(seed)
        self.fn = client.scatter(fn, broadcast=True, hash=False)
        self.plan = None
        self.pending: deque = deque()

    def _submit_next(self) -> None:
        rows = next(self.plan, None)
        if rows is not None:
            future = self.client.submit(_call, self.fn, rows, pure=False)
            self.pending.append((rows, future))

    def __call__(self, rows: slice):
        import numpy as np

        from uvlab.app.ms.finite import check_chunk
        from uvlab.app.ms.simulate import add_noise

        if self.plan is None:
            step = max(1, rows.stop - rows.start)
            self.plan = iter(
                [slice(a, min(a + step, self.nrow)) for a in range(0, self.nrow, step)]
            )
            for _ in range(self.window):
                self._submit_next()
        want, future = self.pending.popleft() if self.pending else (None, None)
        if want is None or (want.start, want.stop) != (rows.start, rows.stop):
            raise ValueError(f"rows {rows.start}:{rows.stop} asked out of order")
        b = future.result()
        self._submit_next()
        if self.noise_jy > 0:
            with np.errstate(over="ignore", invalid="ignore"):
                b = add_noise(b, self.noise_jy, self.rng)
            check_chunk(b, f"the visibilities of rows {rows.start}–{rows.stop - 1}",
                        lambda: f"check --noise-jy ({self.noise_jy:g})")  # fmt: skip
        return b

    def close(self) -> None:
        futures = [f for _, f in self.pending]
        self.pending.clear()
        self.client.cancel([*futures, self.fn])


def cluster_runner(client, *, window: int | None = None):
    """A ``runner`` for :func:`~uvlab.app.ms.simulate.simulate_ms` on ``client``'s cluster
    (at most ``window`` chunks in flight; default two per worker). The chunks in flight are
    cancelled when :func:`~uvlab.app.ms.simulate.simulate_ms` ends (``runner.close()``)."""
    made: list[OrderedChunks] = []

    def run(fn, nrow, noise_jy, seed) -> OrderedChunks:
        n = window or 2 * max(1, len(client.scheduler_info().get("workers", {})))
        made.append(OrderedChunks(client, fn, nrow, noise_jy, seed, n))
        return made[-1]

    def close() -> None:
        for chunks in made:
            chunks.close()

    run.close = close
    return run
