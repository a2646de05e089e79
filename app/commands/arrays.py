"""``uvlab arrays``: list the built-in antenna layouts, or show one layout or file."""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    """Add the ``arrays`` subcommand to an argparse subparsers object."""
    parser = subparsers.add_parser(
        "arrays",
        help="list the built-in array layouts, or show one",
        description=(
            "Without an argument, list the built-in array layouts. With a layout name "
            "or a layout file (CASA .cfg, simms .yaml, ECEF .csv), show its details."
        ),
    )
    parser.add_argument(
        "layout", nargs="?", metavar="NAME_OR_FILE", help="built-in layout name or file path"
    )
    parser.set_defaults(func=run)


def _dish_text(dish) -> str:
    lo, hi = float(dish.min()), float(dish.max())
    return f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}"


def _summary_row(layout) -> str:
    import numpy as np

    return (
        f"{layout.name:<18} {layout.nant:>5} {_dish_text(layout.dish_diameter):>9} "
        f"{layout.max_baseline_m() / 1e3:>11.3f} {np.degrees(layout.site_lon_rad):>11.5f} "
        f"{np.degrees(layout.site_lat_rad):>10.5f}"
    )


def _header() -> str:
    return (
        f"{'name':<18} {'nant':>5} {'dish (m)':>9} {'max bl (km)':>11} {'lon (deg)':>11} "
        f"{'lat (deg)':>10}"
    )


def run(args: argparse.Namespace) -> int:
    """List layouts, or print one layout's site and antennas."""
    import numpy as np

    from uvlab.app.observing.layouts import list_layouts, load_layout

    if not args.layout:
        print(_header())
        for name in list_layouts():
            print(_summary_row(load_layout(name)))
        return 0
    layout = load_layout(args.layout)
    print(_header())
    print(_summary_row(layout))
    print(f"source: {layout.source}")
    print(
        f"site: lon {np.degrees(layout.site_lon_rad):.6f} deg, "
        f"lat {np.degrees(layout.site_lat_rad):.6f} deg, height {layout.site_height_m:.2f} m"
    )
    print(f"baselines: {layout.nant * (layout.nant - 1) // 2}")
    print(f"{'antenna':<10} {'east (m)':>12} {'north (m)':>12} {'up (m)':>10} {'dish (m)':>9}")
    for name, (e, n, u), d in zip(layout.antenna_names, layout.enu(), layout.dish_diameter):
        print(f"{name:<10} {e:>12.3f} {n:>12.3f} {u:>10.3f} {d:>9.2f}")
    return 0
