"""Turn a read request (field, spw, column, Stokes, channels, time range) into rows.

Every check that can fail without reading visibilities happens here, before
any data is read, so that a wrong choice fails at once with a message that says
what the MeasurementSet does hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.metadata import (
    FieldInfo,
    SpwInfo,
    read_data_descs,
    read_fields,
    read_polarizations,
    read_spws,
)
from uvlab.app.ms.stokes import StokesRecipe, recipe
from uvlab.app.ms.tables import DATA_COLUMNS, MSTables


@dataclass(frozen=True)
class Selection:
    """A resolved request: which rows, channels and correlations to read."""

    field: FieldInfo
    spw: SpwInfo
    dd_ids: tuple[int, ...]
    corr_names: tuple[str, ...]
    recipe: StokesRecipe
    column: str
    chan: slice
    where: str

    @property
    def freq_hz(self) -> np.ndarray:
        """(chan,) selected channel frequencies, Hz."""
        return self.spw.freq_hz[self.chan]

    @property
    def chan_width_hz(self) -> np.ndarray:
        """(chan,) selected channel widths (absolute), Hz."""
        return np.abs(self.spw.chan_width_hz[self.chan])


def _field(ms: MSTables, field: int | str) -> FieldInfo:
    fields = read_fields(ms)
    listing = ", ".join(f"{f.id} '{f.name}'" for f in fields) or "none"
    count = f"{len(fields)} field{'s' if len(fields) != 1 else ''}"
    if isinstance(field, str) and not field.strip().lstrip("-").isdigit():
        for f in fields:
            if f.name == field:
                return f
        raise MSError(f"{ms.path}: no field named {field!r}; it has {count}: {listing}")
    fid = int(field)
    if not 0 <= fid < len(fields):
        raise MSError(f"{ms.path}: no field {fid}; it has {count}: {listing}")
    return fields[fid]


def _spw(ms: MSTables, spw: int) -> tuple[SpwInfo, tuple[int, ...], tuple[str, ...]]:
    spws, dds, pols = read_spws(ms), read_data_descs(ms), read_polarizations(ms)
    sid = int(spw)
    if not 0 <= sid < len(spws):
        listing = (
            ", ".join(
                f"{s.id} ({s.nchan} ch at {s.freq_hz[0] / 1e6:.3f} MHz)" for s in spws if s.nchan
            )
            or "none"
        )
        raise MSError(f"{ms.path}: no spectral window {sid}; it has {len(spws)}: {listing}")
    mine = [d for d in dds if d.spw_id == sid]
    if not mine:
        raise MSError(f"{ms.path}: spectral window {sid} has no DATA_DESCRIPTION row")
    pol_ids = sorted({d.pol_id for d in mine})
    if len(pol_ids) > 1:
        raise MSError(
            f"{ms.path}: spectral window {sid} has several polarisation setups "
            f"(POLARIZATION rows {pol_ids}); uvlab reads one setup per window"
        )
    if pol_ids[0] not in pols:
        raise MSError(f"{ms.path}: POLARIZATION row {pol_ids[0]} is missing")
    return spws[sid], tuple(d.id for d in mine), pols[pol_ids[0]]


def _channels(path: str, spw: SpwInfo, channels) -> slice:
    if channels is None:
        return slice(0, spw.nchan, 1)
    if not isinstance(channels, slice):
        try:
            start, stop = channels
        except (TypeError, ValueError):
            raise MSError(f"{path}: channels must be a slice or (start, stop)") from None
        channels = slice(int(start), int(stop))
    start, stop, step = channels.indices(spw.nchan)
    if step < 1 or len(range(start, stop, step)) == 0:
        raise MSError(
            f"{path}: channel selection {channels.start}:{channels.stop}:{channels.step} is "
            f"empty; spectral window {spw.id} has {spw.nchan} channels (0–{spw.nchan - 1})"
        )
    return slice(start, stop, step)


def select(
    ms: MSTables,
    *,
    field: int | str,
    spw: int,
    column: str,
    stokes: str,
    channels=None,
    time_range: tuple[float, float] | None = None,
) -> Selection:
    """Resolve a read request against an open MS (see ``read_visibilities``).

    Raises
    ------
    MSError
        Unknown field, spw, column or channels, or a Stokes product that cannot
        be formed from the correlations present.
    """
    col = column.strip().upper()
    present = [c for c in DATA_COLUMNS if c in ms.colnames]
    if col not in DATA_COLUMNS:
        raise MSError(
            f"{ms.path}: {column!r} is not a visibility column; choose one of "
            f"{', '.join(DATA_COLUMNS)} (present: {', '.join(present) or 'none'})"
        )
    if col not in ms.colnames:
        raise MSError(
            f"{ms.path}: no {col} column; data columns present: {', '.join(present) or 'none'}"
        )
    fld = _field(ms, field)
    spw_info, dd_ids, names = _spw(ms, spw)
    try:
        rec = recipe(names, stokes)
    except MSError as exc:
        raise MSError(f"{ms.path}: {exc}") from None
    chan = _channels(ms.path, spw_info, channels)
    where = (
        f"FIELD_ID=={fld.id} AND DATA_DESC_ID IN [{','.join(map(str, dd_ids))}]"
        " AND ANTENNA1!=ANTENNA2"
    )
    if time_range is not None:
        t0, t1 = (float(t) for t in time_range)
        if not (np.isfinite(t0) and np.isfinite(t1)):
            raise MSError(f"{ms.path}: time range ({t0}, {t1}) is not finite")
        where += f" AND TIME>={t0!r} AND TIME<={t1!r}"
    return Selection(fld, spw_info, dd_ids, names, rec, col, chan, where)
