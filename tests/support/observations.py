"""Observations the lab and window tests share (they need uvlab.app, hence astropy)."""

from __future__ import annotations

from uvlab.app.observing.observation import ObservationSpec

#: A small synthetic observation: KAT-7, 6 h at 10 min, two channels (36 × 21 rows).
SMALL_OBS = ObservationSpec(
    layout="kat-7",
    ra_deg=201.365,
    dec_deg=-43.019,
    ha_start_h=-3.0,
    ha_stop_h=3.0,
    int_s=600.0,
    freq_hz=1.4e9,
    chan_width_hz=2.0e6,
    nchan=2,
)
