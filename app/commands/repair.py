"""``uvlab repair MS``: finish or roll back an interrupted write and remove its leftovers."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser(
        "repair",
        help="finish or roll back an interrupted write to a MeasurementSet",
        description="Bring a MeasurementSet back to a clean state after a uvlab write was "
        "killed: finish or roll back the write from its journal (reading commands only report "
        "a pending journal; the next uvlab write to the MeasurementSet also does this), remove "
        "unfinished UVLAB_PARTIAL_/UVLAB_OLD_ columns and data files no column uses (left by "
        "older uvlab versions), and remove unfinished `uvlab simulate` build folders beside "
        "it. Recovery undoes only what the interrupted write did: if the MeasurementSet was "
        "changed since by another program it refuses, changing nothing. Nothing else is "
        "touched. See docs/data-safety.md.",
    )
    p.add_argument("ms", help="the MeasurementSet folder")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="list what would be done, entry by entry; change nothing",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from uvlab.app.ms.repair import repair

    for line in repair(args.ms, dry_run=args.dry_run).lines():
        print(line)
    return 0
