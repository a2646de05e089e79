"""``uvlab bench``: benchmarks of the compute engine.

- ``uvlab bench predict [--device cpu|gpu] [--json PATH] [--quick]``: visibility
  prediction on a MeerKAT-like observation (64 antennas, 2016 baselines),
  median time and source·visibility rate per case (see
  :mod:`uvlab.gpu.bench.predict_bench`).

Each benchmark is one sub-action registered in :func:`register`; a later
``bench grid`` adds its own parser beside ``predict``. Heavy imports happen
inside the run functions, so this works on a machine with only NumPy and CuPy.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Default sizes: (ntime, nchan, source counts) per device, and with --quick.
PREDICT_SIZES = {
    ("gpu", False): (100, 64, (1, 100, 1000, 10000)),
    ("gpu", True): (100, 64, (1, 100, 1000)),
    ("cpu", False): (10, 16, (1, 10, 100)),
    ("cpu", True): (4, 8, (1, 10)),
}


def register(subparsers) -> None:
    """Add ``bench`` and its benchmarks."""
    parser = subparsers.add_parser(
        "bench", help="run engine benchmarks", description=__doc__.splitlines()[0]
    )
    actions = parser.add_subparsers(dest="bench_command", metavar="BENCHMARK", required=True)
    _register_predict(actions)


def _register_predict(actions) -> None:
    p = actions.add_parser(
        "predict",
        help="visibility prediction rate (source·visibilities per second)",
        description="Time predict_antennas on a MeerKAT-like observation: scalar without and "
        "with smearing, linear full-pol with smearing, float32 and float64.",
    )
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    p.add_argument("--quick", action="store_true", help="fewer source counts / smaller sizes")
    p.add_argument("--array", default="meerkat", help="antenna layout name or file")
    p.add_argument("--sources", type=int, nargs="+", metavar="N", help="source counts to run")
    p.add_argument("--times", type=int, help="number of time steps")
    p.add_argument("--chans", type=int, help="number of channels")
    p.add_argument(
        "--repeats", type=int, help="timed calls per case, median kept (default 5 GPU, 3 CPU)"
    )
    p.add_argument(
        "--methods",
        nargs="*",
        default=(),
        metavar="M",
        help="also time scalar mode with these methods (gemm, fused)",
    )
    p.add_argument(
        "--ceilings", action="store_true", help="GPU: also measure copy bandwidth and GEMM rates"
    )
    p.set_defaults(func=run_predict)


def run_predict(args) -> int:
    from uvlab.app.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.predict_bench import format_table, measure_ceilings, run_predict_bench

    device = resolve_device(args.device)
    ntime, nchan, nsrc = PREDICT_SIZES[(device, bool(args.quick))]
    ntime = args.times or ntime
    nchan = args.chans or nchan
    nsrc = tuple(args.sources) if args.sources else nsrc
    layout = load_layout(args.array)
    print(
        f"uvlab bench predict: {layout.name}, {layout.nant} antennas, {ntime} times × "
        f"{nchan} channels, sources {list(nsrc)}, device {device}"
    )
    report = run_predict_bench(
        layout.equatorial(),
        device=device,
        nsrc_list=nsrc,
        ntime=ntime,
        nchan=nchan,
        repeats=args.repeats or (5 if device == "gpu" else 3),
        extra_scalar_methods=tuple(args.methods),
    )
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    if args.ceilings and device == "gpu":
        report["ceilings"] = measure_ceilings()
    print()
    print(format_table(report))
    if "ceilings" in report:
        print("ceilings:", json.dumps(report["ceilings"]))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
        print(f"wrote {args.json}")
    return 0
