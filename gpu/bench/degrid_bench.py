"""Degridding benchmark: time, rate and accuracy of image → visibilities (DESIGN §4).

Pure NumPy/CuPy logic; ``uvlab bench degrid`` (:mod:`uvlab.app.commands.bench.degrid`)
supplies the antenna positions, the sizes and the optional GPU peer. The
visibilities are those of the gridding benchmark (MeerKAT, 2016 baselines ×
ntime × nchan, :func:`uvlab.gpu.bench.grid_data.make_uv`, uvlab's default
cell); the model is ``nsrc`` point sources of exponential fluxes on random
pixels of the whole image (edges included, where the corrector is largest).

- uvlab: :func:`uvlab.gpu.degridding.degrid` with the data on the device; a
  warm-up call pays NVRTC compilation and cuFFT planning, then ``repeats``
  calls are timed whole (CUDA events on the GPU, perf_counter on the CPU)
  with the median kept, and the median of each stage;
- **rate** = visibilities ÷ total time;
- **accuracy**: ‖V − V_dft‖/‖V_dft‖ and max |V − V_dft| / max |V_dft| on
  ``nsub`` evenly spaced visibilities against the float64 direct sum over
  the model's nonzero pixels (exact);
- **ducc0**: ``dirty2vis`` (:func:`uvlab.gpu.ducc_engine.predict_image`) on
  all host cores, same image, same ε, same precision, timed in the same run;
- **peer**: an optional callable (cuFINUFFT type 2 on the app side) timed on
  the same points and scored on the same subsample.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass

import numpy as np

from uvlab.gpu import ducc_engine
from uvlab.gpu.bench import grid_data
from uvlab.gpu.bench.predict_bench import _timer
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import StageTimer


@dataclass(frozen=True)
class DegridCase:
    """One benchmarked degridder configuration."""

    label: str
    algorithm: str
    params: GridParams
    eps: float | None = None


@dataclass(frozen=True)
class DegridSize:
    """Model side, MeerKAT ntime × nchan, DFT subsample and model sources."""

    npix: int
    ntime: int
    nchan: int
    nsub: int = 2000
    nsrc: int = 4000


def gpu_cases() -> tuple[DegridCase, ...]:
    """conv with the exact ES kernel at the issue's two settings."""
    single = GridParams.from_eps(1e-5, precision="single")
    return (
        DegridCase("conv-ES eps=1e-5 single", "conv", single, 1e-5),
        DegridCase("conv-ES eps=1e-6 double", "conv", GridParams.from_eps(1e-6), 1e-6),
    )


def cpu_cases() -> tuple[DegridCase, ...]:
    """The host paths: ducc (ducc0's NUFFT) and conv (the NumPy chain) at ε = 1e-5."""
    return (
        DegridCase("ducc eps=1e-5 [ducc0 nufft]", "ducc", GridParams.from_eps(1e-5), 1e-5),
        DegridCase("conv-ES eps=1e-5 [numpy]", "conv", GridParams.from_eps(1e-5), 1e-5),
    )


def make_model(npix: int, nsrc: int, seed: int = 15) -> np.ndarray:
    """(N, N) float64: ``nsrc`` point sources of exponential fluxes (mean 1 Jy) on random pixels."""
    rng = np.random.default_rng(seed)
    img = np.zeros((npix, npix))
    j, i = rng.integers(0, npix, (2, nsrc))
    np.add.at(img, (j, i), rng.exponential(1.0, nsrc))
    return img


def vis_error(vis, ref) -> dict:
    """Relative L2 and max-over-peak error of ``vis`` (host) against ``ref``."""
    err = np.asarray(vis, dtype=np.complex128) - ref
    return {
        "rel_l2": float(np.linalg.norm(err) / np.linalg.norm(ref)),
        "max_over_peak": float(np.abs(err).max() / np.abs(ref).max()),
    }


def time_ducc(img, u, v, spec: ImageSpec, eps: float, precision: str, repeats: int = 2):
    """Median seconds of ducc0's ``dirty2vis`` on all host cores, and its visibilities."""
    real = np.float32 if precision == "single" else np.float64
    img = np.asarray(img, dtype=real)
    times, vis = [], None
    for _ in range(max(1, repeats)):
        timer = StageTimer()
        vis = ducc_engine.predict_image(img, u, v, spec.cell_rad, eps, timer=timer)
        times.append(timer.seconds()["grid"])
    return float(np.median(times)), vis


def bench_case(case: DegridCase, img, u, v, spec: ImageSpec, device: str, repeats: int):
    """Median whole-call and per-stage seconds of one case, and its visibilities."""
    from uvlab.gpu.degridding import degrid

    out = {}
    measure = _timer(device)

    def call(timer=None):
        out["vis"] = degrid(img, u, v, spec, case.algorithm, case.params, timer=timer)

    call()  # warm-up: compilation, FFT plans
    totals, stages = [], []
    for _ in range(max(1, repeats)):
        timer = StageTimer(gpu=device == "gpu")
        totals.append(measure(lambda t=timer: call(t)))
        stages.append(timer.seconds())
    names = sorted({k for s in stages for k in s})
    median = {k: float(np.median([s.get(k, 0.0) for s in stages])) for k in names}
    return float(np.median(totals)), median, out["vis"]


def run_degrid_bench(
    ant_eq, size: DegridSize, *, device: str, repeats: int = 5, ducc: bool = True, peer=None,
    log=print,
) -> dict:  # fmt: skip
    """Every case of the device on one observation; returns the report dict.

    ``peer(img, u, v, spec, eps, precision, sub, ref, repeats) -> dict or None``
    (``sub`` the subsample's indices, ``ref`` its DFT visibilities) times a
    peer on the same points.
    """
    from uvlab.gpu.backend import device_info, get_xp, to_numpy
    from uvlab.gpu.gridders.dft_predict import predict_dft

    xp = get_xp(device=device)
    u, v = grid_data.make_uv(ant_eq, size.ntime, size.nchan, xp)
    spec = ImageSpec(size.npix, grid_data.cell_for(u, v))
    uh, vh = to_numpy(u), to_numpy(v)
    img = make_model(size.npix, size.nsrc)
    img_dev = xp.asarray(img)
    sub = np.linspace(0, uh.size - 1, min(size.nsub, uh.size)).astype(np.int64)
    ref = to_numpy(predict_dft(img_dev, u[xp.asarray(sub)], v[xp.asarray(sub)], spec, sparse=True))
    nvis = int(uh.size)
    log(f"degrid: {size.npix}², {nvis:.3e} visibilities, cell {spec.cell_arcsec:.3f}″")
    records = []
    for case in gpu_cases() if device == "gpu" else cpu_cases():
        prec = case.params.precision if device == "gpu" else "double"
        total, stages, vis = bench_case(case, img_dev, u, v, spec, device, repeats)
        rec = {
            "case": case.label,
            "algorithm": case.algorithm,
            "eps": case.eps,
            "precision": prec,
            "support": case.params.support,
            "sigma": case.params.sigma,
            "total_s": total,
            "stages_s": stages,
            "rate_vis_per_s": nvis / total,
            "error": vis_error(to_numpy(vis)[sub], ref),
        }
        del vis
        if ducc and case.eps is not None and ducc_engine.available():
            t, dvis = time_ducc(img, uh, vh, spec, case.eps, prec, repeats=2)
            rec["ducc0"] = {"total_s": t, "error": vis_error(dvis[sub], ref)}
            rec["speedup_vs_ducc0"] = t / total
            del dvis
        if peer is not None and case.eps is not None:
            rec["peer"] = peer(img_dev, u, v, spec, case.eps, prec, sub, ref, repeats)
        records.append(rec)
        log(format_row(rec))
    host = f"{platform.machine()} host, {os.cpu_count()} CPU threads"
    return {
        "benchmark": "degrid",
        "device": device,
        "device_info": device_info().describe() if device == "gpu" else host,
        "npix": size.npix,
        "ntime": size.ntime,
        "nchan": size.nchan,
        "nvis": nvis,
        "cell_arcsec": spec.cell_arcsec,
        "model_sources": size.nsrc,
        "dft_subsample": int(sub.size),
        "repeats": repeats,
        "records": records,
    }


def format_row(rec: dict) -> str:
    """One line per case: time, rate, error, and the ducc0 / peer comparisons."""
    e = rec["error"]
    line = (
        f"{rec['case']:<32} {rec['total_s'] * 1e3:9.2f} ms  {rec['rate_vis_per_s']:.3e} vis/s  "
        f"err {e['rel_l2']:.2e} (max {e['max_over_peak']:.2e})"
    )
    if "ducc0" in rec:
        d = rec["ducc0"]
        line += (
            f"\n    ducc0 dirty2vis {d['total_s'] * 1e3:9.1f} ms  err {d['error']['rel_l2']:.2e}"
            f"  -> uvlab {rec['speedup_vs_ducc0']:.3g}x faster"
        )
    for p in rec.get("peer") or ():
        line += (
            f"\n    {p['label']:<26} {p['total_s'] * 1e3:7.2f} ms"
            f" (execute {p['execute_s'] * 1e3:.2f})"
            f"  err {p['error']['rel_l2']:.2e}  -> uvlab {p['total_s'] / rec['total_s']:.2f}x"
        )
    return line


def format_table(report: dict) -> str:
    """The report as text: a header line and one block per case."""
    head = (
        f"degridding {report['npix']}² → {report['nvis']:.3e} visibilities on "
        f"{report['device_info']} (median of {report['repeats']}, DFT on "
        f"{report['dft_subsample']} visibilities)"
    )
    return "\n".join([head, *(format_row(r) for r in report["records"])])
