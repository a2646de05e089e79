"""Options the ``uvlab bench`` benchmarks share.

The benchmark command (:mod:`uvlab.app.commands.bench`) and the benchmarks with
modules of their own (:mod:`~uvlab.app.commands.bench.pareto`,
:mod:`~uvlab.app.commands.bench.degrid`, …) build their options here.
"""

from __future__ import annotations

import json


def common_options(p, quick_help: str) -> None:
    """--device, --json, --quick and --array (predict, grid, aliasing, pareto, degrid)."""
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    p.add_argument("--quick", action="store_true", help=quick_help)
    p.add_argument("--array", default="meerkat", help="antenna layout name or file")


def write_report(report: dict, args) -> None:
    """Write the JSON report to ``--json`` when asked, and say so."""
    if args.json:
        from uvlab.app.outputs.atomic import write_text

        write_text(args.json, json.dumps(report, indent=2))
        print(f"wrote {args.json}")


def finish(report: dict, table: str, args) -> int:
    """Print the summary table after a blank line and write the JSON report when asked."""
    print()
    print(table)
    write_report(report, args)
    return 0
