"""``uvlab gui``: open the desktop lab (or save a screenshot of it and exit)."""

from __future__ import annotations

import argparse

from uvlab.app.gui.tabs import TAB_KEYS
from uvlab.gpu.gridders.registry import ALGORITHMS as GRIDDERS


def algorithm_list(text: str) -> list[str]:
    """``--compare`` value: two or more distinct gridders, comma-separated."""
    names = list(dict.fromkeys(a.strip() for a in text.split(",") if a.strip()))
    bad = [a for a in names if a not in GRIDDERS]
    if bad or len(names) < 2:
        raise argparse.ArgumentTypeError(
            f"give two or more of {', '.join(GRIDDERS)}, comma-separated"
            + (f" (unknown: {', '.join(bad)})" if bad else "")
        )
    return names


def register(sub) -> None:
    p = sub.add_parser(
        "gui",
        help="open the desktop lab window",
        description="Open uvlab's desktop lab: simulate an observation or open a "
        "MeasurementSet, edit the sky and the imaging, and watch the images update. "
        "With --screenshot, wait for the first complete result (or, with --compare, the "
        "comparison), save the window as PNG and exit (0 on success, 1 on error or timeout).",
    )
    p.add_argument("--scene", help="start from a scene JSON file (as written by uvlab demo)")
    p.add_argument("--session", help="start from a saved GUI session (JSON)")
    p.add_argument("--screenshot", metavar="PATH", help="save the window as PNG and exit")
    p.add_argument("--device", choices=("auto", "cpu", "gpu"), help="compute device")
    p.add_argument(
        "--tab",
        choices=TAB_KEYS,
        help="view tab to show at start; deconvolution also runs a CLEAN and aliasing "
        "computes its maps after the first image (with --screenshot, the screenshot waits "
        "for it)",
    )
    p.add_argument(
        "--lecture",
        action="store_true",
        help="open in the lecture layout: sky, Fourier plane, uv coverage, PSF, dirty and "
        "CLEAN restored images on one screen, light theme (View → Lecture layout)",
    )
    p.add_argument(
        "--image-sky",
        metavar="SOURCE",
        help="start with an image sky: a picture (PNG, JPEG, …; half the image's field "
        "wide), a FITS image, or a drawn picture (radio-galaxy, spiral, ring)",
    )
    p.add_argument(
        "--compare",
        type=algorithm_list,
        metavar="ALGOS",
        help="after the first image, compare these gridders (e.g. conv,hybrid,pruned-nn) "
        "in the Compare tab; with --screenshot, the screenshot waits for the comparison",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="seconds to wait for the first result with --screenshot (default 300)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from uvlab.app.gui.launch import launch

    return launch(
        scene=args.scene,
        session=args.session,
        screenshot=args.screenshot,
        device=args.device,
        timeout_s=args.timeout,
        tab=args.tab,
        compare=args.compare,
        image_sky=args.image_sky,
        lecture=args.lecture,
    )
