"""``uvlab bench aliasing``: the gridders' aliasing against the DFT, and Muscat's R(X) (issue 14).

The logic is :mod:`uvlab.gpu.bench.alias_bench` and :mod:`uvlab.gpu.bench.rx_bench`; this
sizes the runs per device, checks the options and registers the command.
"""

from __future__ import annotations

from uvlab.app.commands.bench.options import common_options, finish

#: ``bench aliasing`` sizes: (npix, ntime, nchan, decs, betas, seeds) per device and --quick.
ALIAS_SIZES = {
    ("gpu", False): (256, 1200, 8, (-30.0, -60.0, 10.0), (16, 32, 64, 128), (0, 1, 2)),
    ("gpu", True): (256, 1200, 8, (-30.0,), (16, 64), (0,)),
    ("cpu", False): (64, 32, 8, (-30.0,), (16, 64), (0, 1)),
    ("cpu", True): (64, 8, 4, (-30.0,), (16,), (0,)),
}


def register(actions) -> None:
    """Add ``bench aliasing`` (and its ``--rx``) to ``uvlab bench``'s sub-commands."""
    p = actions.add_parser(
        "aliasing",
        help="central-half and full-image error of conv, hybrid and pruned-nn vs the DFT",
        description="Image point-source skies of a MeerKAT observation with conv, hybrid and "
        "pruned-nn in Muscat's setting (PSWF S=6, sigma=1, least-misfit S_z=14) at several "
        "oversamplings beta, and report their RMS error against the float64 DFT over the "
        "central half and the full image, the nearest-cell floor they share "
        "(nn-oversampled) and the GCF's own aliasing (conv with a 4096x table).",
    )
    common_options(p, "fewer cases, smaller sizes")
    p.add_argument("--npix", type=int, help="image side")
    p.add_argument("--times", type=int, help="number of time steps")
    p.add_argument("--chans", type=int, help="number of channels across L band")
    p.add_argument("--betas", type=int, nargs="+", metavar="B", help="oversamplings β (even)")
    p.add_argument("--decs", type=float, nargs="+", metavar="DEG", help="declinations")
    p.add_argument("--seeds", type=int, nargs="+", metavar="S", help="sky seeds")
    p.add_argument(
        "--rx",
        action="store_true",
        help="Muscat's R(X) experiment instead (§8.2.2): a unit source on pixel (X, X) of a "
        "128² image, X = 0…63, beta = 128; --quick: 6 values of X, fewer records",
    )
    p.add_argument("--png", metavar="PATH", help="with --rx: plot R(X) against X")
    p.set_defaults(func=run_aliasing, parser=p)


def _check_alias_args(args) -> None:
    """Usage errors (exit 2) for values the study cannot run with."""
    bad = []
    if args.npix is not None and (args.npix < 8 or args.npix % 2):
        bad.append(f"--npix must be an even number ≥ 8, got {args.npix}")
    for name in ("times", "chans"):
        value = getattr(args, name)
        if value is not None and value < 1:
            bad.append(f"--{name} must be ≥ 1, got {value}")
    if any(b < 2 or b % 2 or b > 1024 for b in args.betas or ()):
        bad.append("every β must be an even number from 2 to 1024 (the pruners decimate by β/2)")
    if any(not -90.0 <= d <= 90.0 for d in args.decs or ()):
        bad.append("declinations must lie in [−90°, 90°]")
    if any(s < 0 for s in args.seeds or ()):
        bad.append("seeds must be ≥ 0")
    if args.png and not args.rx:
        bad.append("--png plots R(X): use it with --rx")
    if args.rx and args.betas and len(args.betas) != 1:
        bad.append("--rx takes one β")
    if bad:
        args.parser.error("; ".join(bad))


def run_aliasing(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.app.runtime.memory import check_memory, imaging_estimate
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.alias_bench import AliasSize, format_table, run_alias_bench
    from uvlab.gpu.gridders.params import GridParams

    _check_alias_args(args)
    device = resolve_device(args.device)
    if args.rx:
        return run_rx(args, device)
    npix, ntime, nchan, decs, betas, seeds = ALIAS_SIZES[(device, bool(args.quick))]
    size = AliasSize(
        npix=args.npix or npix,
        ntime=args.times or ntime,
        nchan=args.chans or nchan,
        decs=tuple(args.decs or decs),
        betas=tuple(args.betas or betas),
        seeds=tuple(args.seeds if args.seeds is not None else seeds),
    )
    layout = load_layout(args.array)
    if device == "cpu":  # NumPy's pruned-nn holds the whole (N·β)² fine grid
        beta = max(size.betas)
        need = imaging_estimate(size.npix, "pruned-nn", GridParams.muscat(beta))
        check_memory(need, f"pruned-nn at β = {beta} on a {size.npix}² image (NumPy)")
    print(f"uvlab bench aliasing: {layout.name}, {layout.nant} antennas, device {device}")
    report = run_alias_bench(layout.equatorial(), size, device=device)
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    return finish(report, format_table(report), args)


#: ``bench aliasing --rx`` sizes: (ntime, nchan, X values or None for 0 … N/2 − 1).
RX_SIZES = {
    ("gpu", False): (1200, 8, None),
    ("gpu", True): (32, 8, None),
    ("cpu", False): (32, 8, None),
    ("cpu", True): (8, 4, (0, 16, 31, 48, 56, 63)),
}


def run_rx(args, device: str) -> int:
    """``uvlab bench aliasing --rx``: Muscat's R(X) at his settings (β = 128, 128²)."""
    from uvlab.app.observing.layouts import load_layout
    from uvlab.app.runtime.memory import check_memory, imaging_estimate
    from uvlab.gpu.bench.rx_bench import MUSCAT_BETA, MUSCAT_NPIX, format_rx_table, run_rx_bench
    from uvlab.gpu.gridders.params import GridParams

    ntime, nchan, xs = RX_SIZES[(device, bool(args.quick))]
    npix = args.npix or MUSCAT_NPIX
    beta = args.betas[0] if args.betas else MUSCAT_BETA
    if xs is not None:  # --quick: its X values, scaled to a smaller image
        xs = sorted({x * npix // MUSCAT_NPIX for x in xs})
    layout = load_layout(args.array)
    if device == "cpu":  # NumPy's pruned-nn holds the whole (N·β)² fine grid
        need = imaging_estimate(npix, "pruned-nn", GridParams.muscat(beta))
        check_memory(need, f"pruned-nn at β = {beta} on a {npix}² image (NumPy)")
    print(f"uvlab bench aliasing --rx: {layout.name}, {layout.nant} antennas, device {device}")
    report = run_rx_bench(
        layout.equatorial(),
        device=device,
        npix=npix,
        beta=beta,
        ntime=args.times or ntime,
        nchan=args.chans or nchan,
        decs=tuple(args.decs or (-30.0,)),
        xs=xs,
    )
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    if args.png:
        from uvlab.app.outputs.plots import rx_figure

        rx_figure(report, args.png)
        print(f"wrote {args.png}")
    return finish(report, format_rx_table(report), args)
