"""``uvlab bench scale``: imaging throughput against the number of Dask workers (issue 27).

On a MeasurementSet (``--ms``, or a MeerKAT one of about ``--gb`` GB, 64 channels,
made by ``uvlab simulate`` in a temporary folder), for each worker count of
``--workers`` (a fresh local cluster each, one worker per GPU with ``--device gpu``):
the chunked dirty image and PSF (:func:`uvlab.app.scale.ms_image.image_ms`) and, with
``--major``, one Cotton–Schwab major cycle (:class:`uvlab.app.scale.ms_clean.
ClusterMajorCycle`) read from the MS and then from the data held on the workers (on GPU
workers a second held cycle: from the samples the first left in device memory), each
timed after the workers' start and warm-up (timed apart); the rate in GB of the MS per
second and visibilities per second; every worker's peak resident memory; and, beside
them, the rate at which this process reads the MS's files once in large blocks (the
disk's sequential rate, or the page cache's when the MS is cached: said in the report).
The images of every run must agree: their peaks are reported.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from uvlab.app.commands.bench.options import finish
from uvlab.app.commands.validate import number

COUNTS = number(1, integer=True)
MEERKAT_BYTES_PER_TIME = 2016 * 64 * 36  # rows × channels × (DATA + FLAG) per correlation set


def register(actions) -> None:
    """Add ``bench scale`` to ``uvlab bench``'s sub-commands."""
    p = actions.add_parser(
        "scale",
        help="imaging throughput (GB/s, vis/s) and memory per worker against the workers",
        description=__doc__.splitlines()[0],
    )
    p.add_argument("--ms", help="MeasurementSet to image (default: simulate one)")
    p.add_argument("--gb", type=number(0.0, open_lo=True, unit="GB"), default=0.5,
                   help="size of the simulated MS, GB (default 0.5)")  # fmt: skip
    p.add_argument("--workers", type=worker_counts, default=[1, 2],
                   help="worker counts, comma-separated (default 1,2)")  # fmt: skip
    p.add_argument("--device", default="cpu", choices=("auto", "cpu", "gpu"))
    p.add_argument("--algorithm", help="gridder (default: the device's, as uvlab image)")
    p.add_argument("--npix", type=COUNTS, default=1024)
    p.add_argument("--cell-arcsec", type=number(0.0, open_lo=True), default=2.0)
    p.add_argument("--chunk-rows", type=COUNTS, default=50_000)
    p.add_argument("--major", action="store_true", help="also time a Cotton–Schwab major cycle")
    p.add_argument("--no-held", dest="held", action="store_false",
                   help="with --major, skip the cycle from data held on the workers")  # fmt: skip
    p.add_argument("--json", metavar="PATH", help="write the full report as JSON")
    p.set_defaults(func=run, parser=p)


def worker_counts(text: str) -> list[int]:
    """``--workers``' value: worker counts ≥ 1, comma-separated (argparse type)."""
    import argparse

    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give worker counts ≥ 1, comma-separated")
    return counts


def simulated_ms(folder: Path, gb: float, device: str = "cpu") -> Path:
    """A MeerKAT MS of about ``gb`` GB (64 channels, an 8 h track) made by ``uvlab simulate``
    in a process of its own (its memory is not the benchmark's)."""
    import subprocess
    import sys

    ntime = max(2, round(gb * 1e9 / MEERKAT_BYTES_PER_TIME))
    out = folder / "scale.ms"
    argv = [sys.executable, "-m", "uvlab.app", "simulate", "--array", "meerkat", "--ra", "0",
            "--dec", "-30", "--nchan", "64",
            "--int-s", f"{8 * 3600 / ntime:.6g}", "--sky", "example-field", "--noise-jy", "0.1",
            "--device", device, "--out", str(out)]  # fmt: skip
    if subprocess.run(argv).returncode != 0:
        raise RuntimeError("uvlab simulate failed")
    return out


def read_rate(path: Path) -> tuple[float, float]:
    """(bytes, bytes/s): every file under ``path`` read once in 16 MiB blocks."""
    total, t0 = 0, time.perf_counter()
    for f in sorted(p for p in path.rglob("*") if p.is_file()):
        with open(f, "rb", buffering=0) as fh:
            while block := fh.read(16 << 20):
                total += len(block)
    return float(total), total / max(time.perf_counter() - t0, 1e-9)


def _warm(spec, algorithm: str, device: str) -> None:
    """On each worker before the timing: the engine imported and a few samples imaged at
    the run's size (CUDA context, kernels compiled or loaded, FFT plans made), so that every
    worker count is timed from the same state, as on a cluster already running
    (``--scheduler``); the start is reported apart."""
    import numpy as np

    from uvlab.app.scale import ms_read  # noqa: F401  (the reader's imports)
    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.imaging.parts import image_part
    from uvlab.gpu.imaging.weighting import Weighting

    rng = np.random.default_rng(0)
    n, freq = 64, np.array([1.4e9])
    reach = 0.25 / spec.cell_rad * C_LIGHT / freq[0]  # metres: within the grid
    uvw = rng.uniform(-reach, reach, (n, 3))
    vis = np.ones((n, 1), np.complex64)
    weight, flag = np.ones((n, 1), np.float32), np.zeros((n, 1), bool)
    image_part(uvw, freq, vis, weight, flag, spec, Weighting(), algorithm=algorithm,
               device=device)  # fmt: skip


def _peak_rss() -> int:
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def one_run(source, spec, wt, workers: int, device: str, rows: int, major: bool,
            algorithm: str, held: bool = True) -> dict:  # fmt: skip
    """One worker count on a fresh local cluster: times, rates' inputs, peaks."""
    import numpy as np
    from distributed import wait

    from uvlab.app.scale.cluster import cluster_client, visible_gpus
    from uvlab.app.scale.ms_clean import ClusterMajorCycle, Pass, hold
    from uvlab.app.scale.ms_image import image_ms

    gpus = visible_gpus() if device == "gpu" else []
    t0 = time.perf_counter()
    with cluster_client(workers=workers, gpus=gpus) as client:
        client.wait_for_workers(workers)
        client.run(_warm, spec, algorithm, device)
        start_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = image_ms(client, source, spec, wt, chunk_rows=rows, device=device,
                       algorithm=algorithm)  # fmt: skip
        record = {"workers": workers, "image_s": time.perf_counter() - t0, "nvis": res.nvis,
                  "chunks": res.chunks, "peak_jy": float(np.max(res.dirty)),
                  "start_s": start_s, "stages_s": dict(res.timing)}  # fmt: skip
        if major:
            job = Pass(client, source, spec, wt, res.totals, rows, algorithm, device=device)
            cycle = ClusterMajorCycle(job)
            model = np.zeros_like(res.dirty)
            model[spec.npix // 2, spec.npix // 2] = record["peak_jy"]
            t0 = time.perf_counter()
            want = cycle.residual(model)
            record["major_s"] = time.perf_counter() - t0
        if major and held:
            kept = hold(job)  # the data read once and kept on the workers
            wait(list(kept.held))
            cycles = ClusterMajorCycle(kept)
            t0 = time.perf_counter()
            got = cycles.residual(model)
            record["major_held_s"] = time.perf_counter() - t0
            if device == "gpu":  # the next cycle, from the samples the first left on the GPUs
                t0 = time.perf_counter()
                cycles.residual(model)
                record["major_on_gpu_s"] = time.perf_counter() - t0
            record["major_held_equal"] = bool(
                np.allclose(got, want, rtol=0, atol=1e-9 * np.abs(want).max())
            )
        record["worker_peak_bytes"] = sorted(client.run(_peak_rss).values())
    return record


def run(args) -> int:
    import tempfile

    from uvlab.app.lab.imaging import lab_default_algorithm
    from uvlab.app.scale.ms_image import MSRead
    from uvlab.gpu.image_spec import ARCSEC, ImageSpec
    from uvlab.gpu.imaging.weighting import Weighting

    counts = args.workers
    algorithm = args.algorithm or lab_default_algorithm(args.device)
    with tempfile.TemporaryDirectory(prefix="uvlab-scale-") as tmp:
        path = Path(args.ms) if args.ms else simulated_ms(Path(tmp), args.gb, args.device)
        if not (path / "table.dat").is_file():
            args.parser.error(f"--ms {path}: not a MeasurementSet")
        nbytes, rate = read_rate(path)  # also brings the MS into the page cache, for all runs
        source, spec = MSRead(str(path)), ImageSpec(args.npix, args.cell_arcsec * ARCSEC)
        runs = [one_run(source, spec, Weighting("briggs", 0.0), k, args.device,
                        args.chunk_rows, args.major, algorithm, args.held)
                for k in counts]  # fmt: skip
    for r in runs:
        r["image_gbps"] = nbytes / 1e9 / r["image_s"] / 2  # two passes: density, imaging
        r["vis_per_s"] = r["nvis"] * 2 / r["image_s"]
        r["speedup"] = runs[0]["image_s"] / r["image_s"]
        if "major_s" in r:
            r["major_gbps"] = nbytes / 1e9 / r["major_s"]
            r["major_speedup"] = runs[0]["major_s"] / r["major_s"]
    report = {
        "ms": str(path),
        "ms_bytes": nbytes,
        "read_gbps": rate / 1e9,
        "cpus": os.cpu_count(),
        "device": args.device,
        "algorithm": algorithm,
        "npix": args.npix,
        "weighting": "briggs 0",
        "runs": runs,
    }
    return finish(report, _table(report), args)


def _table(report: dict) -> str:
    lines = [
        f"MS {report['ms_bytes'] / 1e9:.3g} GB; one read of its files: "
        f"{report['read_gbps']:.3g} GB/s (page cache as it is)",
        "workers  start s  image s  GB/s/pass  vis/s     speed-up  major s  held s  "
        "on-GPU s  worker peak MB",
    ]
    for r in report["runs"]:
        major = f"{r['major_s']:7.2f}" if "major_s" in r else "      -"
        major += f"  {r['major_held_s']:6.2f}" if "major_held_s" in r else "       -"
        major += f"  {r['major_on_gpu_s']:6.2f}" if "major_on_gpu_s" in r else "       -"
        peak = max(r["worker_peak_bytes"]) / 2**20
        lines.append(
            f"{r['workers']:7d}  {r['start_s']:7.2f}  {r['image_s']:7.2f}  {r['image_gbps']:9.3g}  "
            f"{r['vis_per_s']:.3g}  {r['speedup']:8.2f}  {major}  {peak:14.0f}"
        )
    for r in report["runs"]:
        stages = ", ".join(f"{k} {v:.2f} s" for k, v in r["stages_s"].items())
        lines.append(f"{r['workers']} workers' image: {stages}")
    return "\n".join(lines)
