"""Write a simulated observation as a complete MeasurementSet (python-casacore).

:func:`write_ms` builds the MS in a temporary folder beside the target
(``.NAME.uvlab-XXXX``, locked with ``flock`` while the build runs) and renames
it into place only when everything is written, so an interrupted or failed
write leaves nothing half-done; an existing path is replaced only with
``overwrite=True``, and only in the last instant (two renames, which SIGINT
and SIGTERM cannot split). Build folders of a process killed outright are
removed by the next ``write_ms`` to the same path or by ``uvlab repair``; an
old MS parked in one is put back.

The main table holds one row per (time, baseline), time-major, without
autocorrelations: UVW (J2000, metres, antenna 1 minus antenna 2, DESIGN §1),
ANTENNA1/2, TIME and TIME_CENTROID (integration centroids, MJD seconds UTC),
INTERVAL and EXPOSURE, DATA (complex64, tiled), FLAG (tiled), FLAG_ROW,
WEIGHT, SIGMA, DATA_DESC_ID = FIELD_ID = 0, SCAN_NUMBER = 1, STATE_ID = 0,
and the other required columns. Subtables: :mod:`uvlab.app.ms.subtables`.

Visibilities are written in row chunks of whole integrations, so ``vis`` may
also be a function that produces each chunk (a streamed simulation never
holds all visibilities in memory). The table grows with each chunk, and rows
are added and written at most :data:`ADD_ROWS` per casacore call, so SIGINT
and SIGTERM (which wait for a running casacore call) stop a huge build within
about a second. Before the rename, every ``table.dat`` must hold its rows
(:func:`uvlab.app.ms.table_dat.check_self_contained`): the MS does not depend
on its lock files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from uvlab.app.ms.build_folder import clean_build_folders, move_into_place, open_build_folder
from uvlab.app.ms.columns import (
    brightness_to_correlations,
    check_feeds,
    corr_labels,
    default_corr_types,
    feeds_of,
    main_table_desc,
)
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.subtables import fill_subtables, telescope_name
from uvlab.app.ms.table_dat import check_self_contained
from uvlab.app.ms.tables import discard_and_close
from uvlab.app.runtime.diskspace import nearly_full
from uvlab.app.runtime.errors import Cancelled
from uvlab.app.runtime.faults import fault_point
from uvlab.app.runtime.signals import critical

#: Temporary bytes per written chunk (visibilities, flags and their conversions).
CHUNK_BYTES = 64 * 2**20
#: Rows added or written by one casacore call (adding them takes about 0.2 s): a cancel
#: waits for one such call at most.
ADD_ROWS = 100_000


def _as_chunk_function(vis, obs, nchan: int) -> tuple[Callable, int | None]:
    """A function rows → (nrow, nchan, …) visibilities, and the ncorr of raw input."""
    if callable(vis):
        return vis, None
    vis = np.asarray(vis)
    nt, nb, nrow = obs.ntime, obs.nbl, obs.nrow
    if vis.ndim >= 3 and vis.shape[:3] == (nt, nb, nchan) and vis.ndim in (3, 5):
        rows = vis.reshape(nrow, *vis.shape[2:])
        return (lambda sl: rows[sl]), None
    if vis.ndim == 3 and vis.shape[:2] == (nrow, nchan):
        return (lambda sl: vis[sl]), int(vis.shape[2])
    raise ValueError(
        f"vis has shape {vis.shape}; expected (time, bl, chan) = ({nt}, {nb}, {nchan}), "
        f"(time, bl, chan, 2, 2) or (row, chan, ncorr) with row = {nrow}"
    )


def _to_correlations(chunk, corr_types, feeds: str, nrow: int, nchan: int) -> np.ndarray:
    """One chunk as (nrow, nchan, ncorr) complex64 correlations."""
    chunk = np.asarray(chunk)
    ncorr = len(corr_types)
    if chunk.shape == (nrow, nchan):  # Stokes I, unpolarised: B = I·𝟙
        from uvlab.app.observing.predict_obs import unpolarised

        out = brightness_to_correlations(unpolarised(chunk, "linear"), corr_types, feeds)
    elif chunk.shape == (nrow, nchan, 2, 2):
        out = brightness_to_correlations(chunk, corr_types, feeds)
    elif chunk.shape == (nrow, nchan, ncorr):
        out = chunk
    else:
        raise ValueError(
            f"a visibility chunk has shape {chunk.shape}; expected ({nrow}, {nchan}), "
            f"({nrow}, {nchan}, 2, 2) or ({nrow}, {nchan}, {ncorr})"
        )
    return np.asarray(out, dtype=np.complex64)


def _rows_per_chunk(obs, nchan: int, ncorr: int, chunk_rows: int | None) -> int:
    if chunk_rows is not None:
        return max(1, -(-int(chunk_rows) // obs.nbl)) * obs.nbl
    per_row = nchan * max(ncorr, 4) * 40
    return max(1, CHUNK_BYTES // per_row // obs.nbl) * obs.nbl


def _per_row(value, nrow: int, ncorr: int, what: str) -> np.ndarray:
    """``value`` (scalar, (ncorr,) or (row, ncorr)) broadcast to (row, ncorr) float32."""
    arr = np.asarray(value, dtype=np.float32)
    try:
        return np.broadcast_to(arr, (nrow, ncorr))
    except ValueError:
        raise ValueError(
            f"{what} has shape {arr.shape}; expected a number, ({ncorr},) or ({nrow}, {ncorr})"
        ) from None


def _flags(flag, obs, nchan: int, ncorr: int) -> np.ndarray:
    """Flags broadcastable per chunk: (row, 1, 1) or (row, chan, corr)."""
    f = obs.flag if flag is None else np.asarray(flag, dtype=bool)
    if f.shape == (obs.ntime, obs.nbl) or f.shape == (obs.nrow,):
        return f.reshape(obs.nrow, 1, 1)
    if f.shape == (obs.nrow, nchan, ncorr):
        return f
    if f.shape == (obs.ntime, obs.nbl, nchan):
        return f.reshape(obs.nrow, nchan, 1)
    raise ValueError(
        f"flag has shape {f.shape}; expected (time, bl), (row,), (time, bl, chan) "
        f"or (row, chan, ncorr)"
    )


def _target(path, overwrite: bool) -> Path:
    target = Path(path)
    if os.path.islink(target):  # never build through (or over) a link planted at the name
        raise FileExistsError(
            f"{target}: is a symbolic link; uvlab does not write through links "
            "(remove it or choose another name)"
        )
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target}: already exists; pass overwrite=True (--overwrite)")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"{target}: the folder {target.parent} does not exist")
    if target.exists() and not (target / "table.dat").is_file():
        raise FileExistsError(
            f"{target}: exists and is not a casacore table; refusing to replace it"
        )
    return target


def write_ms(
    path: str | os.PathLike,
    obs,
    vis,
    *,
    feeds: str = "linear",
    corr_types=None,
    sigma=1.0,
    weight=None,
    flag=None,
    overwrite: bool = False,
    telescope: str | None = None,
    field_name: str = "uvlab",
    history: str = "uvlab simulate",
    chunk_rows: int | None = None,
    progress: Callable[[float], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Path:
    """Write ``obs`` and its visibilities as a MeasurementSet at ``path``.

    Parameters
    ----------
    path : str or path-like
        The MS folder to create (its parent must exist).
    obs : uvlab.app.observing.observation.Observation
    vis : array or callable
        - (time, bl, chan) complex: Stokes I of an unpolarised sky, written as
          ``B = I·𝟙`` (XX = YY = I, XY = YX = 0);
        - (time, bl, chan, 2, 2) complex: DESIGN §1 B-form products in the
          ``feeds`` basis (``predict_*(..., mode=feeds)``);
        - (row, chan, ncorr) complex: correlations in ``corr_types`` order;
        - a callable ``f(rows: slice)`` returning one of the row shapes above
          for main-table rows ``rows`` (chunks hold whole integrations).
    feeds : {"linear", "circular"}
    corr_types : sequence of int, optional
        CORR_TYPE codes (default XX XY YX YY or RR RL LR LL; for raw input,
        chosen from ncorr).
    sigma : float, (ncorr,) or (row, ncorr)
        SIGMA: noise rms of the real (and of the imaginary) part, Jy.
    weight : same shapes as sigma, optional
        WEIGHT (default ``1/sigma²``).
    flag : bool array, optional
        (time, bl), (row,), (time, bl, chan) or (row, chan, ncorr); default ``obs.flag``.
    overwrite : bool
        Replace an existing MS at ``path``.
    telescope, field_name, history : str
        OBSERVATION::TELESCOPE_NAME (default from the layout name), FIELD::NAME,
        the HISTORY message.
    chunk_rows : int, optional
        Rows per written chunk, rounded up to whole integrations (default:
        about 64 MiB of temporaries).
    progress : callable(float), optional
        Called with the fraction written after each chunk.
    cancelled : callable() -> bool, optional
        Checked before each chunk; True stops, removes the partial MS and raises
        :class:`~uvlab.app.runtime.errors.Cancelled`.

    Returns
    -------
    pathlib.Path
        The MS written.
    """
    from casacore import tables

    check_feeds(feeds)
    target = _target(path, overwrite)
    nchan = int(np.size(obs.freq_hz))
    fn, raw_ncorr = _as_chunk_function(vis, obs, nchan)
    if corr_types is None:
        corr_types = default_corr_types(feeds, raw_ncorr or 4)
    corr_types = tuple(int(c) for c in corr_types)
    basis = feeds_of(corr_types)
    if basis is not None and basis != feeds:
        raise ValueError(f"correlations {corr_labels(corr_types)} do not match feeds={feeds!r}")
    ncorr, nrow = len(corr_types), obs.nrow
    if raw_ncorr is not None and raw_ncorr != ncorr:
        raise ValueError(f"vis holds {raw_ncorr} correlations but corr_types lists {ncorr}")
    sig = _per_row(sigma, nrow, ncorr, "sigma")
    if not np.all(np.isfinite(sig) & (sig > 0)):
        raise ValueError("sigma must be finite and > 0")
    wgt = _per_row(
        1.0 / np.square(np.asarray(sigma, dtype=np.float64)) if weight is None else weight,
        nrow,
        ncorr,
        "weight",
    )
    flags = _flags(flag, obs, nchan, ncorr)
    step = _rows_per_chunk(obs, nchan, ncorr, chunk_rows)

    clean_build_folders(target)  # what a killed earlier run left behind
    disk_full = False
    # An MS replaced (--overwrite) is locked as any writer locks it, before any work and
    # to the end: a uvlab write running in it refuses this one, and none starts meanwhile.
    ms_lock = _lock_replaced(target)
    try:
        tmpdir, lock = open_build_folder(target)
    except BaseException:
        if ms_lock is not None:
            ms_lock.release()
        raise
    build = tmpdir / target.name
    ms = None
    try:
        desc, dminfo = main_table_desc(nchan, ncorr)
        with critical():  # held in ``ms`` from the instant it exists, so always closed
            ms = tables.default_ms(str(build), desc, dminfo)
        try:
            uvw_kw = ms.getcolkeywords("UVW")
            uvw_kw["MEASINFO"] = {"type": "uvw", "Ref": "J2000"}
            ms.putcolkeywords("UVW", uvw_kw)
            rows = fill_subtables(
                ms,
                str(build),
                obs,
                corr_types=corr_types,
                feeds=feeds,
                telescope=telescope or telescope_name(obs.layout.name),
                field_name=field_name,
                history=history,
            )
            _write_rows(ms, obs, fn, corr_types, feeds, sig, wgt, flags, step, progress, cancelled)
        except BaseException:
            with critical():
                disk_full = nearly_full(target.parent)
                discard_and_close(ms, tiled_columns(ms))
            raise
        with critical():
            ms.close()
        # Every table.dat must hold its rows: the MS may not depend on its lock files.
        check_self_contained(build, {"": nrow, **rows})
        with critical():
            move_into_place(build, target, tmpdir)
    except RuntimeError as exc:  # casacore: a full disk, an I/O error
        raise _write_failed(target, exc, disk_full) from exc
    finally:
        with critical():
            if ms is not None:  # released before its folder goes (casacore aborts otherwise)
                with contextlib.suppress(Exception):
                    ms.close()
                del ms
            shutil.rmtree(tmpdir, ignore_errors=True)
            os.close(lock)
            if ms_lock is not None:
                ms_lock.release()
    return target


def _lock_replaced(target: Path):
    """The write lock of the MS ``target`` replaces (:mod:`uvlab.app.ms.ms_lock`); None if none.

    Raises MSError (one line) when another uvlab process is writing it.
    """
    if not (target / "table.dat").is_file():
        return None
    from uvlab.app.ms.ms_lock import MSLock

    return MSLock.acquire(target)


def add_rows(ms, nrow: int, cancelled: Callable[[], bool] | None = None) -> None:
    """``ms.addrows(nrow)`` in pieces of :data:`ADD_ROWS`, checking for a cancel between them.

    One casacore call cannot be interrupted (SIGINT and SIGTERM wait for it to
    return), so a huge ``addrows`` would delay a cancel by many seconds; a piece
    takes about 0.2 s.
    """
    for start in range(0, int(nrow), ADD_ROWS):
        fault_point("ms-addrows")
        if cancelled is not None and cancelled():
            raise Cancelled("writing the MeasurementSet cancelled")
        ms.addrows(min(ADD_ROWS, int(nrow) - start))


def _write_rows(ms, obs, fn, corr_types, feeds, sig, wgt, flags, step, progress, cancelled):
    nrow, nbl, nchan, ncorr = obs.nrow, obs.nbl, int(np.size(obs.freq_hz)), len(corr_types)
    uvw = obs.uvw.reshape(-1, 3)
    for start in range(0, nrow, step):
        if cancelled is not None and cancelled():
            raise Cancelled("writing the MeasurementSet cancelled")
        stop = min(start + step, nrow)
        sl, n = slice(start, stop), stop - start
        add_rows(ms, n, cancelled)  # the table grows chunk by chunk, as it is written
        rows = np.arange(start, stop)
        t = obs.times_mjd_s[rows // nbl]
        f = np.broadcast_to(flags[sl], (n, nchan, ncorr))
        columns = {
            "UVW": uvw[sl],
            "ANTENNA1": obs.ant1[rows % nbl].astype(np.int32),
            "ANTENNA2": obs.ant2[rows % nbl].astype(np.int32),
            "TIME": t,
            "TIME_CENTROID": t,
            "INTERVAL": np.full(n, obs.int_s),
            "EXPOSURE": np.full(n, obs.int_s),
            "SCAN_NUMBER": np.ones(n, dtype=np.int32),
            "FLAG_ROW": f.all(axis=(1, 2)),
            "FLAG": np.ascontiguousarray(f),
            "WEIGHT": np.ascontiguousarray(wgt[sl]),
            "SIGMA": np.ascontiguousarray(sig[sl]),
            "DATA": _to_correlations(fn(sl), corr_types, feeds, n, nchan),
        }
        for zero in (
            "ARRAY_ID",
            "DATA_DESC_ID",
            "FEED1",
            "FEED2",
            "FIELD_ID",
            "OBSERVATION_ID",
            "PROCESSOR_ID",
            "STATE_ID",
        ):
            columns[zero] = np.zeros(n, dtype=np.int32)
        for name, values in columns.items():  # pieces of ADD_ROWS: a cancel waits for one
            for first in range(0, n, ADD_ROWS):
                ms.putcol(name, values[first : first + ADD_ROWS], start + first,
                          min(ADD_ROWS, n - first))  # fmt: skip
        fault_point("ms-rows-written")
        if progress is not None:
            progress(stop / nrow)


def _write_failed(target: Path, exc: BaseException, disk_full: bool) -> MSError:
    """A one-line error for a casacore failure while building ``target``."""
    if disk_full or "No space" in str(exc):
        why = "the disk is full"
    else:
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return MSError(f"{target}: could not write the MeasurementSet ({why}); nothing was left behind")


def tiled_columns(ms) -> list[str]:
    """Columns of ``ms`` held by tiled storage managers (the bulk of a build)."""
    return [
        c
        for dm in ms.getdminfo().values()
        if str(dm.get("TYPE", "")).startswith("Tiled")
        for c in dm.get("COLUMNS", [])
    ]
