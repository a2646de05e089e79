"""``uvlab bench clean``: Cotton–Schwab CLEAN timed on the gridding benchmark's data (issue 15).

The logic is :mod:`uvlab.gpu.bench.clean_bench`; this sizes the run per device and
registers the command.
"""

from __future__ import annotations

from uvlab.app.commands.bench.options import common_options, write_report
from uvlab.gpu.deconvolution.subminor import ACTIVE_MAX

#: (npix, ntime, nchan) per (device, quick).
SIZES = {
    ("gpu", False): (4096, 1200, 8),
    ("gpu", True): (1024, 300, 4),
    ("cpu", False): (512, 60, 4),
    ("cpu", True): (128, 8, 2),
}


def register(actions) -> None:
    """Add ``bench clean`` to ``uvlab bench``'s sub-commands."""
    p = actions.add_parser(
        "clean",
        help="Cotton–Schwab CLEAN: ten major cycles, 1e4 minor iterations, timed",
        description="Time Cotton–Schwab CLEAN (Högbom minor cycles, major cycles by "
        "degridding and gridding with conv) on point sources observed by the gridding "
        "benchmark's MeerKAT tracks: 1.94e7 visibilities at 4096² on the GPU.",
    )
    common_options(p, "a smaller image and observation")  # --device, --json, --quick, --array
    p.add_argument("--niter", type=int, default=10_000, help="minor iterations at most")
    p.add_argument("--max-major", type=int, default=10, help="major cycles at most")
    p.add_argument("--mgain", type=float, default=0.5, help="a minor cycle's depth")
    p.add_argument("--nsrc", type=int, default=20, help="point sources in the sky")
    p.add_argument(
        "--active-max",
        type=int,
        default=ACTIVE_MAX,
        help="the sub-minor loop's pixels at most (WSClean's); 0: Högbom on the whole image",
    )
    p.add_argument(
        "--multiscale", action="store_true", help="multiscale minor cycles (default scales)"
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.clean_bench import format_record, run_clean_bench

    device = resolve_device(args.device)
    npix, ntime, nchan = SIZES[(device, bool(args.quick))]
    layout = load_layout(args.array)
    record = run_clean_bench(
        layout.equatorial(), npix=npix, ntime=ntime, nchan=nchan, device=device,
        niter=args.niter, max_major=args.max_major, mgain=args.mgain, nsrc=args.nsrc,
        active_max=args.active_max or None, multiscale=args.multiscale,
        precision="single" if device == "gpu" else "double",
    )  # fmt: skip
    record["array"] = layout.name
    print(format_record(record))
    write_report(record, args)
    return 0
