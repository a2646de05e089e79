"""Predict a sky model into a column of an existing MeasurementSet.

For every main-table row the engine reads UVW, FIELD_ID and DATA_DESC_ID,
evaluates the measurement equation (DESIGN §1, :func:`uvlab.gpu.predict.predict_rows`)
at that field's phase centre and that window's channels, in the basis of the
window's correlations (linear for XX…, circular for RR…; Stokes codes 1–4
are formed from the linear products), and writes the correlations into
``column`` through :func:`uvlab.app.ms.column_writer.write_column`, which is
all or nothing, even when the process is killed. Time and bandwidth smearing
use each chunk's median INTERVAL and the window's channel widths. DATA is only
written when asked for by name with ``overwrite=True``. Before anything is
written, the column's size is checked against the free disk space; rows whose
UVW is not finite get a model of 0 and are counted (``nonfinite_rows``).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.column_writer import check_column_request, column_types, write_column
from uvlab.app.ms.columns import corr_labels, feeds_of
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.journal_folder import journal_bytes
from uvlab.app.ms.metadata import read_data_descs, read_fields, read_spws
from uvlab.app.ms.predict_chunks import ChunkPredict
from uvlab.app.ms.tables import MSTables, translated
from uvlab.app.runtime.diskspace import check_space


@dataclass(frozen=True)
class PredictSummary:
    """What :func:`predict_to_ms` wrote."""

    path: str
    column: str
    nrows: int
    feeds: dict[int, str]
    correlations: dict[int, str]
    replaced: bool
    device: str
    seconds: float
    #: Rows whose UVW is not finite: their model is written as 0 (they cannot be predicted).
    nonfinite_rows: int = 0
    #: Median σ of the thermal noise added (``sefd_jy``), Jy per real/imaginary part; 0: none.
    noise_sigma_jy: float = 0.0


@dataclass(frozen=True)
class _Setup:
    fields: list
    spws: list
    dd_spw: dict[int, int]
    dd_pol: dict[int, int]
    pol_types: dict[int, tuple[int, ...]]
    pol_feeds: dict[int, str]
    cell_shape: tuple[int, int]
    nrows: int
    max_cell: int
    itemsize: int


def _read_setup(path: str, column: str, overwrite: bool, feeds: str) -> _Setup:
    with MSTables(path) as ms:
        with translated(ms.path):
            coltypes = column_types(ms.main)
            nrows = ms.main.nrows()
        check_column_request(ms.path, ms.colnames, column, overwrite, coltypes)
        for need in ("UVW", "FIELD_ID", "DATA_DESC_ID"):
            if need not in ms.colnames:
                raise MSError(f"{ms.path}: the main table has no {need} column")
        fields, spws, dds = read_fields(ms), read_spws(ms), read_data_descs(ms)
        pol = ms.sub("POLARIZATION")
        with translated(ms.path):
            pol_types = {
                i: tuple(int(c) for c in np.ravel(pol.getcell("CORR_TYPE", i)))
                for i in range(pol.nrows())
            }
    pol_feeds = {}
    for pid, types in pol_types.items():
        try:
            basis = feeds_of(types)
        except ValueError as exc:
            raise MSError(f"{path}: POLARIZATION row {pid}: {exc}") from None
        if feeds != "auto" and basis is not None and basis != feeds:
            raise MSError(
                f"{path}: the MS holds {corr_labels(types)} ({basis} feeds), not {feeds} feeds; "
                f"use --feeds auto"
            )
        pol_feeds[pid] = basis or (feeds if feeds != "auto" else "linear")
    if not dds:
        raise MSError(f"{path}: the DATA_DESCRIPTION table is empty")
    first = dds[0]
    cell = (spws[first.spw_id].nchan, len(pol_types.get(first.pol_id, ())))
    max_cell = max(spws[d.spw_id].nchan * max(len(pol_types.get(d.pol_id, ())), 1) for d in dds)
    itemsize = 16 if coltypes.get("DATA") == "dcomplex" else 8
    return _Setup(
        fields,
        spws,
        {d.id: d.spw_id for d in dds},
        {d.id: d.pol_id for d in dds},
        pol_types,
        pol_feeds,
        cell,
        nrows,
        max_cell,
        itemsize,
    )


@contextlib.contextmanager
def write_locked(path: str | os.PathLike):
    """Hold the MS's write lock, a dead writer's journal finished or rolled back first.

    For a command that reads the MS before it writes it (``uvlab predict``): the read
    then sees the MS the write will change, under the same lock (re-entrant in one
    process, :mod:`uvlab.app.ms.ms_lock`), and no pending-write warning is printed
    beside the recovery's line.
    """
    from uvlab.app.ms.journal_recovery import recover_if_interrupted
    from uvlab.app.ms.ms_lock import MSLock
    from uvlab.app.ms.tables import check_path

    with MSLock.acquire(check_path(path)):
        recover_if_interrupted(check_path(path))
        yield


def predict_to_ms(path, *args, **kwargs):
    """Predict into a column of the MS at ``path``: :func:`_predict_locked` under
    :func:`write_locked`."""
    with write_locked(path):
        return _predict_locked(path, *args, **kwargs)


def _predict_locked(
    path: str | os.PathLike,
    sky,
    *,
    column: str = "MODEL_DATA",
    overwrite: bool = False,
    feeds: str = "auto",
    smearing: bool = True,
    device: str = "auto",
    dtype=np.float64,
    chunk_rows: int | None = None,
    chunk_bytes: int | None = None,
    progress: Callable[[float], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    jones=None,
    image_sky=None,
    sefd_jy: float | None = None,
    seed: int = 1,
    runner: Callable | None = None,
) -> PredictSummary:
    """Predict ``sky`` into ``column`` of the MeasurementSet at ``path``.

    Parameters
    ----------
    path : str or path-like
    sky : uvlab.app.skymodel.SkyModel
    column : str
        Column to create or (with ``overwrite``) replace; DATA only with ``overwrite``.
    overwrite : bool
    feeds : {"auto", "linear", "circular"}
        "auto" follows the correlations of each POLARIZATION row; a named basis
        must match them.
    smearing : bool
        Apply time and bandwidth smearing.
    device : {"auto", "cpu", "gpu"}
    dtype : numpy.float32 or numpy.float64
        Predict precision.
    chunk_rows : int, optional
        Rows per chunk (default: ``chunk_bytes`` of temporaries).
    chunk_bytes : int, optional
        Bytes of temporaries per chunk (default
        :data:`~uvlab.app.ms.predict_chunks.CHUNK_BYTES`, 64 MiB).
    progress : callable(float), optional
    cancelled : callable() -> bool, optional
        Checked before each chunk; True abandons the write (the MS is restored)
        and raises :class:`~uvlab.app.runtime.errors.Cancelled`.
    image_sky : uvlab.app.skymodel.image_sky.ImageSky, optional
        An image degridded on top of the components (Stokes I, no w-term, no smearing,
        no beams; gains apply to it too), on its native grid about each field's centre
        (:func:`uvlab.app.observing.predict_obs.degrid_image_rows`).
    sefd_jy : float, optional
        Add thermal noise of this SEFD (Jy, every antenna): σ = SEFD/√(2·Δν·Δt) per real
        and imaginary part of each correlation, with Δν each channel's width and Δt each
        row's INTERVAL (:func:`uvlab.gpu.predict.noise.radiometer_sigma`); seeded per
        chunk of rows by (``seed``, first row). SIGMA and WEIGHT are not changed.
    jones : uvlab.app.instrument.jones.JonesOptions, optional
        Primary beams (from the ANTENNA table's DISH_DIAMETER, or a beam cube rotated by
        each antenna's parallactic angle; a pattern set of 2×2 Jones cubes must be of the
        MS's feed basis) and antenna gains (over the MS's times), per row
        (:class:`uvlab.app.instrument.row_jones.RowJones`). Read and checked before anything is
        written.
    runner : callable(chunks, table, colname, progress, cancelled), optional
        Computes and writes every chunk of the open ``table``'s column ``colname``
        (:class:`~uvlab.app.ms.predict_chunks.ChunkPredict`); default
        :meth:`ChunkPredict.fill <uvlab.app.ms.predict_chunks.ChunkPredict.fill>`, one
        chunk after the other in this process (:mod:`uvlab.app.scale.ms_predict`: on a
        Dask cluster).
    """
    from uvlab.gpu.backend import resolve_device

    t_start = time.perf_counter()
    path = str(path)
    if feeds not in ("auto", "linear", "circular"):
        raise ValueError(f"feeds must be auto, linear or circular, got {feeds!r}")
    setup = _read_setup(path, column, overwrite, feeds)
    col = column.strip().upper()
    need = column_bytes(setup.nrows, setup.max_cell, setup.itemsize) + journal_bytes(path)
    check_space(path, need, f"column {col}")
    dev = resolve_device(device)
    rows_jones = _row_jones(path, jones) if jones is not None and jones.active else None
    if rows_jones is not None:
        _check_jones(rows_jones, setup)
    chunks = ChunkPredict(
        path=path, col=col, setup=setup,
        sources={f.id: sky.to_source_arrays(f.ra_rad, f.dec_rad) for f in setup.fields},
        names=[c.name for c in sky], images=_image_grids(image_sky, setup.fields, dev),
        image_sky=image_sky, jones=jones, rows_jones=rows_jones, smearing=smearing,
        dtype=dtype, device=dev, sefd_jy=sefd_jy, seed=seed, chunk_rows=chunk_rows,
        chunk_bytes=chunk_bytes,
    )  # fmt: skip

    def fill(tab, name: str) -> None:
        if runner is None:
            chunks.fill(tab, name, progress, cancelled)
        else:
            runner(chunks, tab, name, progress, cancelled)

    replaced = write_column(path, col, fill, overwrite=overwrite, cell_shape=setup.cell_shape)
    return PredictSummary(
        path=path,
        column=col,
        nrows=chunks.nrows,
        feeds=dict(setup.pol_feeds),
        correlations={k: corr_labels(v) for k, v in setup.pol_types.items()},
        replaced=replaced,
        device=dev,
        seconds=time.perf_counter() - t_start,
        nonfinite_rows=chunks.nonfinite,
        noise_sigma_jy=float(np.median(chunks.sigma)) if chunks.sigma else 0.0,
    )


def _check_jones(rows_jones, setup: _Setup) -> None:
    """Refuse a Jones beam cube not of the MS's feed basis or far from its frequencies,
    and feed rotation in a Stokes-I predict."""
    from uvlab.app.instrument.beam_cube import check_cube_frequencies
    from uvlab.app.instrument.jones import check_beam_feeds, check_feed_rotation

    cube = rows_jones.cube
    for basis in sorted(set(setup.pol_feeds.values())):
        check_beam_feeds(cube, basis)
        if rows_jones.options.feed_rotation:
            check_feed_rotation(cube, basis)
    for spw in setup.spws:
        check_cube_frequencies(cube, spw.freq_hz)


def column_bytes(nrows: int, cell: int, itemsize: int = 8) -> float:
    """Bytes a tiled visibility column of ``nrows`` cells of ``cell`` values takes on disk."""
    return float(nrows) * cell * itemsize * 1.02 + 65536.0


def _row_jones(path: str, options):
    """The :class:`~uvlab.app.instrument.row_jones.RowJones` of the MS at ``path`` (its
    ANTENNA table and TIME)."""
    from uvlab.app.instrument.row_jones import RowJones
    from uvlab.app.ms.feeds import read_feed_geometry

    with MSTables(path) as ms:
        ant = ms.sub("ANTENNA")
        with translated(ms.path):
            names = [str(n) for n in ant.getcol("NAME")] if ant.nrows() else []
            cols = ant.colnames()
            dish = ant.getcol("DISH_DIAMETER") if "DISH_DIAMETER" in cols else np.zeros(len(names))
            ecef = ant.getcol("POSITION")
            times = np.unique(ms.main.getcol("TIME"))
        if not names:
            raise MSError(f"{path}: the ANTENNA table is empty")
        feeds = read_feed_geometry(ms, names) if options.feed_rotation else None
    if options.has_beam and options.dish_diameter_m is None and not np.all(dish > 0):
        raise MSError(
            f"{path}: the ANTENNA table has no DISH_DIAMETER > 0 for every antenna; "
            "give --dish-diameter-m"
        )
    return RowJones(options, names, dish, ecef, times, feeds)


def _image_grids(image_sky, fields, device) -> dict:
    """Field id → (model on the device, ImageSpec): the image sky about each field's centre."""
    if image_sky is None:
        return {}
    from uvlab.gpu.backend import get_xp

    xp = get_xp(device=device)
    grids = {}
    for f in fields:
        model, spec = image_sky.native_grid(np.degrees(f.ra_rad) % 360.0, np.degrees(f.dec_rad))
        grids[f.id] = (xp.asarray(model), spec)
    return grids
