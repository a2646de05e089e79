"""``uvlab bench pareto``: the gridders' accuracy-vs-time fronts (issue 14).

The sweep and the matched-accuracy table are :mod:`uvlab.gpu.bench.pareto`;
this module sizes the run per device, draws the PNG (error against time,
log-log, one curve per algorithm, one panel per sky) and registers the
command.
"""

from __future__ import annotations

from pathlib import Path

from uvlab.app.commands.bench.options import common_options, finish

#: Sizes per (device, quick).
SIZES = {
    ("cpu", True): dict(
        npix=64, ntime=8, nchan=2, dft_step=1, table_betas=(16,), betas=(16, 64), nn_betas=(2, 8)
    ),
    ("cpu", False): dict(
        npix=256, ntime=30, nchan=4, dft_step=4, betas=(16, 64, 256), nn_betas=(2, 4, 8, 16)
    ),
    ("gpu", True): dict(npix=1024, ntime=300, nchan=4, dft_step=16),
    ("gpu", False): dict(
        npix=4096,
        ntime=1200,
        nchan=8,
        dft_step=32,
        conv_supports=tuple(range(2, 11)),
        sigma_supports=tuple(range(3, 11)),
    ),
}

#: Curve style per algorithm: colour and marker.
STYLE = {
    "conv": ("tab:blue", "o"),
    "conv-sigma": ("tab:purple", "o"),
    "conv-table": ("tab:cyan", "s"),
    "conv-linear": ("tab:green", "P"),
    "hybrid": ("tab:orange", "^"),
    "pruned-nn": ("tab:red", "v"),
    "nn-oversampled": ("tab:gray", "D"),
    "cufinufft": ("black", "x"),
}


#: cuFINUFFT tolerances of the peer curve (single precision stops where it can reach).
PEER_EPS = {
    "single": (1e-2, 1e-3, 1e-4, 1e-5, 1e-6),
    "double": (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9),
}


def cufinufft_peer():
    """cuFINUFFT type 1 as a peer curve of the GPU sweep, or None when not importable.

    Built from ``../shared/anchors`` on the GPU machine (its README); the
    orientation is :mod:`uvlab.app.commands.bench.cufinufft_peer`'s (type 1). Timed whole
    (setpts and execute, its sort included), CUDA events, each gpu_method (1: GM-sort,
    2: SM); scored on the real part against the same DFT pixels as uvlab.
    """
    try:
        import cufinufft
    except ImportError:
        return None

    def points(u, v, vis, spec, ref, step, precision, sky, repeats):
        import cupy as cp
        import numpy as np

        from uvlab.app.commands.bench.cufinufft_peer import plan as peer_plan
        from uvlab.app.commands.bench.cufinufft_peer import points as peer_points
        from uvlab.gpu.bench.grid_data import sampled_error
        from uvlab.gpu.bench.predict_bench import _timer

        x, y = peer_points(u, v, spec, precision)
        measure, out = _timer("gpu"), []
        for eps in PEER_EPS[precision]:
            for method in (1, 2):
                plan = peer_plan(cufinufft, 1, spec.npix, eps, vis.dtype, method)
                if plan is None:
                    continue
                res = {}

                def run(plan=plan, res=res):
                    plan.setpts(x, y)
                    res["f"] = plan.execute(vis)

                measure(run)  # warm-up
                total = float(np.median([measure(run) for _ in range(max(1, repeats))]))
                f = res["f"]  # axis 0 pairs with x (l): uvlab's [j, i] is its transpose
                acc = min(
                    (sampled_error(cp.ascontiguousarray(g.real), ref, step) for g in (f.T, f)),
                    key=lambda a: a["rel_l2"],
                )  # the other orientation too, as the anchors' example checks
                out.append(
                    {
                        "algorithm": "cufinufft",
                        "label": f"cuFINUFFT ε={eps:.0e} m{method}",
                        "params": {"eps": eps, "gpu_method": method},
                        "precision": precision,
                        "sky": sky,
                        "total_s": total,
                        "grid_s": float("nan"),
                        "error": acc["rel_l2"],
                        "error_central": acc["rel_l2_central"],
                    }
                )
                del plan, res, f
        return out

    return points


def pareto_size(device: str, quick: bool):
    from uvlab.gpu.bench.pareto import ParetoSize

    return ParetoSize(**SIZES[(device, bool(quick))])


def pareto_figure(report: dict, path) -> Path:
    """Error against total time, log-log: every point, each algorithm's front joined."""
    from uvlab.app.outputs.report import pyplot, save_figure
    from uvlab.gpu.bench.fronts import front
    from uvlab.gpu.bench.pareto import SKIES

    plt = pyplot()
    precisions = sorted({p["precision"] for p in report["points"]})
    fig, axes = plt.subplots(1, len(SKIES), figsize=(6.2 * len(SKIES), 4.8), squeeze=False)
    for ax, sky in zip(axes[0], SKIES, strict=True):
        for alg, (colour, marker) in STYLE.items():
            for k, prec in enumerate(precisions):
                pts = [
                    p
                    for p in report["points"]
                    if p["algorithm"] == alg and p["sky"] == sky and p["precision"] == prec
                ]
                if not pts:
                    continue
                name = alg if len(precisions) == 1 else f"{alg} ({prec})"
                fill = colour if k == 0 else "none"
                ax.scatter(
                    [p["total_s"] * 1e3 for p in pts],
                    [p["error"] for p in pts],
                    marker=marker,
                    **(
                        {"c": colour}  # an unfilled marker takes no edge colour
                        if marker == "x"
                        else {"edgecolors": colour, "facecolors": fill}
                    ),
                    s=22,
                    alpha=0.6,
                )
                fr = front(report["points"], alg, sky, prec)
                ax.plot(
                    [t * 1e3 for _, t in fr],
                    [e for e, _ in fr],
                    color=colour,
                    ls="-" if k == 0 else "--",
                    label=name,
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("time to image (ms, sort/bin included)")
        ax.set_ylabel("‖I − I_dft‖ / ‖I_dft‖")
        ax.set_title(f"{sky} sky", fontsize=10)
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(fontsize=7)
    fig.suptitle(
        f"accuracy vs time: {report['npix']}², {report['nvis']:.2e} visibilities, "
        f"{report['device_info']}",
        fontsize=9,
    )
    fig.tight_layout()
    out = save_figure(fig, path, dpi=110)
    plt.close(fig)
    return out


def register(actions) -> None:
    """Add ``bench pareto`` to ``uvlab bench``'s sub-commands."""
    p = actions.add_parser(
        "pareto",
        help="accuracy-vs-time fronts of the gridders; speed-ups at matched error",
        description="Sweep each gridder's accuracy knob (conv: exact ES supports and nearest-"
        "lookup tables; hybrid and pruned-nn: beta; nn-oversampled: beta) on noise-like and "
        "point-source skies of a MeerKAT observation, time the whole image and measure its "
        "error against the float64 DFT, and quote every setting against conv's front at the "
        "same error.",
    )
    common_options(p, "a small image and fewer settings")  # --device, --json, --quick, --array
    p.add_argument("--png", metavar="PATH", help="plot error against time (log-log)")
    p.add_argument("--repeats", type=int, help="timed calls per setting (default 5 GPU, 2 CPU)")
    p.set_defaults(func=run)


def run(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.fronts import format_table
    from uvlab.gpu.bench.pareto import run_pareto

    device = resolve_device(args.device)
    layout = load_layout(args.array)
    size = pareto_size(device, args.quick)
    print(f"uvlab bench pareto: {layout.name}, {layout.nant} antennas, device {device}")
    report = run_pareto(
        layout.equatorial(),
        size,
        device=device,
        repeats=args.repeats or (5 if device == "gpu" else 2),
        precisions=("single", "double") if device == "gpu" else ("double",),
        peer=cufinufft_peer() if device == "gpu" else None,
    )
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    finish(report, format_table(report), args)
    if args.png:
        print(f"wrote {pareto_figure(report, args.png)}")
    return 0
