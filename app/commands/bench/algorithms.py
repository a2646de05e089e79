"""``uvlab bench algorithms``: every catalogue algorithm on the lab's default scene (issue 28).

For each algorithm of the catalogue (:data:`uvlab.gpu.gridders.registry.CATALOGUE`)
it times an *imaging-only change*, what the window does when only the
algorithm or the weighting changes: the worker's job
(:func:`uvlab.app.lab.live.run_job`) with the observation and the prediction
held in its cache, so only the imaging (dirty image and PSF) runs. The
samples come from :mod:`uvlab.app.commands.bench.worker`'s helpers: each one
follows a run of another algorithm (the lab's default, or for the default
itself another gridder), so that nothing of the timed algorithm's image is
still cached; the median of ``repeats`` samples is kept, with their spread.

Each algorithm's dirty image of its median sample is measured against the
float64 direct DFT reference that the lab's Compare computes
(:func:`uvlab.app.lab.compare.iter_samples_comparison` on the same samples:
subsampled to every k-th pixel within :data:`~uvlab.app.lab.compare.DFT_BUDGET`),
by :func:`uvlab.gpu.aliasing.error_map`: ``error`` is the RMS over the whole
image of ``|I − I_dft| / peak(I_dft)`` (``rms_full``), and the central half's
RMS and the maximum come with it.

An algorithm that cannot run on the device is reported as skipped with the
reason, and so is the DFT when its N²·nvis products exceed the device's
budget (it is the reference; at 512² on a CPU it would take about half an
hour). Without a usable GPU, ``--device gpu`` skips every algorithm.
"""

from __future__ import annotations

import os
from dataclasses import replace

from uvlab.app.commands.bench.options import write_report

#: The error reported as ``error`` (a key of :func:`uvlab.gpu.aliasing.error_map`'s metrics).
ERROR_METRIC = "rms_full"
#: Issue 28's target: every algorithm within this many times conv's time.
CONV_FACTOR_TARGET = 5.0
#: What an algorithm may raise when the device cannot run it (besides the imager's
#: ImagingError and the backend's DeviceError): it is skipped with the reason, not fatal.
SKIPPABLE = (ImportError, MemoryError, NotImplementedError)


def register(actions) -> None:
    """Add ``bench algorithms`` to ``uvlab bench``'s sub-commands."""
    from uvlab.app.commands.validate import number

    p = actions.add_parser(
        "algorithms",
        help="every catalogue algorithm on the default scene: imaging-only change, error",
        description="Time an imaging-only change (the window re-imaging the held "
        "visibilities with another algorithm) on the lab's default scene for every "
        "algorithm of the catalogue, median of R runs with their spread, and measure each "
        "image against the float64 DFT reference of the lab's Compare.",
    )
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--npix", type=number(64, 8192, integer=True), default=512,
                   help="image side, even (default 512)")  # fmt: skip
    p.add_argument("--repeats", type=number(1, 100, integer=True), default=5,
                   help="timed runs per algorithm, median kept (default 5)")  # fmt: skip
    p.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    p.set_defaults(func=run, parser=p)


def run(args) -> int:
    """``uvlab bench algorithms``: print the table, write the JSON when asked."""
    if args.npix % 2:
        args.parser.error(f"--npix must be even, got {args.npix}")
    report = bench_algorithms(args.device, args.npix, args.repeats)
    print(format_algorithms_bench(report))
    write_report(report, args)
    return 0


def bench_algorithms(device: str = "auto", npix: int = 512, repeats: int = 5) -> dict:
    """Time and measure every catalogue algorithm on the default scene; a JSON-ready dict."""
    from uvlab.gpu.backend import DeviceError, resolve_device
    from uvlab.gpu.gridders.registry import NAMES

    report = {
        "scene": "default (MeerKAT, 180 × 2016 baselines × 4 channels, teaching sky)",
        "device": device,
        "npix": int(npix),
        "repeats": int(repeats),
        "cpu_count": os.cpu_count(),
        "load_avg_before": _load_avg(),
        "error_metric": ERROR_METRIC,
    }
    try:
        dev = resolve_device(device)
    except DeviceError as exc:
        report["algorithms"] = {name: {"skipped": str(exc)} for name in NAMES}
        return report
    report["device"] = dev
    report.update(_measure_all(dev, int(npix), int(repeats)))
    report["load_avg_after"] = _load_avg()
    return report


def _measure_all(device: str, npix: int, repeats: int) -> dict:
    """The scene, the DFT reference and each algorithm's record, as the report's fields."""
    from uvlab.app.commands.bench.worker import default_request, timed_job
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.lab.sources import read_samples
    from uvlab.gpu.gridders.registry import NAMES

    base = default_request(device, npix)
    cache = WorkCache()
    timed_job(base, cache)  # the observation and the prediction, held from now on
    cmp = _reference(base, read_samples(base, cache))
    results = {}
    for name in NAMES:
        results[name] = _measure_one(base, name, cache, cmp, repeats)
    _add_conv_factors(results)
    return {
        "nvis": cmp.nvis,
        "cell_arcsec": cmp.spec.cell_arcsec,
        "change_from": base.imaging.algorithm,
        "reference": {
            "label": cmp.reference_label,
            "step": cmp.step,
            "seconds": float(sum(cmp.reference_timing.values())),
        },
        "algorithms": results,
    }


def _reference(base, samples):
    """The lab Compare's DFT reference of ``samples`` (one cheap entry: the base algorithm).

    The entry's own error comes along as a cross-check of the bench's
    (:func:`_measure_one` images the same algorithm through the job).
    """
    from uvlab.app.lab.compare import Entry, drain, iter_samples_comparison

    name = base.imaging.algorithm
    return drain(iter_samples_comparison(base, samples, [Entry(name, name, base.grid_params())]))


def _measure_one(base, name: str, cache, cmp, repeats: int) -> dict:
    """One algorithm's timed imaging-only change and its error, or why it was skipped."""
    from uvlab.app.commands.bench.worker import change_samples, median_sample, timed_job
    from uvlab.app.lab.compare_reference import DFT_BUDGET
    from uvlab.gpu.aliasing import error_map
    from uvlab.gpu.backend import DeviceError
    from uvlab.gpu.gridders.registry import ALGORITHMS, algorithm
    from uvlab.gpu.imaging.imager import ImagingError

    record = algorithm(name)
    cost = float(base.imaging.npix) ** 2 * cmp.nvis
    if not record.is_gridder and cost > DFT_BUDGET[base.device]:
        return {
            "skipped": f"the DFT reference itself: N²·nvis = {cost:.2g} products exceed the "
            f"{base.device} budget of {DFT_BUDGET[base.device]:.2g} (the reference is subsampled)"
        }
    request = replace(base, imaging=replace(base.imaging, algorithm=name))
    # the change comes from the base algorithm, or for that one from another gridder
    other = next(a for a in ALGORITHMS if a != name)
    partner = base if name != base.imaging.algorithm else _with_algorithm(base, other)
    try:
        timed_job(partner, cache)
        samples = change_samples(partner, request, cache, repeats)
    except (ImagingError, DeviceError, *SKIPPABLE) as exc:
        return {"skipped": f"{type(exc).__name__}: {exc}"}
    seconds, out = median_sample(samples)
    _, metrics = error_map(out.dirty[:: cmp.step, :: cmp.step], cmp.reference)
    times = [s[0] for s in samples]
    return {
        "median_s": float(seconds),
        "error": metrics[ERROR_METRIC],
        "metrics": metrics,
        "samples_s": times,
        "min_s": float(min(times)),
        "max_s": float(max(times)),
        "timing_s": {k: float(v) for k, v in out.timing.items()},
        "change_from": partner.imaging.algorithm,
        "host_only": bool(record.host_only),
    }


def _with_algorithm(request, name: str):
    return replace(request, imaging=replace(request.imaging, algorithm=name))


def _add_conv_factors(results: dict) -> None:
    """Each measured algorithm's median over conv's (``x_conv``), and whether it is within 5×."""
    from uvlab.gpu.gridders.registry import EXACT_GCF

    conv = results.get(EXACT_GCF, {}).get("median_s")
    for r in results.values():
        if conv and "median_s" in r:
            r["x_conv"] = r["median_s"] / conv
            r["within_target"] = r["x_conv"] <= CONV_FACTOR_TARGET


def _load_avg() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def format_algorithms_bench(report: dict) -> str:
    """One line per algorithm: median, spread, × conv and error; skipped ones with the reason."""
    head = f"uvlab bench algorithms: {report['device']}, {report['npix']}², "
    head += f"{report['repeats']} runs each, imaging-only change"
    lines = [head]
    if "reference" in report:
        ref = report["reference"]
        lines.append(
            f"  {report['nvis']:,} visibilities; error: {ERROR_METRIC} of |I − I_dft| / peak "
            f"against the {ref['label']} ({ref['seconds']:.1f} s)"
        )
    lines.append(f"  {'algorithm':<15} {'median':>9} {'min–max':>17} {'× conv':>7} {'error':>9}")
    for name, r in report["algorithms"].items():
        if "skipped" in r:
            lines.append(f"  {name:<15} skipped: {r['skipped']}")
            continue
        spread = f"{r['min_s']:.3f}–{r['max_s']:.3f} s"
        factor = f"{r['x_conv']:.1f}" if "x_conv" in r else "—"
        lines.append(
            f"  {name:<15} {r['median_s']:7.3f} s {spread:>17} {factor:>7} {r['error']:9.2e}"
        )
    return "\n".join(lines)
