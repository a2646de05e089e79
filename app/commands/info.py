"""``uvlab info MS``: a listobs-like summary of a MeasurementSet, as text or JSON."""

from __future__ import annotations

import json

from uvlab.app.ms.format import format_info, nonfinite_note


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


def run(args) -> int:
    from uvlab.app.commands.ms_imaging import warn
    from uvlab.app.ms import open_ms

    info = open_ms(args.ms)
    if note := nonfinite_note(info):
        warn(args, note)
    if args.json:
        print(json.dumps(info.to_dict(), indent=2))
    else:
        print(format_info(info))
    return 0
