"""Fill the subtables of a new MeasurementSet from a simulated observation.

``casacore.tables.default_ms`` creates every required subtable (ANTENNA,
DATA_DESCRIPTION, FEED, FIELD, FLAG_CMD, HISTORY, OBSERVATION, POINTING,
POLARIZATION, PROCESSOR, SPECTRAL_WINDOW, STATE) with its columns and
measures keywords; this module adds the optional SOURCE table and writes the
rows a simulated single-field, single-window observation needs. POINTING and
FLAG_CMD stay empty, as CASA allows.

casacore rewrites a table's ``table.dat`` on close only when the table's
definition changed; rows added to a subtable that ``default_ms`` made earlier
would be counted only in the sync record of its ``table.lock``, and the MS
would read empty once lock files are removed. :func:`fill_subtables` therefore
rewrites each subtable's keyword set (unchanged) before closing it, which
makes casacore write the header with the rows, and returns the row counts so
that the writer can check every ``table.dat`` before the MS is renamed into
place (:func:`uvlab.app.ms.table_dat.check_self_contained`).
"""

from __future__ import annotations

import time as _time

import numpy as np

from uvlab.app._version import __version__
from uvlab.app.ms.columns import RECEPTOR_ANGLES, RECEPTORS, corr_products
from uvlab.app.runtime.faults import fault_point

#: casacore MFrequency code of TOPO (the frame of simulated channel frequencies).
MEAS_FREQ_REF_TOPO = 5

#: Telescope names CASA knows, by layout-name prefix.
_TELESCOPES = (
    ("meerkat", "MeerKAT"),
    ("kat-7", "KAT-7"),
    ("skamid", "SKA-Mid"),
    ("vlba", "VLBA"),
    ("vla", "VLA"),
    ("atca", "ATCA"),
    ("alma", "ALMA"),
    ("wsrt", "WSRT"),
    ("sma", "SMA"),
    ("ngvla", "ngVLA"),
    ("hera", "HERA"),
    ("mwa", "MWA"),
    ("lofar", "LOFAR"),
    ("askap", "ASKAP"),
    ("gmrt", "GMRT"),
    ("skalow", "SKA-Low"),
)

_UNIX_EPOCH_MJD_S = 40587.0 * 86400.0


def telescope_name(layout_name: str) -> str:
    """CASA's name for a built-in layout (``vla.d`` → ``VLA``), else the layout's name."""
    low = layout_name.lower()
    for prefix, name in _TELESCOPES:
        if low.startswith(prefix):
            return name
    return layout_name


#: Subtables written here; POINTING and FLAG_CMD stay empty.
FILLED = (
    "ANTENNA",
    "FEED",
    "SPECTRAL_WINDOW",
    "POLARIZATION",
    "DATA_DESCRIPTION",
    "FIELD",
    "OBSERVATION",
    "SOURCE",
    "STATE",
    "PROCESSOR",
    "HISTORY",
)


def _open(ms, name: str, tabs: dict) -> None:
    """Open subtable ``name`` for writing into ``tabs`` (a signal cannot leave it unlisted)."""
    from casacore import tables

    from uvlab.app.runtime.signals import critical

    with critical():  # listed in the same instant it exists, so it is always closed
        tabs[name] = tables.table(str(ms.getkeyword(name)), readonly=False, ack=False)


def seal(table) -> None:
    """Mark ``table`` changed so that its close writes ``table.dat`` with the row count."""
    table.putkeywords(table.getkeywords())


def add_source_table(ms, path: str) -> None:
    """Create the optional SOURCE subtable in ``path`` and link it from the main table."""
    from casacore import tables

    from uvlab.app.runtime.signals import critical

    with critical():
        src = tables.default_ms_subtable("SOURCE", f"{path}/SOURCE")
        src.close()
    ms.putkeyword("SOURCE", f"Table: {path}/SOURCE")


def fill_subtables(
    ms,
    path: str,
    obs,
    *,
    corr_types,
    feeds: str,
    telescope: str,
    field_name: str,
    history: str,
) -> dict[str, int]:
    """Write the subtable rows of a single-field, single-window MS.

    Parameters
    ----------
    ms : casacore table
        The new main table, open for writing.
    path : str
        Its folder (for the SOURCE subtable).
    obs : uvlab.app.observing.observation.Observation
    corr_types : sequence of int
    feeds : {"linear", "circular"}
    telescope, field_name : str
    history : str
        The HISTORY message (e.g. the command line).

    Returns
    -------
    dict
        Rows of every subtable by name, the empty POINTING and FLAG_CMD included.
    """
    add_source_table(ms, path)
    t0 = float(obs.times_mjd_s[0] - obs.int_s / 2)
    t1 = float(obs.times_mjd_s[-1] + obs.int_s / 2)
    direction = np.array([[obs.ra0_rad, obs.dec0_rad]])
    nant = obs.layout.nant
    columns = {  # subtable → its columns, one value per antenna
        "ANTENNA": _antenna_columns(obs.layout),
        "FEED": _feed_columns(nant, feeds, (t0 + t1) / 2, t1 - t0),
    }
    cells = {  # subtable → the cells of its one row
        "SPECTRAL_WINDOW": _spectral_window_cells(obs),
        "POLARIZATION": {
            "CORR_TYPE": np.asarray(corr_types, dtype=np.int32),
            "CORR_PRODUCT": corr_products(corr_types),
            "NUM_CORR": len(corr_types),
            "FLAG_ROW": False,
        },
        "DATA_DESCRIPTION": {"SPECTRAL_WINDOW_ID": 0, "POLARIZATION_ID": 0, "FLAG_ROW": False},
        **_target_cells(field_name, direction, t0, t1),
        "OBSERVATION": _observation_cells(telescope, t0, t1),
        "STATE": STATE_CELLS,
        "PROCESSOR": PROCESSOR_CELLS,
        "HISTORY": _history_cells(history),
    }
    tabs = {}
    try:
        for name in FILLED:
            _open(ms, name, tabs)
        fault_point("ms-subtables-open")
        for name, cols in columns.items():
            tabs[name].addrows(nant)
            for col, values in cols.items():
                tabs[name].putcol(col, values)
        for name, row in cells.items():
            tabs[name].addrows(1)
            for col, value in row.items():
                tabs[name].putcell(col, 0, value)
        counts = {name: int(t.nrows()) for name, t in tabs.items()}
        for t in tabs.values():
            seal(t)
    finally:
        for t in tabs.values():
            t.close()
    return {**counts, "POINTING": 0, "FLAG_CMD": 0}


def _antenna_columns(layout) -> dict:
    nant = layout.nant
    return {
        "NAME": list(layout.antenna_names),
        "STATION": list(layout.antenna_names),
        "POSITION": np.asarray(layout.ecef, dtype=np.float64),
        "OFFSET": np.zeros((nant, 3)),
        "DISH_DIAMETER": np.asarray(layout.dish_diameter, dtype=np.float64),
        "TYPE": ["GROUND-BASED"] * nant,
        "MOUNT": ["ALT-AZ"] * nant,
        "FLAG_ROW": np.zeros(nant, dtype=bool),
    }


def _feed_columns(nant: int, feeds: str, mid: float, span: float) -> dict:
    return {
        "ANTENNA_ID": np.arange(nant, dtype=np.int32),
        "FEED_ID": np.zeros(nant, dtype=np.int32),
        "SPECTRAL_WINDOW_ID": np.full(nant, -1, dtype=np.int32),
        "TIME": np.full(nant, mid),
        "INTERVAL": np.full(nant, span),
        "NUM_RECEPTORS": np.full(nant, 2, dtype=np.int32),
        "BEAM_ID": np.full(nant, -1, dtype=np.int32),
        "BEAM_OFFSET": np.zeros((nant, 2, 2)),
        "POLARIZATION_TYPE": np.array([list(RECEPTORS[feeds])] * nant),
        "POL_RESPONSE": np.tile(np.eye(2, dtype=np.complex64), (nant, 1, 1)),
        "POSITION": np.zeros((nant, 3)),
        "RECEPTOR_ANGLE": np.tile(np.array(RECEPTOR_ANGLES[feeds]), (nant, 1)),
    }


def _spectral_window_cells(obs) -> dict:
    freq = np.asarray(obs.freq_hz, dtype=np.float64)
    width = np.full(freq.size, float(obs.chan_width_hz))
    return {
        "NAME": "SPW0",
        "MEAS_FREQ_REF": MEAS_FREQ_REF_TOPO,
        "CHAN_FREQ": freq,
        "CHAN_WIDTH": width,
        "EFFECTIVE_BW": np.abs(width),
        "RESOLUTION": np.abs(width),
        "REF_FREQUENCY": float(freq[0]),
        "TOTAL_BANDWIDTH": float(np.abs(width).sum()),
        "NUM_CHAN": int(freq.size),
        "NET_SIDEBAND": 1 if obs.chan_width_hz >= 0 else -1,
        "FREQ_GROUP": 0,
        "FREQ_GROUP_NAME": "Group 1",
        "IF_CONV_CHAIN": 0,
        "FLAG_ROW": False,
    }


def _target_cells(field_name: str, direction, t0: float, t1: float) -> dict:
    """The FIELD and SOURCE rows of the one target."""
    return {
        "FIELD": {
            "NAME": field_name,
            "CODE": "",
            "TIME": t0,
            "NUM_POLY": 0,
            "DELAY_DIR": direction,
            "PHASE_DIR": direction,
            "REFERENCE_DIR": direction,
            "SOURCE_ID": 0,
            "FLAG_ROW": False,
        },
        "SOURCE": {
            "SOURCE_ID": 0,
            "NAME": field_name,
            "CODE": "",
            "TIME": (t0 + t1) / 2,
            "INTERVAL": t1 - t0,
            "SPECTRAL_WINDOW_ID": -1,
            "NUM_LINES": 0,
            "CALIBRATION_GROUP": 0,
            "DIRECTION": direction[0],
            "PROPER_MOTION": np.zeros(2),
        },
    }


def _observation_cells(telescope: str, t0: float, t1: float) -> dict:
    return {
        "TELESCOPE_NAME": telescope,
        "TIME_RANGE": np.array([t0, t1]),
        "OBSERVER": "uvlab",
        "PROJECT": "uvlab simulation",
        "RELEASE_DATE": 0.0,
        "SCHEDULE_TYPE": "",
        "SCHEDULE": np.array([""]),
        "LOG": np.array([""]),
        "FLAG_ROW": False,
    }


#: The STATE row: on source, observing the target.
STATE_CELLS = {
    "SIG": True,
    "REF": False,
    "CAL": 0.0,
    "LOAD": 0.0,
    "SUB_SCAN": 0,
    "OBS_MODE": "OBSERVE_TARGET#ON_SOURCE",
    "FLAG_ROW": False,
}
#: The PROCESSOR row: uvlab's correlator.
PROCESSOR_CELLS = {
    "TYPE": "CORRELATOR",
    "SUB_TYPE": "uvlab",
    "TYPE_ID": -1,
    "MODE_ID": -1,
    "FLAG_ROW": False,
}


def _history_cells(history: str) -> dict:
    return {
        "TIME": _time.time() + _UNIX_EPOCH_MJD_S,
        "OBSERVATION_ID": 0,
        "MESSAGE": history,
        "PRIORITY": "NORMAL",
        "ORIGIN": f"uvlab {__version__}",
        "OBJECT_ID": 0,
        "APPLICATION": "uvlab",
        "CLI_COMMAND": np.array([history]),
        "APP_PARAMS": np.array([""]),
    }
