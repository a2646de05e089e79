"""``uvlab bench degrid``: image → visibilities on the gridding benchmark's MeerKAT uv (issue 15).

The cases, timing and scoring are :mod:`uvlab.gpu.bench.degrid_bench`; this
module sizes the run per device, adds cuFINUFFT's type 2 as the GPU peer
when it is importable (``uvlab.gpu`` never imports it), prints the table and
registers the command.
"""

from __future__ import annotations

from uvlab.app.commands.bench.options import common_options, finish

#: Sizes per (device, quick): model side, MeerKAT ntime × nchan, DFT subsample, sources.
SIZES = {
    ("gpu", False): dict(npix=4096, ntime=1200, nchan=8, nsub=2000, nsrc=4000),
    ("gpu", True): dict(npix=1024, ntime=300, nchan=4, nsub=1000, nsrc=1000),
    ("cpu", False): dict(npix=1024, ntime=120, nchan=4, nsub=1000, nsrc=1000),
    ("cpu", True): dict(npix=256, ntime=30, nchan=2, nsub=500, nsrc=300),
}


def cufinufft_peer():
    """cuFINUFFT type 2 on the same points, or None when it is not importable.

    Built from ``../shared/anchors`` on the GPU machine (its README); the
    orientation is :mod:`uvlab.app.commands.bench.cufinufft_peer`'s (type 2, the transposed image;
    the other orientation is scored too and the better kept, as the anchors'
    example does). Timed
    whole (setpts, its sort, and execute) and execute alone, CUDA events,
    median after a warm-up, each gpu_method (1: GM-sort, 2: SM).
    """
    try:
        import cufinufft
    except ImportError:
        return None

    def peer(img, u, v, spec, eps, precision, sub, ref, repeats):
        import cupy as cp
        import numpy as np

        from uvlab.app.commands.bench.cufinufft_peer import plan as peer_plan
        from uvlab.app.commands.bench.cufinufft_peer import points as peer_points
        from uvlab.gpu.bench.degrid_bench import vis_error
        from uvlab.gpu.bench.predict_bench import _timer

        cdt = np.complex64 if precision == "single" else np.complex128
        x, y = peer_points(u, v, spec, precision)
        measure, out = _timer("gpu"), []
        grids = {"T": cp.ascontiguousarray(img.T.astype(cdt)), "N": img.astype(cdt)}
        for method in (1, 2):
            plan = peer_plan(cufinufft, 2, spec.npix, eps, cdt, method)
            if plan is None:
                continue
            plan.setpts(x, y)
            err = {k: vis_error(cp.asnumpy(plan.execute(g))[sub], ref) for k, g in grids.items()}
            best = min(err, key=lambda k: err[k]["rel_l2"])
            f = grids[best]

            def whole(plan=plan, f=f):
                plan.setpts(x, y)
                plan.execute(f)

            measure(whole)  # warm-up
            total = float(np.median([measure(whole) for _ in range(max(1, repeats))]))
            plan.setpts(x, y)

            def execute_only(plan=plan, f=f):
                plan.execute(f)

            execute = float(np.median([measure(execute_only) for _ in range(max(1, repeats))]))
            out.append(
                {
                    "label": f"cuFINUFFT t2 m{method}",
                    "gpu_method": method,
                    "orientation": "transposed" if best == "T" else "as is",
                    "total_s": total,
                    "execute_s": execute,
                    "error": err[best],
                }
            )
            del plan
        return out

    return peer


def register(actions) -> None:
    """Add ``bench degrid`` to ``uvlab bench``'s sub-commands."""
    p = actions.add_parser(
        "degrid",
        help="degridding (image to visibilities): time, rate, error against the DFT",
        description="Predict the visibilities of a point-source model image on a MeerKAT "
        "observation with uvlab's conv degridder (exact ES at eps 1e-5 single and 1e-6 double "
        "on the GPU; ducc0 and NumPy engines on the CPU), score them against the float64 "
        "direct sum on a subsample, and time ducc0's dirty2vis on the host cores (and "
        "cuFINUFFT type 2 when importable) on the same data.",
    )
    common_options(p, "a small model and observation")  # --device, --json, --quick, --array
    p.add_argument("--repeats", type=int, help="timed calls per case (default 5 GPU, 2 CPU)")
    p.add_argument("--no-ducc", action="store_true", help="skip ducc0's dirty2vis")
    p.set_defaults(func=run)


def run(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.degrid_bench import DegridSize, format_table, run_degrid_bench

    device = resolve_device(args.device)
    layout = load_layout(args.array)
    size = DegridSize(**SIZES[(device, bool(args.quick))])
    print(f"uvlab bench degrid: {layout.name}, {layout.nant} antennas, device {device}")
    report = run_degrid_bench(
        layout.equatorial(),
        size,
        device=device,
        repeats=args.repeats or (5 if device == "gpu" else 2),
        ducc=not args.no_ducc,
        peer=cufinufft_peer() if device == "gpu" else None,
    )
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    return finish(report, format_table(report), args)
