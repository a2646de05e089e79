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
    mid, span = (t0 + t1) / 2, t1 - t0
    direction = np.array([[obs.ra0_rad, obs.dec0_rad]])
    layout = obs.layout
    nant = layout.nant
    tabs = {}
    try:
        for name in FILLED:
            _open(ms, name, tabs)
        fault_point("ms-subtables-open")

        a = tabs["ANTENNA"]
        a.addrows(nant)
        a.putcol("NAME", list(layout.antenna_names))
        a.putcol("STATION", list(layout.antenna_names))
        a.putcol("POSITION", np.asarray(layout.ecef, dtype=np.float64))
        a.putcol("OFFSET", np.zeros((nant, 3)))
        a.putcol("DISH_DIAMETER", np.asarray(layout.dish_diameter, dtype=np.float64))
        a.putcol("TYPE", ["GROUND-BASED"] * nant)
        a.putcol("MOUNT", ["ALT-AZ"] * nant)
        a.putcol("FLAG_ROW", np.zeros(nant, dtype=bool))

        f = tabs["FEED"]
        f.addrows(nant)
        f.putcol("ANTENNA_ID", np.arange(nant, dtype=np.int32))
        f.putcol("FEED_ID", np.zeros(nant, dtype=np.int32))
        f.putcol("SPECTRAL_WINDOW_ID", np.full(nant, -1, dtype=np.int32))
        f.putcol("TIME", np.full(nant, mid))
        f.putcol("INTERVAL", np.full(nant, span))
        f.putcol("NUM_RECEPTORS", np.full(nant, 2, dtype=np.int32))
        f.putcol("BEAM_ID", np.full(nant, -1, dtype=np.int32))
        f.putcol("BEAM_OFFSET", np.zeros((nant, 2, 2)))
        f.putcol("POLARIZATION_TYPE", np.array([list(RECEPTORS[feeds])] * nant))
        f.putcol("POL_RESPONSE", np.tile(np.eye(2, dtype=np.complex64), (nant, 1, 1)))
        f.putcol("POSITION", np.zeros((nant, 3)))
        f.putcol("RECEPTOR_ANGLE", np.tile(np.array(RECEPTOR_ANGLES[feeds]), (nant, 1)))

        freq = np.asarray(obs.freq_hz, dtype=np.float64)
        width = np.full(freq.size, float(obs.chan_width_hz))
        s = tabs["SPECTRAL_WINDOW"]
        s.addrows(1)
        s.putcell("NAME", 0, "SPW0")
        s.putcell("MEAS_FREQ_REF", 0, MEAS_FREQ_REF_TOPO)
        s.putcell("CHAN_FREQ", 0, freq)
        s.putcell("CHAN_WIDTH", 0, width)
        s.putcell("EFFECTIVE_BW", 0, np.abs(width))
        s.putcell("RESOLUTION", 0, np.abs(width))
        s.putcell("REF_FREQUENCY", 0, float(freq[0]))
        s.putcell("TOTAL_BANDWIDTH", 0, float(np.abs(width).sum()))
        s.putcell("NUM_CHAN", 0, int(freq.size))
        s.putcell("NET_SIDEBAND", 0, 1 if obs.chan_width_hz >= 0 else -1)
        s.putcell("FREQ_GROUP", 0, 0)
        s.putcell("FREQ_GROUP_NAME", 0, "Group 1")
        s.putcell("IF_CONV_CHAIN", 0, 0)
        s.putcell("FLAG_ROW", 0, False)

        p = tabs["POLARIZATION"]
        p.addrows(1)
        p.putcell("CORR_TYPE", 0, np.asarray(corr_types, dtype=np.int32))
        p.putcell("CORR_PRODUCT", 0, corr_products(corr_types))
        p.putcell("NUM_CORR", 0, len(corr_types))
        p.putcell("FLAG_ROW", 0, False)

        d = tabs["DATA_DESCRIPTION"]
        d.addrows(1)
        d.putcell("SPECTRAL_WINDOW_ID", 0, 0)
        d.putcell("POLARIZATION_ID", 0, 0)
        d.putcell("FLAG_ROW", 0, False)

        fl = tabs["FIELD"]
        fl.addrows(1)
        fl.putcell("NAME", 0, field_name)
        fl.putcell("CODE", 0, "")
        fl.putcell("TIME", 0, t0)
        fl.putcell("NUM_POLY", 0, 0)
        for col in ("DELAY_DIR", "PHASE_DIR", "REFERENCE_DIR"):
            fl.putcell(col, 0, direction)
        fl.putcell("SOURCE_ID", 0, 0)
        fl.putcell("FLAG_ROW", 0, False)

        src = tabs["SOURCE"]
        src.addrows(1)
        src.putcell("SOURCE_ID", 0, 0)
        src.putcell("NAME", 0, field_name)
        src.putcell("CODE", 0, "")
        src.putcell("TIME", 0, mid)
        src.putcell("INTERVAL", 0, span)
        src.putcell("SPECTRAL_WINDOW_ID", 0, -1)
        src.putcell("NUM_LINES", 0, 0)
        src.putcell("CALIBRATION_GROUP", 0, 0)
        src.putcell("DIRECTION", 0, direction[0])
        src.putcell("PROPER_MOTION", 0, np.zeros(2))

        o = tabs["OBSERVATION"]
        o.addrows(1)
        o.putcell("TELESCOPE_NAME", 0, telescope)
        o.putcell("TIME_RANGE", 0, np.array([t0, t1]))
        o.putcell("OBSERVER", 0, "uvlab")
        o.putcell("PROJECT", 0, "uvlab simulation")
        o.putcell("RELEASE_DATE", 0, 0.0)
        o.putcell("SCHEDULE_TYPE", 0, "")
        o.putcell("SCHEDULE", 0, np.array([""]))
        o.putcell("LOG", 0, np.array([""]))
        o.putcell("FLAG_ROW", 0, False)

        st = tabs["STATE"]
        st.addrows(1)
        st.putcell("SIG", 0, True)
        st.putcell("REF", 0, False)
        st.putcell("CAL", 0, 0.0)
        st.putcell("LOAD", 0, 0.0)
        st.putcell("SUB_SCAN", 0, 0)
        st.putcell("OBS_MODE", 0, "OBSERVE_TARGET#ON_SOURCE")
        st.putcell("FLAG_ROW", 0, False)

        pr = tabs["PROCESSOR"]
        pr.addrows(1)
        pr.putcell("TYPE", 0, "CORRELATOR")
        pr.putcell("SUB_TYPE", 0, "uvlab")
        pr.putcell("TYPE_ID", 0, -1)
        pr.putcell("MODE_ID", 0, -1)
        pr.putcell("FLAG_ROW", 0, False)

        h = tabs["HISTORY"]
        h.addrows(1)
        h.putcell("TIME", 0, _time.time() + _UNIX_EPOCH_MJD_S)
        h.putcell("OBSERVATION_ID", 0, 0)
        h.putcell("MESSAGE", 0, history)
        h.putcell("PRIORITY", 0, "NORMAL")
        h.putcell("ORIGIN", 0, f"uvlab {__version__}")
        h.putcell("OBJECT_ID", 0, 0)
        h.putcell("APPLICATION", 0, "uvlab")
        h.putcell("CLI_COMMAND", 0, np.array([history]))
        h.putcell("APP_PARAMS", 0, np.array([""]))
        counts = {name: int(t.nrows()) for name, t in tabs.items()}
        for t in tabs.values():
            seal(t)
    finally:
        for t in tabs.values():
            t.close()
    return {**counts, "POINTING": 0, "FLAG_CMD": 0}
