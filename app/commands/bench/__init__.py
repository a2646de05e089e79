"""``uvlab bench``: benchmarks of the compute engine.

- ``uvlab bench predict [--device cpu|gpu] [--json PATH] [--quick]``: visibility
  prediction on a MeerKAT-like observation (64 antennas, 2016 baselines),
  median time and source·visibility rate per case (see
  :mod:`uvlab.gpu.bench.predict_bench`).

- ``uvlab bench grid [--device cpu|gpu] [--json PATH] [--quick] [--compress]``: dirty
  imaging by every gridder on a MeerKAT observation (2016 baselines ×
  1200 times × 8 channels at 4096², and 2016 × 3000 × 16 ≈ 1e8 at 8192² on
  the GPU): per-stage times, gridding rate, accuracy against a subsampled
  DFT, and ducc0's time for the same image (see
  :mod:`uvlab.gpu.bench.grid_bench`). ``--compress``: nn-oversampled, hybrid
  and pruned-nn at β = 16 without and with full compression instead.

- ``uvlab bench tune [--json PATH] [--array A]``: the GPU tuning sweep of
  the CUDA tile gridders' launch configurations on the 4096² MeerKAT
  observation, with the card's copy bandwidth (see
  :mod:`uvlab.gpu.bench.grid_tune`; GPU only).

- ``uvlab bench aliasing [--device cpu|gpu] [--json PATH] [--quick]``: the
  central-half and full-image error of conv, hybrid and pruned-nn against the
  float64 DFT on a MeerKAT track set, per declination, β and sky, with the
  nearest-cell floor they share and the GCF's own aliasing (see
  :mod:`uvlab.gpu.bench.alias_bench`). With ``--rx [--png PATH]``: Muscat's
  R(X) experiment in his setting (§8.2.2: 128², β = 128; see
  :mod:`uvlab.gpu.bench.rx_bench`; the command in :mod:`uvlab.app.commands.bench.aliasing`).

- ``uvlab bench pareto [--device cpu|gpu] [--quick] [--json PATH] [--png PATH]``:
  each gridder's accuracy-vs-time front against the float64 DFT, and every
  setting quoted against conv's front at the same error (see
  :mod:`uvlab.app.commands.bench.pareto` and :mod:`uvlab.gpu.bench.pareto`).

- ``uvlab bench degrid [--device cpu|gpu] [--quick] [--json PATH]``: image →
  visibilities by conv's degridder against the float64 direct sum, with
  ducc0's dirty2vis and cuFINUFFT type 2 on the same data (see
  :mod:`uvlab.app.commands.bench.degrid` and :mod:`uvlab.gpu.bench.degrid_bench`).

- ``uvlab bench algorithms [--device cpu|gpu] [--npix N] [--repeats R] [--json PATH]``:
  every catalogue algorithm on the lab's default scene, the median time of an
  imaging-only change and its error against Compare's float64 DFT reference
  (see :mod:`uvlab.app.commands.bench.algorithms`).

- ``uvlab bench startup [--repeats N] [--no-gui] [--json PATH]``: ``uvlab
  demo``'s wall time and the window's first image from a fresh process (see
  :mod:`uvlab.app.commands.bench.startup`).

- ``uvlab bench scale [--ms PATH | --gb G] [--workers 1,2,4] [--device cpu|gpu] [--major]
  [--json PATH]``: chunked imaging over a local Dask cluster, GB/s, visibilities/s and
  peak memory per worker against the number of workers (see
  :mod:`uvlab.app.commands.bench.scale`).

Each benchmark is one sub-action registered in :func:`register`. Heavy
imports happen inside the run functions, so this works on a machine with only
NumPy and CuPy.
"""

from __future__ import annotations

import json

from uvlab.app.commands.bench.options import common_options, finish

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
    _register_grid(actions)
    _register_tune(actions)
    _register_worker(actions)
    _register_startup(actions)
    from uvlab.app.commands.bench import algorithms, aliasing, clean, degrid, pareto, scale

    _register_gui(actions)
    for module in (aliasing, pareto, clean, degrid, algorithms, scale):
        module.register(actions)


def _register_worker(actions) -> None:
    p = actions.add_parser(
        "worker",
        help="the desktop lab's job on the default scene (no Qt): latency per change",
        description="Run the GUI worker's computation on the default scene without Qt and "
        "report the latency and per-stage timings of a cold run, a repeat, an imaging-only "
        "change and a change that re-predicts.",
    )
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--npix", type=int, default=1024)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.set_defaults(func=run_worker)


def _register_gui(actions) -> None:
    from uvlab.app.commands.validate import number

    p = actions.add_parser(
        "gui",
        help="the window's worst GUI-thread stall during a job, and its cancel latency",
        description="Open the real window on the default scene in a fresh process (offscreen "
        "without a display) and time the longest GUI-thread stall while a new prediction runs "
        "and draws (target < 100 ms) and the cancel latency (target ≤ 0.5 s).",
    )
    p.add_argument("--device", default="cpu", choices=("auto", "cpu", "gpu"))
    p.add_argument("--npix", type=number(64, 8192, integer=True), default=512,
                   help="image side (default 512)")  # fmt: skip
    p.add_argument("--repeats", type=number(1, 100, integer=True), default=3)
    p.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    p.set_defaults(func=run_gui)


def run_gui(args) -> int:
    from uvlab.app.commands.bench.gui import bench_gui, format_gui_bench
    from uvlab.app.commands.bench.options import write_report

    report = bench_gui(args.device, args.npix - args.npix % 2, args.repeats)
    print(format_gui_bench(report))
    write_report(report, args)
    return 0


def _register_startup(actions) -> None:
    p = actions.add_parser(
        "startup",
        help="uvlab demo's wall time and the window's first image, from fresh processes",
        description="Start `uvlab demo` and `uvlab gui --screenshot` as fresh processes and "
        "report the demo's wall time and the seconds to the window's first image and first "
        "complete image (offscreen without a display).",
    )
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-gui", action="store_true", help="time the demo only (no Qt needed)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    p.set_defaults(func=run_startup)


def run_startup(args) -> int:
    from uvlab.app.commands.bench.startup import bench_startup, format_startup_bench

    result = bench_startup(max(1, args.repeats), gui=not args.no_gui)
    print(format_startup_bench(result))
    if args.json:
        from uvlab.app.outputs.atomic import write_text

        write_text(args.json, json.dumps(result, indent=2))
    return 0


def run_worker(args) -> int:
    import json

    from uvlab.app.commands.bench.worker import bench_worker, format_worker_bench

    result = bench_worker(args.device, args.npix, args.repeats)
    print(format_worker_bench(result))
    if args.json:
        from uvlab.app.outputs.atomic import write_text

        write_text(args.json, json.dumps(result, indent=2))
    return 0


def _register_predict(actions) -> None:
    p = actions.add_parser(
        "predict",
        help="visibility prediction rate (source·visibilities per second)",
        description="Time predict_antennas on a MeerKAT-like observation: scalar without and "
        "with smearing, linear full-pol with smearing, float32 and float64.",
    )
    common_options(p, "fewer source counts / smaller sizes")
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
    p.add_argument(
        "--jones",
        action="store_true",
        help="also the cases with an Airy primary beam and random antenna gains (issue 17)",
    )
    p.add_argument(
        "--cases",
        nargs="+",
        metavar="NAME",
        help="run only these cases (names as printed)",
    )
    p.set_defaults(func=run_predict)


def run_predict(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.predict_bench import (
        CASES,
        JONES_CASES,
        format_table,
        measure_ceilings,
        run_predict_bench,
    )

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
        cases=tuple(
            c
            for c in CASES + JONES_CASES
            if (c[0] in args.cases if args.cases else args.jones or c in CASES)
        ),
    )
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    if args.ceilings and device == "gpu":
        report["ceilings"] = measure_ceilings()
    table = format_table(report)
    if "ceilings" in report:
        table += "\nceilings: " + json.dumps(report["ceilings"])
    return finish(report, table, args)


def grid_sizes(device: str, quick: bool, compress: bool = False):
    """The BenchSize list of ``bench grid`` for a device (quick: one small size).

    ``compress``: the nearest-cell algorithms at β = 16 without and with full
    compression instead of the usual cases (GPU: the 4096² size only).
    """
    from uvlab.gpu.bench.grid_bench import BenchSize, compress_cases, cpu_cases, gpu_cases

    if device == "gpu":
        cases = compress_cases("single") if compress else gpu_cases()
        small = BenchSize(4096, 1200, 8, cases, dft_step=32)
        if quick or compress:
            return [small]
        return [small, BenchSize(8192, 3000, 16, gpu_cases(big=True))]
    cases = compress_cases("double") if compress else cpu_cases()
    if quick:
        return [BenchSize(256, 20, 2, cases, dft_step=4)]
    return [BenchSize(512, 60, 4, cases, dft_step=8)]


def _register_grid(actions) -> None:
    p = actions.add_parser(
        "grid",
        help="gridding rate (weighted visibilities per second) and time to image",
        description="Image random visibilities of a MeerKAT observation with every gridder "
        "(conv-ES at eps 1e-4/1e-5 single and 1e-6 double, hybrid, pruned-nn, nn): stage "
        "times, gridding rate, accuracy vs a subsampled DFT, and ducc0 on all host cores.",
    )
    common_options(p, "one smaller size")
    p.add_argument("--repeats", type=int, help="timed calls per case (default 5 GPU, 2 CPU)")
    p.add_argument("--no-ducc", action="store_true", help="skip the ducc0 comparison")
    p.add_argument(
        "--compress",
        action="store_true",
        help="nn-oversampled, hybrid and pruned-nn at beta=16 without and with full "
        "compression (Muscat §3.2.4): compression ratio, times, rate and error",
    )
    p.set_defaults(func=run_grid)


def run_grid(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.grid_bench import format_table, run_grid_bench

    device = resolve_device(args.device)
    layout = load_layout(args.array)
    sizes = grid_sizes(device, bool(args.quick), bool(args.compress))
    print(f"uvlab bench grid: {layout.name}, {layout.nant} antennas, device {device}")
    report = run_grid_bench(
        layout.equatorial(),
        device=device,
        sizes=sizes,
        repeats=args.repeats or (5 if device == "gpu" else 2),
        ducc=not args.no_ducc,
    )
    report["array"] = layout.name
    report["quick"] = bool(args.quick)
    return finish(report, format_table(report), args)


def _register_tune(actions) -> None:
    p = actions.add_parser(
        "tune",
        help="GPU: time the CUDA gridders' tile and batch configurations (tuning sweep)",
        description="Time conv-ES (single and double), hybrid and pruned-nn on the 4096² "
        "MeerKAT benchmark observation (1200 times × 8 channels) for several CUDA kernel "
        "configurations (tile sizes, sub-grid limits, batching), and measure the card's "
        "device-to-device copy bandwidth. Needs a CUDA GPU.",
    )
    p.add_argument("--json", metavar="PATH", help="write the records as JSON")
    p.add_argument("--array", default="meerkat", help="antenna layout name or file")
    p.set_defaults(func=run_tune, parser=p)


def run_tune(args) -> int:
    from uvlab.app.observing.layouts import load_layout
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.bench.grid_tune import run_tune as tune

    resolve_device("gpu")  # DeviceError (exit 1, one line) without a usable CUDA device
    layout = load_layout(args.array)
    print(f"uvlab bench tune: {layout.name}, {layout.nant} antennas")
    report = tune(layout.equatorial())
    report["array"] = layout.name
    if args.json:
        from uvlab.app.outputs.atomic import write_text

        write_text(args.json, json.dumps(report, indent=2))
        print(f"wrote {args.json}")
    return 0
