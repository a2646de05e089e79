"""The text of an MS summary: what ``uvlab info`` prints and the MS selector panel shows.

Plain functions of an :class:`~uvlab.app.ms.MSInfo` (from
:func:`~uvlab.app.ms.open_ms`); they read no table, so any thread may call them.
"""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

from uvlab.app.ms.metadata import mjd_s_to_iso
from uvlab.app.skymodel.angles import format_dec, format_ra

if TYPE_CHECKING:
    from uvlab.app.ms.metadata import MSInfo


def format_info(info: MSInfo) -> str:
    """The listobs-like text summary of a MeasurementSet.

    Parameters
    ----------
    info : MSInfo
        The summary :func:`~uvlab.app.ms.open_ms` returns.

    Returns
    -------
    str
        Lines for the telescope, antennas, baselines, time span, fields (RA
        ``hh:mm:ss.sss``, Dec ``±dd:mm:ss.ss``), spectral windows,
        correlations, data columns, rows and flagged fraction.
    """
    names = textwrap.fill(
        " ".join(info.antenna_names), width=96, initial_indent=" " * 16, subsequent_indent=" " * 16
    )
    used = f", {info.antennas_with_data} with data" if info.antennas_with_data < info.nant else ""
    autos = " (autocorrelations present)" if info.has_autocorrelations else ""
    n_int = info.nintegrations
    each = f" of {info.int_s:g} s" if math.isfinite(info.int_s) else ""
    lines = [
        f"MeasurementSet  {info.path}",
        f"Telescope       {info.telescope}",
        f"Antennas        {info.nant}{used}:",
        names,
        f"Baselines       {info.nbaselines}{autos}",
        f"Time (UTC)      {mjd_s_to_iso(info.time_start_mjd_s)} to "
        f"{mjd_s_to_iso(info.time_end_mjd_s)}",
        f"                duration {info.duration_s:.1f} s, {n_int} integration"
        f"{'s' if n_int != 1 else ''}{each}",
        "Fields",
        f"  {'ID':>3}  {'Name':<20} {'RA':>14} {'Dec':>13} {'Rows':>10}  Frame",
    ]
    lines += [
        f"  {f.id:>3}  {f.name:<20} {format_ra(math.degrees(f.ra_rad)):>14} "
        f"{format_dec(math.degrees(f.dec_rad)):>13} {f.nrows:>10}  {f.frame}"
        for f in info.fields
    ]
    lines += [
        "Spectral windows",
        f"  {'ID':>3}  {'Chans':>6} {'First (MHz)':>14} {'Width (kHz)':>12} {'Total (MHz)':>12}",
    ]
    for s in info.spws:
        first = f"{s.freq_hz[0] / 1e6:.6f}" if s.nchan else "-"
        width = f"{s.chan_width_hz[0] / 1e3:.3f}" if s.nchan else "-"
        lines.append(
            f"  {s.id:>3}  {s.nchan:>6} {first:>14} {width:>12} {s.bandwidth_hz / 1e6:>12.6f}"
        )
    pols = info.correlations
    if len(pols) == 1:
        lines.append(f"Correlations    {' '.join(next(iter(pols.values())))}")
    else:
        lines.append("Correlations")
        lines += [f"  setup {k}: {' '.join(v)}" for k, v in pols.items()]
    lines += [
        f"Data columns    {' '.join(info.data_columns) or 'none'}",
        f"Rows            {info.nrows}",
        f"Flagged         {100.0 * info.flagged_fraction:.2f} %",
    ]
    return "\n".join(lines)


def nonfinite_note(info: MSInfo) -> str | None:
    """One line naming the MS when rows have non-finite UVW (they are flagged when read)."""
    n = info.nonfinite_uvw_rows
    if not n:
        return None
    return (
        f"{info.path}: {n} of {info.nrows} row{'s' if info.nrows != 1 else ''} "
        f"{'have' if n != 1 else 'has'} non-finite UVW; "
        f"{'they are' if n != 1 else 'it is'} flagged when imaged"
    )
