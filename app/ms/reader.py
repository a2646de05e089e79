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
FLAG and FLAG_ROW are honoured. Bad values never reach an image: rows whose
UVW is not finite are flagged whole (UVW, visibility and weight set to 0), and
samples whose visibility is not finite in any correlation used are flagged
(visibility and weight set to 0). How many samples not already flagged this
caught is in ``VisData.nonfinite_uvw_rows`` / ``nonfinite_vis_samples``, and
``VisData.bad_values_note`` says it in one line naming the MS for the caller
to show (``uvlab image``/``compare`` print it on stderr, the lab logs it).

casacore is not thread-safe: call :func:`read_visibilities` from the single
I/O thread (see :mod:`uvlab.app.ms.tables`). The MS is opened read-only.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from uvlab.app.ms.errors import Cancelled, MSError
from uvlab.app.ms.selection import Selection, select
from uvlab.app.ms.stokes import combine
from uvlab.app.ms.tables import MSTables, row_chunks, translated

#: Temporary bytes per chunk when ``chunk_rows`` is not given.
CHUNK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class VisData:
    """Visibilities of one field, spectral window and Stokes product.

    Attributes
    ----------
    uvw : (row, 3) float64, metres (MS UVW: antenna 1 minus antenna 2, DESIGN §1)
    freq_hz : (chan,) float64
    vis : (row, chan) complex64 (complex128 if the column is double precision)
    weight : (row, chan) float32, inverse variance of ``vis``
    flag : (row, chan) bool
    time : (row,) float64, MJD seconds UTC
    ant1, ant2 : (row,) int32
    rows : (row,) int64, row numbers in the main table
    ra0_rad, dec0_rad : float, FIELD::PHASE_DIR (first polynomial term)
    chan_width_hz : float, |CHAN_WIDTH| of the first selected channel
    int_s : float, median INTERVAL of the rows (NaN without the column)
    corr_names : tuple of str, the correlations in the MS, in its order
    stokes : str, the product read (``I``, ``Q``, ``U``, ``V`` or a correlation)
    field, spw : int; field_name, column, weight_source, path : str
    nonfinite_uvw_rows : int, rows flagged here because their UVW is not finite
        (rows already entirely flagged in the MS are not counted)
    nonfinite_vis_samples : int, other samples (row, channel) flagged here because
        a correlation used is not finite (samples already flagged are not counted)
    """

    uvw: np.ndarray
    freq_hz: np.ndarray
    vis: np.ndarray
    weight: np.ndarray
    flag: np.ndarray
    time: np.ndarray
    ant1: np.ndarray
    ant2: np.ndarray
    rows: np.ndarray
    ra0_rad: float
    dec0_rad: float
    chan_width_hz: float
    int_s: float
    corr_names: tuple[str, ...]
    stokes: str
    field: int
    field_name: str
    spw: int
    column: str
    weight_source: str
    path: str
    nonfinite_uvw_rows: int = 0
    nonfinite_vis_samples: int = 0

    @property
    def bad_values_note(self) -> str | None:
        """One line naming the MS with what was flagged for non-finite values, or None."""
        parts = []
        if self.nonfinite_uvw_rows:
            n = self.nonfinite_uvw_rows
            parts.append(f"{n} row{'s' if n != 1 else ''} with non-finite UVW")
        if self.nonfinite_vis_samples:
            n = self.nonfinite_vis_samples
            parts.append(f"{n} sample{'s' if n != 1 else ''} with non-finite {self.column}")
        if not parts:
            return None
        return (
            f"{self.path}: flagged {' and '.join(parts)} "
            f"(of {self.nrow} rows × {self.nchan} channels read)"
        )

    @property
    def nrow(self) -> int:
        return int(self.vis.shape[0])

    @property
    def nchan(self) -> int:
        return int(self.vis.shape[1])


@dataclass(frozen=True)
class _Corrs:
    """The correlations a read takes: every ``step``-th from ``first`` to ``last``."""

    first: int
    last: int
    step: int

    @property
    def count(self) -> int:
        return (self.last - self.first) // self.step + 1

    def local(self, indices) -> list[int]:
        """Positions of the MS's correlation ``indices`` among those read."""
        return [(i - self.first) // self.step for i in indices]


def _corrs(used, ncorr: int) -> _Corrs:
    """The fewest correlations one strided read holding ``used`` takes (Stokes I from XX
    and YY of four: the first and the fourth, half the data)."""
    used = sorted(set(int(i) for i in used))
    if len(used) == 1:
        return _Corrs(used[0], used[0], 1)
    steps = set(np.diff(used).tolist())
    if len(steps) == 1:
        return _Corrs(used[0], used[-1], steps.pop())
    return _Corrs(0, ncorr - 1, 1)


def _slice_args(sel: Selection, corrs: _Corrs) -> tuple[list[int], list[int], list[int]]:
    c = sel.chan
    last = c.start + (len(range(c.start, c.stop, c.step)) - 1) * c.step
    return [c.start, corrs.first], [last, corrs.last], [c.step, corrs.step]


#: casacore column types → NumPy, for reading whole cells into an array of our own.
_NUMPY_TYPES = {"complex": np.complex64, "dcomplex": np.complex128, "boolean": np.bool_,
                "float": np.float32, "double": np.float64}  # fmt: skip


def _cells(tab, col: str, sel: Selection, corrs: _Corrs, start: int, nrow: int) -> np.ndarray:
    """(nrow, chan, corr) of ``col``: the selected channels and the correlations ``corrs``.

    Where every channel is selected, the whole cells are read into an array of our own
    (``getcolnp``, about three times faster than a strided ``getcolslice`` here) and the
    correlations taken as a view; otherwise the slice is read.
    """
    whole = sel.chan == slice(0, sel.spw.nchan, 1)
    dtype = _NUMPY_TYPES.get(tab.coldatatype(col))
    if not whole or dtype is None:
        return tab.getcolslice(col, *_slice_args(sel, corrs), start, nrow)
    ncorr = len(sel.corr_names)
    out = np.empty((nrow, sel.spw.nchan, ncorr), dtype=dtype)
    tab.getcolnp(col, out, start, nrow)
    return out[..., corrs.first : corrs.last + 1 : corrs.step]


def _first_positive(tab, col: str, start: int, nrow: int, getter) -> bool:
    if col not in tab.colnames() or not tab.iscelldefined(col, start):
        return False
    w = getter(col)
    return bool((np.isfinite(w) & (w > 0)).any())


def _weight_source(tab, sel: Selection, start: int, nrow: int) -> str:
    blc, trc, inc = _slice_args(sel, _Corrs(0, len(sel.corr_names) - 1, 1))

    def spectrum(col):
        return tab.getcolslice(col, blc, trc, inc, start, nrow)

    def plain(col):
        return tab.getcol(col, start, nrow)

    if _first_positive(tab, "WEIGHT_SPECTRUM", start, nrow, spectrum):
        return "WEIGHT_SPECTRUM"
    if _first_positive(tab, "WEIGHT", start, nrow, plain):
        return "WEIGHT"
    if _first_positive(tab, "SIGMA", start, nrow, plain):
        return "SIGMA"
    return "unit"


def _weights(tab, source: str, sel: Selection, corrs: _Corrs, start: int, nrow: int):
    """Float32 weights of the correlations read: (nrow, nchan, ncorr) from WEIGHT_SPECTRUM,
    else (nrow, 1, ncorr), the same in every channel (broadcast, never repeated)."""
    take = slice(corrs.first, corrs.last + 1, corrs.step)
    if source == "WEIGHT_SPECTRUM":
        w = _cells(tab, "WEIGHT_SPECTRUM", sel, corrs, start, nrow)
    elif source == "WEIGHT":
        w = tab.getcol("WEIGHT", start, nrow)[:, None, take]
    elif source == "SIGMA":
        s = tab.getcol("SIGMA", start, nrow)[:, take].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(np.isfinite(s) & (s > 0), 1.0 / s**2, 0.0)[:, None, :]
    else:
        w = np.ones((nrow, 1, corrs.count))
    w = np.asarray(w, dtype=np.float32)
    return np.where(np.isfinite(w) & (w > 0), w, np.float32(0))


def _selected(ms: MSTables, **selection):
    """(the :class:`Selection`, its rows as a TaQL table) of ``select``'s keyword arguments."""
    sel = select(ms, **selection)
    return sel, ms.query(sel.where)


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
    with MSTables(path) as ms:  # the plan a part's read makes: one query per process
        selection = dict(field=field, spw=spw, column=column, stokes=stokes, channels=channels)
        return _plan(ms, time_range, **selection).nrows


def selection_times(path: str | os.PathLike, **selection) -> np.ndarray:
    """The distinct TIMEs (sorted, MJD seconds) of the rows :func:`read_visibilities` reads
    with ``selection`` (its keyword arguments but the row range), found by TaQL."""
    with MSTables(path) as ms:
        sel, _tab = _selected(ms, **selection)
        with translated(ms.path):
            return np.asarray(
                ms.query(sel.where).query("", sortlist="UNIQUE TIME", columns="TIME")
                .getcol("TIME"), dtype=np.float64,
            )  # fmt: skip


def _describe(sel: Selection) -> str:
    return f"field {sel.field.id} '{sel.field.name}', spectral window {sel.spw.id}"


def _check_readable(ms: MSTables, sel: Selection, tab, time_range) -> None:
    """Refuse (MSError) a selection with no rows or whose data column holds nothing."""
    if tab.nrows() == 0:
        within = " within the time range" if time_range is not None else ""
        raise MSError(f"{ms.path}: no cross-correlation rows for {_describe(sel)}{within}")
    if not tab.iscelldefined(sel.column, 0):
        raise MSError(f"{ms.path}: column {sel.column} holds no data for {_describe(sel)}")


@dataclass(frozen=True)
class _Plan:
    """A selection and where its rows lie in the main table: runs of consecutive rows."""

    sel: Selection
    starts: np.ndarray  # (run,) int64, main-table row of each run's first row
    ends: np.ndarray  # (run,) int64, the selection's row count at each run's end

    @property
    def nrows(self) -> int:
        return int(self.ends[-1]) if self.ends.size else 0

    def main_rows(self, first: int, stop: int) -> tuple[int, int] | np.ndarray:
        """The main-table rows of selection rows ``first`` … ``stop``: (start, count)
        where they are consecutive, else their row numbers."""
        i = int(np.searchsorted(self.ends, first, side="right"))
        begin = self.ends[i - 1] if i else 0
        if stop <= self.ends[i]:
            return int(self.starts[i] + first - begin), stop - first
        j = int(np.searchsorted(self.ends, stop, side="left"))
        rows = [
            np.arange(
                self.starts[k], self.starts[k] + self.ends[k] - (self.ends[k - 1] if k else 0)
            )
            for k in range(i, j + 1)
        ]
        return np.concatenate(rows)[first - begin : stop - begin]


def _runs(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each run of consecutive ``rows``, the count at each run's end)."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        return rows, rows
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    return rows[np.r_[0, breaks]], np.r_[breaks, rows.size].astype(np.int64)


#: Per process, the latest selections read in parts, by (path, row count, the newest
#: change of the main table's files, the selection): a worker reading chunk after chunk
#: of one selection runs its TaQL query and opens the subtables once (a query scans the
#: whole main table). Any change to the main table's files makes a new plan.
_PLANS: OrderedDict = OrderedDict()
_PLANS_KEPT = 8


def _plan(ms: MSTables, time_range, **selection) -> _Plan:
    with os.scandir(ms.path) as files:
        changed = max(f.stat().st_mtime_ns for f in files if f.name.startswith("table.")
                      and f.name != "table.lock" and f.is_file())  # fmt: skip
    key = (os.path.realpath(ms.path), ms.main.nrows(), changed, time_range,
           tuple(sorted((k, repr(v)) for k, v in selection.items())))  # fmt: skip
    plan = _PLANS.get(key)
    if plan is None:
        sel, tab = _selected(ms, time_range=time_range, **selection)
        _check_readable(ms, sel, tab, time_range)
        plan = _Plan(sel, *_runs(tab.rownumbers()))
        _PLANS[key] = plan
        while len(_PLANS) > _PLANS_KEPT:
            _PLANS.popitem(last=False)
    _PLANS.move_to_end(key)
    return plan


def _row_part(ms: MSTables, plan: _Plan, row_range: tuple[int, int]):
    """(table, first row in it, rows) of the part ``row_range`` of the selection: the
    main table itself where the part's rows are consecutive there."""
    n = plan.nrows
    first, stop = int(row_range[0]), int(row_range[1])
    if not 0 <= first < stop <= n:
        raise ValueError(f"row range {row_range} is not within 0 … {n}")
    rows = plan.main_rows(first, stop)
    if isinstance(rows, tuple):
        return ms.main, rows[0], rows[1]
    with translated(ms.path):
        return ms.main.selectrows(rows), 0, stop - first


@dataclass
class _Chunk:
    """One chunk of rows as the MS holds it: (nrow, nchan, ncorr) data, flags, weights."""

    data: np.ndarray
    flag: np.ndarray
    weight: np.ndarray
    uvw: np.ndarray
    time: np.ndarray
    ant1: np.ndarray
    ant2: np.ndarray
    interval: np.ndarray | None


def _read_chunk(tab, sel: Selection, corrs: _Corrs, source: str, start: int, nrow: int) -> _Chunk:
    """Rows ``start`` … ``start + nrow`` of the selection, the correlations ``corrs``
    (FLAG and FLAG_ROW folded in)."""
    cols = tab.colnames()
    data = _cells(tab, sel.column, sel, corrs, start, nrow)
    f = (
        _cells(tab, "FLAG", sel, corrs, start, nrow)
        if "FLAG" in cols and tab.iscelldefined("FLAG", start)
        else np.zeros(data.shape, dtype=bool)
    )
    if "FLAG_ROW" in cols:
        flag_row = tab.getcol("FLAG_ROW", start, nrow)
        if flag_row.any():  # mostly none: no pass over every sample's flags
            f = f | flag_row[:, None, None]
    return _Chunk(
        data=data,
        flag=f,
        weight=_weights(tab, source, sel, corrs, start, nrow),
        uvw=tab.getcol("UVW", start, nrow),
        time=tab.getcol("TIME", start, nrow),
        ant1=tab.getcol("ANTENNA1", start, nrow),
        ant2=tab.getcol("ANTENNA2", start, nrow),
        interval=tab.getcol("INTERVAL", start, nrow) if "INTERVAL" in cols else None,
    )


def _flag_nonfinite(chunk: _Chunk, used: list[int], *others: list[int]) -> list[tuple[int, int]]:
    """Flag and zero non-finite UVW rows and visibilities in ``chunk``, in place.

    One NaN would otherwise spread over a whole image. Returns (rows with
    non-finite UVW, other samples with a non-finite correlation in ``used``),
    counting only what the MS had not flagged already; with ``others`` (the
    correlations of further products formed from the same chunk), one such pair
    per product. What is flagged and zeroed is per correlation, the same whichever
    products are formed.
    """
    uses = (used, *others)
    bad_row = ~np.isfinite(chunk.uvw).all(axis=1)
    if not bad_row.any() and np.isfinite(chunk.data.sum()):  # a NaN or inf makes the sum so
        return [(0, 0)] * len(uses)  # (an overflow of finite values only sends it the long way)
    bad = ~np.isfinite(chunk.data)
    if not (bad.any() or bad_row.any()):
        return [(0, 0)] * len(uses)
    counts = []
    for u in uses:
        was = chunk.flag[..., u].any(axis=-1)  # (nrow, nchan) flagged in the MS
        bad_used = bad[..., u].any(axis=-1) & ~bad_row[:, None]
        nrows = int(np.count_nonzero(bad_row & ~was.all(axis=1)))
        counts.append((nrows, int(np.count_nonzero(bad_used & ~was))))
    bad = bad | bad_row[:, None, None]
    chunk.flag, chunk.data = chunk.flag | bad, np.where(bad, 0, chunk.data)
    chunk.weight = np.where(bad, np.float32(0), chunk.weight)
    chunk.uvw = np.where(bad_row[:, None], 0.0, chunk.uvw)
    return counts


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
            sel, tab = _selected(ms, time_range=time_range, **selection)
            _check_readable(ms, sel, tab, time_range)
            offset, n = 0, tab.nrows()
        else:  # a part: the selection's rows found once per process
            plan = _plan(ms, time_range, **selection)
            sel = plan.sel
            tab, offset, n = _row_part(ms, plan, row_range)
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
        corrs = _corrs([i for r in recipes for i in r.indices], ncorr)
        used = [corrs.local(r.indices) for r in recipes]  # among the correlations read
        local = [replace(r, indices=tuple(u)) for r, u in zip(recipes, used, strict=True)]
        bad = np.zeros((nprod, 2), dtype=np.int64)  # each product's rows, samples
        for start, nrow in row_chunks(n, step):
            if cancelled is not None and cancelled():
                raise Cancelled(f"reading {ms.path} cancelled")
            with translated(ms.path):
                source = source or _weight_source(tab, sel, offset + start, nrow)
                chunk = _read_chunk(tab, sel, corrs, source, offset + start, nrow)
            bad += np.asarray(_flag_nonfinite(chunk, *used), dtype=np.int64)
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
                f"{ms.path}: every visibility selected is flagged ({_describe(sel)}, "
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
