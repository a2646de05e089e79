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

    def count(self) -> int:
        from uvlab.app.ms.reader import count_rows

        return count_rows(self.path, **self.kwargs())


def chunk_data(chunk):
    """The data of a chunk: ``(source, rows)`` read now, or a chunk's data held already
    on the worker (:func:`~uvlab.app.scale.ms_clean.hold`, a future Dask resolved)."""
    if isinstance(chunk, tuple) and isinstance(chunk[0], MSRead):
        source, rows = chunk
        return source.read(rows)
    return chunk
