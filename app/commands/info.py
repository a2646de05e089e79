"""``uvlab info MS``: a listobs-like summary of a MeasurementSet, as text or JSON."""

from __future__ import annotations

import json
import math
import textwrap


def register(sub) -> None:
    p = sub.add_parser(
        "info",
        help="summarise a MeasurementSet (telescope, antennas, fields, windows, ...)",
        description="Print what a MeasurementSet holds: telescope, antennas, baselines, "
        "time span, fields, spectral windows, correlations, data columns, rows and the "
        "flagged fraction. The MeasurementSet is opened read-only.",
    )
    p.add_argument("ms", help="the MeasurementSet folder")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def _sexagesimal(value: float, decimals: int) -> tuple[str, int, int, float]:
    sign = "-" if value < 0 else "+"
    scale = 10**decimals
    total = round(abs(value) * 3600.0 * scale)
    whole, frac = divmod(total, 3600 * scale)
    minutes, rest = divmod(frac, 60 * scale)
    return sign, int(whole), int(minutes), rest / scale


def format_ra(ra_rad: float) -> str:
    """RA as ``hh:mm:ss.sss``, wrapped into [0, 24) h."""
    _, h, m, s = _sexagesimal((math.degrees(ra_rad) % 360.0) / 15.0, 3)
    return f"{h % 24:02d}:{m:02d}:{s:06.3f}"


def format_dec(dec_rad: float) -> str:
    """Dec as ``±dd:mm:ss.ss``."""
    sign, d, m, s = _sexagesimal(math.degrees(dec_rad), 2)
    return f"{sign}{d:02d}:{m:02d}:{s:05.2f}"


def format_info(info) -> str:
    """The text summary of an :class:`~uvlab.app.ms.MSInfo`."""
    from uvlab.app.ms import mjd_s_to_iso

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
        f"  {f.id:>3}  {f.name:<20} {format_ra(f.ra_rad):>14} {format_dec(f.dec_rad):>13} "
        f"{f.nrows:>10}  {f.frame}"
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


def nonfinite_note(info) -> str | None:
    """One line naming the MS when rows have non-finite UVW (they are flagged when read)."""
    n = info.nonfinite_uvw_rows
    if not n:
        return None
    return (
        f"{info.path}: {n} of {info.nrows} row{'s' if info.nrows != 1 else ''} "
        f"{'have' if n != 1 else 'has'} non-finite UVW; "
        f"{'they are' if n != 1 else 'it is'} flagged when imaged"
    )


def run(args) -> int:
    import sys

    from uvlab.app.ms import open_ms

    info = open_ms(args.ms)
    if note := nonfinite_note(info):
        print(f"uvlab info: warning: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps(info.to_dict(), indent=2))
    else:
        print(format_info(info))
    return 0
