"""What a task reads of a MeasurementSet (:class:`MSRead`), and a chunk's data wherever
it is: read by the task, or already held on its worker (:func:`chunk_data`).

Every task of :mod:`uvlab.app.scale` (images, grids, NUFFTs, CLEAN's passes, several
products) starts from :func:`chunk_data`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MSRead:
    """What to read of a MeasurementSet: ``read_visibilities``'s selection arguments, and
    what each chunk read then goes through, as the window's and ``uvlab image``'s reads do
    (:mod:`uvlab.app.ms.rowselect`, :mod:`uvlab.app.ms.phaseshift`): the rows of
    ``antenna`` (CASA syntax, over ``antenna_names``; the others are flagged, so that
    every chunk keeps its rows), a new phase centre (RA, Dec degrees) and a uv range
    (min, max wavelengths; max None: none). With ``products`` (several ``--pol``
    products), :meth:`read` reads each chunk once and gives each product's data, in
    order (:mod:`uvlab.app.scale.products`); ``stokes`` is then not read."""

    path: str
    field: int | str = 0
    spw: int = 0
    column: str = "DATA"
    stokes: str = "auto"
    channels: tuple[int, int] | None = None
    time_range: tuple[float, float] | None = None
    antenna: str | None = None
    antenna_names: tuple[str, ...] = ()
    phase_centre: tuple[float, float] | None = None
    uvrange: tuple[float, float | None] | None = None
    products: tuple[str, ...] = ()

    def kwargs(self) -> dict:
        stokes = self.products[0] if self.products else self.stokes
        return dict(
            field=self.field, spw=self.spw, column=self.column, stokes=stokes,
            channels=self.channels, time_range=self.time_range,
        )  # fmt: skip

    def product(self, k: int) -> MSRead:
        """The read of product ``k`` of ``products`` alone (this read without products)."""
        from dataclasses import replace

        return replace(self, stokes=self.products[k], products=()) if self.products else self

    def read(self, rows: tuple[int, int] | None = None):
        """The chunk ``rows`` (all the selection without), a VisData; with ``products``, a
        tuple of them, one per product, from one read."""
        from uvlab.app.ms.reader import read_products, read_visibilities

        if self.products:
            kw = {k: v for k, v in self.kwargs().items() if k != "stokes"}
            data = read_products(self.path, self.products, **kw, row_range=rows)
            return tuple(self._selected(d) for d in data)
        return self._selected(read_visibilities(self.path, **self.kwargs(), row_range=rows))

    def _selected(self, data):
        """``data`` through the antenna selection, the phase shift and the uv range."""
        from dataclasses import replace

        from uvlab.app.ms.rowselect import antenna_mask, uv_range_flagged

        if self.antenna:
            keep = antenna_mask(self.antenna, self.antenna_names, data.ant1, data.ant2)
            data = replace(data, flag=data.flag | ~keep[:, None])
        if self.phase_centre is not None:
            from uvlab.app.ms.phaseshift import shift_phase_centre

            data = shift_phase_centre(data, *self.phase_centre)
        if self.uvrange is not None:
            data = uv_range_flagged(data, *self.uvrange)
        return data

    def interval(self, start: int, stop: int, name: str = "--interval") -> MSRead:
        """This read with the ``start``-th to the (``stop`` − 1)-th of the distinct TIMEs it
        reads (those of its field, window and time range) made its time range: the
        timesteps the in-memory read keeps (:func:`~uvlab.app.ms.rowselect.interval_mask`,
        whose checks give the message, an MSError naming ``name``)."""
        from dataclasses import replace

        from uvlab.app.ms.errors import MSError
        from uvlab.app.ms.reader import selection_times
        from uvlab.app.ms.rowselect import interval_mask

        times = selection_times(self.path, **self.kwargs())
        try:
            interval_mask(times, start, stop)  # its checks and messages
        except ValueError as exc:
            raise MSError(f"{self.path}: {name} {exc}") from None
        last = times[min(stop, times.size) - 1]  # past the end: to the last, as a slice
        return replace(self, time_range=(float(times[start]), float(last)))

    def count(self) -> int:
        from uvlab.app.ms.reader import count_rows

        return count_rows(self.path, **self.kwargs())

    def share_plan(self, client) -> None:
        """Hand this process's plan of the selection (made by :meth:`count`'s query) to
        every worker of ``client``, so that no worker runs the query itself: it scans the
        whole main table, seconds at 22.5 M rows, once per worker process before its
        first chunk otherwise."""
        from uvlab.app.ms.reader import selection_plan

        client.run(_adopt_plan, self, selection_plan(self.path, **self.kwargs()))


def _adopt_plan(read: MSRead, plan) -> None:
    from uvlab.app.ms.reader import adopt_selection_plan

    adopt_selection_plan(read.path, plan, **read.kwargs())


def chunk_data(chunk):
    """The data of a chunk: ``(source, rows)`` read now, or a chunk's data held already
    on the worker (a :class:`Held`, :func:`~uvlab.app.scale.ms_clean.hold`'s future
    that Dask resolved)."""
    if isinstance(chunk, tuple) and isinstance(chunk[0], MSRead):
        source, rows = chunk
        return source.read(rows)
    return chunk.data if isinstance(chunk, Held) else chunk


#: Device memory left free when a held chunk's major cycle is kept on the GPU: this
#: fraction of the device, for the image-sized work of every cycle (grids, FFTs).
DEVICE_RESERVE = 0.25


class Held:
    """A chunk's data kept on its worker for all of CLEAN's passes
    (:func:`~uvlab.app.scale.ms_clean.hold`) and, on a GPU worker, its major cycle.

    :meth:`cycle` makes the chunk's major cycle (its selected samples and imaging
    weights, in device memory) once and keeps it for every later cycle with the same
    imaging, while the device keeps :data:`DEVICE_RESERVE` of its memory free; past that
    the cycle is made again from the host data each time, as for a chunk not held.
    """

    __slots__ = ("_cycle", "_key", "data")

    def __init__(self, data):
        self.data, self._key, self._cycle = data, None, None

    def cycle(self, key: tuple, make):
        """``make()``'s major cycle, kept from the last call whose ``key`` is equal
        (element by element: the same spec, weighting, algorithm, params and totals)."""
        if self._key is not None and _same(self._key, key):
            return self._cycle
        self._key = self._cycle = None  # the old one's device memory goes first
        made = make()
        if _room_left():
            self._key, self._cycle = key, made
        return made

    def __reduce__(self):  # sent elsewhere (a worker leaving): the host data only
        return (Held, (self.data,))


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y or x == y for x, y in zip(a, b, strict=True))


def _room_left() -> bool:
    """Whether this worker's GPU has more than :data:`DEVICE_RESERVE` of its memory free."""
    import cupy

    from uvlab.gpu.backend import free_device_bytes

    _free, total = cupy.cuda.runtime.memGetInfo()
    return free_device_bytes() > DEVICE_RESERVE * total
