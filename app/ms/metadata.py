"""MeasurementSet metadata: the summary records and the subtable readers.

Subtable cells are read one at a time where their shapes may differ per row
(PHASE_DIR, CHAN_FREQ, CORR_TYPE). All readers take an open
:class:`~uvlab.app.ms.tables.MSTables` and must run on the single I/O thread.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.stokes import corr_names
from uvlab.app.ms.tables import MSTables, translated

_MJD_EPOCH = _dt.datetime(1858, 11, 17, tzinfo=_dt.timezone.utc)


def mjd_s_to_iso(t: float) -> str:
    """MS ``TIME`` (MJD seconds, UTC) as ISO 8601 ``YYYY-MM-DDThh:mm:ss.sss``.

    Plain day counting from MJD 0 = 1858-11-17, as casacore's ``MVTime`` does
    for UTC, rounded to the millisecond; ``"n/a"`` for a non-finite time.
    """
    if not np.isfinite(t):
        return "n/a"
    when = _MJD_EPOCH + _dt.timedelta(milliseconds=round(float(t) * 1000.0))
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}"


@dataclass(frozen=True)
class FieldInfo:
    """One FIELD row: phase centre (first polynomial term of PHASE_DIR), radians."""

    id: int
    name: str
    ra_rad: float
    dec_rad: float
    nrows: int = 0
    frame: str = "J2000"


@dataclass(frozen=True)
class SpwInfo:
    """One SPECTRAL_WINDOW row: ``freq_hz``, ``chan_width_hz`` are (nchan,) Hz."""

    id: int
    freq_hz: np.ndarray
    chan_width_hz: np.ndarray
    ref_freq_hz: float

    @property
    def nchan(self) -> int:
        return int(self.freq_hz.size)

    @property
    def bandwidth_hz(self) -> float:
        """Total bandwidth, the sum of |CHAN_WIDTH|."""
        return float(np.abs(self.chan_width_hz).sum())


@dataclass(frozen=True)
class DataDescInfo:
    """One DATA_DESCRIPTION row: which spectral window and polarisation setup."""

    id: int
    spw_id: int
    pol_id: int


@dataclass(frozen=True)
class MSInfo:
    """What a MeasurementSet holds (times in MJD seconds UTC, positions ITRF metres)."""

    path: str
    telescope: str
    antenna_names: tuple[str, ...]
    antenna_positions: np.ndarray
    dish_diameter_m: np.ndarray
    nbaselines: int
    antennas_with_data: int
    has_autocorrelations: bool
    time_start_mjd_s: float
    time_end_mjd_s: float
    nintegrations: int
    int_s: float
    fields: tuple[FieldInfo, ...]
    spws: tuple[SpwInfo, ...]
    data_descs: tuple[DataDescInfo, ...]
    correlations: dict[int, tuple[str, ...]]
    data_columns: tuple[str, ...]
    nrows: int
    flagged_fraction: float
    nonfinite_uvw_rows: int = 0  # rows whose UVW is NaN or infinite (flagged when read)
    observer: str = "unknown"  # the OBSERVATION table's OBSERVER

    @property
    def nant(self) -> int:
        return len(self.antenna_names)

    @property
    def duration_s(self) -> float:
        """Last minus first integration centroid (0 for one integration)."""
        return float(self.time_end_mjd_s - self.time_start_mjd_s)

    def to_dict(self) -> dict:
        """A JSON-serialisable summary (what ``uvlab info --json`` prints)."""
        return {
            "path": self.path,
            "telescope": self.telescope,
            "antennas": {
                "count": self.nant,
                "names": list(self.antenna_names),
                "dish_diameter_m": [float(d) for d in self.dish_diameter_m],
                "with_data": self.antennas_with_data,
            },
            "baselines": self.nbaselines,
            "autocorrelations": self.has_autocorrelations,
            "time": {
                "start": mjd_s_to_iso(self.time_start_mjd_s),
                "end": mjd_s_to_iso(self.time_end_mjd_s),
                "start_mjd_s": _finite(self.time_start_mjd_s),
                "end_mjd_s": _finite(self.time_end_mjd_s),
                "duration_s": _finite(self.duration_s),
                "integrations": self.nintegrations,
                "integration_s": _finite(self.int_s),
            },
            "fields": [
                {
                    "id": f.id,
                    "name": f.name,
                    "ra_deg": float(np.degrees(f.ra_rad) % 360.0),
                    "dec_deg": float(np.degrees(f.dec_rad)),
                    "frame": f.frame,
                    "rows": f.nrows,
                }
                for f in self.fields
            ],
            "spectral_windows": [
                {
                    "id": s.id,
                    "nchan": s.nchan,
                    "first_freq_hz": float(s.freq_hz[0]) if s.nchan else None,
                    "chan_width_hz": float(s.chan_width_hz[0]) if s.nchan else None,
                    "bandwidth_hz": s.bandwidth_hz,
                    "ref_freq_hz": s.ref_freq_hz,
                }
                for s in self.spws
            ],
            "data_descriptions": [
                {"id": d.id, "spw": d.spw_id, "polarization": d.pol_id} for d in self.data_descs
            ],
            "correlations": {str(k): list(v) for k, v in self.correlations.items()},
            "data_columns": list(self.data_columns),
            "rows": self.nrows,
            "flagged_fraction": self.flagged_fraction,
            "nonfinite_uvw_rows": self.nonfinite_uvw_rows,
        }


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def read_fields(ms: MSTables) -> list[FieldInfo]:
    """FIELD rows (PHASE_DIR read cell by cell: NUM_POLY may differ per field)."""
    t = ms.sub("FIELD")
    with translated(ms.path):
        names = t.getcol("NAME") if t.nrows() else []
        dirs = [np.asarray(t.getcell("PHASE_DIR", i), dtype=float) for i in range(t.nrows())]
        keywords = t.getcolkeywords("PHASE_DIR")
    frame = str(keywords.get("MEASINFO", {}).get("Ref", "J2000"))
    out = []
    for i, d in enumerate(dirs):
        ra, dec = d.reshape(-1, 2)[0]
        out.append(FieldInfo(i, str(names[i]), float(ra), float(dec), frame=frame))
    return out


def read_spws(ms: MSTables) -> list[SpwInfo]:
    """SPECTRAL_WINDOW rows (cell by cell: NUM_CHAN may differ per window)."""
    t = ms.sub("SPECTRAL_WINDOW")
    out = []
    with translated(ms.path):
        for i in range(t.nrows()):
            freq = np.asarray(t.getcell("CHAN_FREQ", i), dtype=float).ravel()
            width = np.asarray(t.getcell("CHAN_WIDTH", i), dtype=float).ravel()
            out.append(SpwInfo(i, freq, width, float(t.getcell("REF_FREQUENCY", i))))
    return out


def read_data_descs(ms: MSTables) -> list[DataDescInfo]:
    """DATA_DESCRIPTION rows."""
    t = ms.sub("DATA_DESCRIPTION")
    with translated(ms.path):
        if not t.nrows():
            return []
        spw, pol = t.getcol("SPECTRAL_WINDOW_ID"), t.getcol("POLARIZATION_ID")
    return [DataDescInfo(i, int(s), int(p)) for i, (s, p) in enumerate(zip(spw, pol))]


def read_polarizations(ms: MSTables) -> dict[int, tuple[str, ...]]:
    """Correlation names per POLARIZATION row."""
    t = ms.sub("POLARIZATION")
    with translated(ms.path):
        return {i: corr_names(np.ravel(t.getcell("CORR_TYPE", i))) for i in range(t.nrows())}
