"""Read one field, one spectral window and one Stokes product from a MeasurementSet.

Rows are those of the chosen field whose DATA_DESC_ID points at the chosen
spectral window, selected with TaQL. Autocorrelations (ANTENNA1 == ANTENNA2)
are dropped: they carry no fringe and would put total power at the uv origin.
Data are read in row chunks, so the temporary memory beyond the result is a
fixed budget; ``progress(fraction)`` is called after each chunk and
``cancelled()`` is checked before each one.

Weights, per correlation, come from the first of these that holds a positive
value in the first chunk: WEIGHT_SPECTRUM, WEIGHT (broadcast over channels),
1/SIGMA²; otherwise unit weights. ``VisData.weight_source`` says which.
They combine into the Stokes weight as in :mod:`uvlab.app.ms.stokes`.
FLAG and FLAG_ROW are honoured (a chunk as read: :mod:`uvlab.app.ms.row_chunk`).
Bad values never reach an image: rows whose UVW is not finite are flagged whole
(UVW, visibility and weight set to 0), and samples whose visibility is not finite
in any correlation used are flagged (visibility and weight set to 0;
:mod:`uvlab.app.ms.bad_values`). How many samples not already flagged this
caught is in ``VisData.nonfinite_uvw_rows`` / ``nonfinite_vis_samples``, and
``VisData.bad_values_note`` says it in one line naming the MS for the caller
to show (``uvlab image``/``compare`` print it on stderr, the lab logs it).

The rows come from :mod:`uvlab.app.ms.row_plan` (once per process for data read in
parts); the result is a :class:`~uvlab.app.ms.vis_data.VisData`.

casacore is not thread-safe: call :func:`read_visibilities` from the single
I/O thread (see :mod:`uvlab.app.ms.tables`). The MS is opened read-only.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from uvlab.app.ms.bad_values import flag_nonfinite
from uvlab.app.ms.errors import Cancelled, MSError
from uvlab.app.ms.row_chunk import corrs_for, read_chunk, weight_source
from uvlab.app.ms.row_plan import check_readable, describe, plan_for, row_part, selected
from uvlab.app.ms.stokes import combine
from uvlab.app.ms.tables import MSTables, row_chunks, translated
from uvlab.app.ms.vis_data import VisData

__all__ = ["CHUNK_BYTES", "VisData", "count_rows", "read_products", "read_visibilities",
           "selection_times"]  # fmt: skip

#: Temporary bytes per chunk when ``chunk_rows`` is not given.
CHUNK_BYTES = 64 * 2**20


def count_rows(
    path: str | os.PathLike,
    *,
    field: int | str = 0,
    spw: int = 0,
    column: str = "DATA",
    stokes: str = "auto",
    channels: slice | tuple[int, int] | None = None,
    time_range: tuple[float, float] | None = None,
) -> int:
    """Rows :func:`read_visibilities` reads with these arguments (its ``row_range`` is within).

    Raises
    ------
    MSError
        As :func:`read_visibilities` for a selection that cannot be read.
    """
    return selection_plan(path, field=field, spw=spw, column=column, stokes=stokes,
                          channels=channels, time_range=time_range).nrows  # fmt: skip


def selection_plan(path, *, field=0, spw=0, column="DATA", stokes="auto", channels=None,
                   time_range=None):  # fmt: skip
    """The :class:`~uvlab.app.ms.row_plan.Plan` a part's read of this selection uses
    (:func:`read_visibilities` with ``row_range``): made by one query per process, or
    handed to it (:func:`adopt_selection_plan`)."""
    with MSTables(path) as ms:
        selection = dict(field=field, spw=spw, column=column, stokes=stokes, channels=channels)
        return plan_for(ms, time_range, **selection)


def adopt_selection_plan(path, plan, *, field=0, spw=0, column="DATA", stokes="auto",
                         channels=None, time_range=None) -> None:  # fmt: skip
    """Keep ``plan`` (:func:`selection_plan` of another process: the client's) as this
    process's plan of the selection, so that its part reads run no query."""
    from uvlab.app.ms.row_plan import adopt_plan

    with MSTables(path) as ms:
        selection = dict(field=field, spw=spw, column=column, stokes=stokes, channels=channels)
        adopt_plan(ms, time_range, plan, **selection)


def selection_times(path: str | os.PathLike, **selection) -> np.ndarray:
    """The distinct TIMEs (sorted, MJD seconds) of the rows :func:`read_visibilities` reads
    with ``selection`` (its keyword arguments but the row range), found by TaQL."""
    with MSTables(path) as ms:
        sel, _tab = selected(ms, **selection)
        with translated(ms.path):
            return np.asarray(
                ms.query(sel.where).query("", sortlist="UNIQUE TIME", columns="TIME")
                .getcol("TIME"), dtype=np.float64,
            )  # fmt: skip


def read_visibilities(
    path: str | os.PathLike,
    *,
    field: int | str = 0,
    spw: int = 0,
    column: str = "DATA",
    stokes: str = "auto",
    channels: slice | tuple[int, int] | None = None,
    time_range: tuple[float, float] | None = None,
    chunk_rows: int | None = None,
    progress: Callable[[float], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    row_range: tuple[int, int] | None = None,
) -> VisData:
    """Read visibilities of one field and spectral window as one Stokes product.

    Parameters
    ----------
    path : str or path-like
        The MeasurementSet folder (opened read-only).
    field : int or str
        FIELD_ID, or the field's NAME.
    spw : int
        SPECTRAL_WINDOW row.
    column : {"DATA", "CORRECTED_DATA", "MODEL_DATA"}
    stokes : str
        ``I``, ``Q``, ``U``, ``V``, a correlation held (``XX``, ``RL``, ...), or
        ``"auto"`` (the default): Stokes I where the MS can form it, else its
        first correlation (:func:`uvlab.app.ms.stokes.default_stokes`).
        ``VisData.stokes`` says which was read.
    channels : slice or (start, stop), optional
        Channels of the window to read (default all).
    time_range : (float, float), optional
        Inclusive TIME bounds, MJD seconds.
    chunk_rows : int, optional
        Rows per read; by default enough to fill about 64 MiB of temporaries.
    progress : callable(float), optional
        Called with the fraction of rows read after each chunk.
    cancelled : callable() -> bool, optional
        Checked before each chunk; True raises :class:`Cancelled`.
    row_range : (start, stop), optional
        Only these rows of the selection (0 … :func:`count_rows`), for data read in parts
        (:mod:`uvlab.app.scale`); a part may then be entirely flagged.

    Returns
    -------
    VisData

    Raises
    ------
    MSError
        Bad path or MS, unknown field/spw/column, a Stokes product that cannot
        be formed, an empty selection, or a selection that is entirely flagged.
    Cancelled
        When ``cancelled()`` returns True.
    """
    return _read(path, (stokes,), field=field, spw=spw, column=column, channels=channels,
                 time_range=time_range, chunk_rows=chunk_rows, progress=progress,
                 cancelled=cancelled, row_range=row_range)[0]  # fmt: skip


def read_products(path: str | os.PathLike, products, **kwargs) -> tuple[VisData, ...]:
    """Several Stokes products (or correlations) of one selection, from one read of it.

    ``products``: the products, in order (``("I", "Q", "U", "V")``); ``kwargs``: as
    :func:`read_visibilities`'s. Each VisData equals :func:`read_visibilities`'s of that
    product (its vis, weight and flag formed from the correlations it uses, its
    non-finite counts); the rows' arrays are shared. The chunks read take every
    correlation the products use (:mod:`uvlab.app.scale`: each row chunk read once for
    every ``--pol`` product).
    """
    return _read(path, tuple(products), **kwargs)


def _read(
    path, products: tuple[str, ...], *, field=0, spw=0, column="DATA", channels=None,
    time_range=None, chunk_rows=None, progress=None, cancelled=None, row_range=None,
) -> tuple[VisData, ...]:  # fmt: skip
    """:func:`read_visibilities` of each of ``products``, reading the MS once."""
    from uvlab.app.ms.stokes import recipe

    with MSTables(path) as ms:
        selection = dict(field=field, spw=spw, column=column, stokes=products[0],
                         channels=channels)  # fmt: skip
        if row_range is None:
            sel, tab = selected(ms, time_range=time_range, **selection)
            check_readable(ms, sel, tab, time_range)
            offset, n = 0, tab.nrows()
        else:  # a part: the selection's rows found once per process
            plan = plan_for(ms, time_range, **selection)
            sel = plan.sel
            tab, offset, n = row_part(ms, plan, row_range)
        recipes = [sel.recipe]
        for p in products[1:]:  # the rows do not depend on the product (Selection.where)
            try:
                recipes.append(recipe(sel.corr_names, p))
            except MSError as exc:
                raise MSError(f"{ms.path}: {exc}") from None
        nchan, ncorr, nprod = sel.freq_hz.size, len(sel.corr_names), len(products)
        step = chunk_rows or max(1, CHUNK_BYTES // (sel.spw.nchan * ncorr * 16))
        dtype = np.complex128 if tab.coldatatype(sel.column) == "dcomplex" else np.complex64
        vis = [np.empty((n, nchan), dtype=dtype) for _ in products]
        weight = [np.empty((n, nchan), dtype=np.float32) for _ in products]
        flag = [np.empty((n, nchan), dtype=bool) for _ in products]
        uvw, time = np.empty((n, 3)), np.empty(n)
        ant1, ant2 = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int32)
        source, intervals = None, []
        corrs = corrs_for([i for r in recipes for i in r.indices], ncorr)
        used = [corrs.local(r.indices) for r in recipes]  # among the correlations read
        local = [replace(r, indices=tuple(u)) for r, u in zip(recipes, used, strict=True)]
        bad = np.zeros((nprod, 2), dtype=np.int64)  # each product's rows, samples
        for start, nrow in row_chunks(n, step):
            if cancelled is not None and cancelled():
                raise Cancelled(f"reading {ms.path} cancelled")
            with translated(ms.path):
                source = source or weight_source(tab, sel, offset + start, nrow)
                chunk = read_chunk(tab, sel, corrs, source, offset + start, nrow)
            bad += np.asarray(flag_nonfinite(chunk, *used), dtype=np.int64)
            rows = slice(start, start + nrow)
            uvw[rows], time[rows] = chunk.uvw, chunk.time
            ant1[rows], ant2[rows] = chunk.ant1, chunk.ant2
            if chunk.interval is not None:
                intervals.append(chunk.interval)
            for k in range(nprod):
                vis[k][rows], weight[k][rows], flag[k][rows] = combine(
                    local[k], chunk.data, chunk.flag, chunk.weight
                )
            if progress is not None:
                progress((start + nrow) / n)
        if tab is ms.main:
            row_numbers = np.arange(offset, offset + n, dtype=np.int64)
        else:
            row_numbers = np.asarray(tab.rownumbers(), dtype=np.int64)
    for k in range(nprod):
        if flag[k].all() and row_range is None:
            nonfinite = ""
            if bad[k].any():
                nonfinite = (
                    f"; {bad[k, 0]} rows with non-finite UVW and {bad[k, 1]} "
                    f"samples with non-finite {sel.column} among them"
                )
            raise MSError(
                f"{ms.path}: every visibility selected is flagged ({describe(sel)}, "
                f"{recipes[k].name}, {n} rows × {nchan} channels{nonfinite})"
            )
    return tuple(
        VisData(
            uvw=uvw,
            freq_hz=np.asarray(sel.freq_hz, dtype=np.float64),
            vis=vis[k],
            weight=weight[k],
            flag=flag[k],
            time=time,
            ant1=ant1,
            ant2=ant2,
            rows=row_numbers,
            ra0_rad=sel.field.ra_rad,
            dec0_rad=sel.field.dec_rad,
            chan_width_hz=float(sel.chan_width_hz[0]),
            int_s=float(np.median(np.concatenate(intervals))) if intervals else float("nan"),
            corr_names=sel.corr_names,
            stokes=recipes[k].name,
            field=sel.field.id,
            field_name=sel.field.name,
            spw=sel.spw.id,
            column=sel.column,
            weight_source=source or "unit",
            path=ms.path,
            nonfinite_uvw_rows=int(bad[k, 0]),
            nonfinite_vis_samples=int(bad[k, 1]),
        )
        for k in range(nprod)
    )
