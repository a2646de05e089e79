"""Gridding benchmark: per-stage times, gridding rate and accuracy (DESIGN §4).

Pure NumPy/CuPy logic; ``uvlab bench grid`` (app/commands/bench/__init__.py) supplies
the antenna positions and sizes. For each :class:`BenchCase` (algorithm,
precision, ε) it images random unit-weight visibilities of a MeerKAT-like
observation (:mod:`uvlab.gpu.bench.grid_data`) with the gridder the
registry returns for the device's array module, the data already on the
device:

- a warm-up call pays NVRTC compilation and cuFFT planning;
- each of ``repeats`` calls gets a fresh StageTimer (CUDA events on the GPU);
  the median of each stage is kept, and the median of the whole call;
- **gridding rate** = visibilities with nonzero weight ÷ grid-stage time
  (ducc0's and Muscat's GRecs/s count the same way);
- **image** = grid + prune + FFT + correct (+ crop, fused); **total** adds
  the sort / bin stage;
- **accuracy**: ‖I − I_dft‖/‖I_dft‖ on every k-th pixel against the float64
  DFT (labelled with k), when ``dft_step`` is given;
- **ducc0**: ``wgridder`` on all host cores for the same image at the same ε
  (conv cases), timed in the same run, with its accuracy;
- **full compression** (:func:`compress_cases`, ``uvlab bench grid
  --compress``): each nearest-cell algorithm at β = 16 without and with
  ``GridParams.compress``; the compressed record gives the cells gridded,
  the compression ratio (records in ÷ cells out) and its largest difference
  from the uncompressed image. Its rate still counts the original records.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, field, replace

import numpy as np

from uvlab.gpu.bench import grid_data
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import StageTimer

#: Stages summed into the image time (sort / bin excluded).
IMAGE_STAGES = ("grid", "prune", "FFT", "correct")


@dataclass(frozen=True)
class BenchCase:
    """One benchmarked configuration."""

    algorithm: str
    params: GridParams
    eps: float | None = None
    label: str = ""
    ducc: bool = False
    reuse: bool = False  # GPU: the sort / bin of (u, v) made once, outside the timing

    @property
    def name(self) -> str:
        return self.label or self.algorithm


@dataclass(frozen=True)
class BenchSize:
    """An observation size: image side and MeerKAT ntime × nchan (2016 baselines)."""

    npix: int
    ntime: int
    nchan: int
    cases: tuple = field(default=())
    dft_step: int | None = None


def conv_case(eps: float, precision: str, ducc: bool = True) -> BenchCase:
    params = GridParams.from_eps(eps, precision=precision)
    return BenchCase("conv", params, eps, f"conv-ES eps={eps:g}", ducc)


def gpu_cases(big: bool = False) -> tuple[BenchCase, ...]:
    """conv-ES at the cuFINUFFT reference settings, and the other algorithms at β = 16."""
    conv = (
        conv_case(1e-5, "single"),
        replace(conv_case(1e-5, "single", ducc=False), reuse=True, label="conv-ES eps=1e-05 reuse"),
        conv_case(1e-6, "double", ducc=not big),
    )
    if not big:
        conv = (conv_case(1e-4, "single"), *conv)
    hyb = GridParams.from_eps(1e-5, oversample=16, precision="single")
    others = (
        BenchCase("hybrid", hyb, 1e-5, "hybrid ES(eps=1e-5) beta=16"),
        BenchCase(
            "pruned-nn", GridParams(oversample=16, precision="single"), None, "pruned-nn beta=16"
        ),
    )
    if big:
        return conv + others
    tail = (
        BenchCase("hybrid", hyb.with_(precision="double"), 1e-5, "hybrid ES(eps=1e-5) beta=16"),
        BenchCase("nn", GridParams(precision="single"), None, "nn"),
        BenchCase(
            "nn-oversampled", GridParams(oversample=4, precision="single"), None, "nn-os beta=4"
        ),
    )
    return conv + others + tail


def compress_cases(precision: str, beta: int = 16) -> tuple[BenchCase, ...]:
    """nn-oversampled, hybrid and pruned-nn at β, each without then with full compression.

    hybrid reads its ES table (S = 7, σ = 2) by nearest lookup, so its u axis
    is quantised to the table's β points per cell too (Muscat's virtual NN grid).
    """
    out = []
    for name in ("nn-oversampled", "hybrid", "pruned-nn"):
        params = GridParams(oversample=beta, precision=precision)
        for on in (False, True):
            label = f"{name} beta={beta}" + (" compressed" if on else "")
            out.append(BenchCase(name, params.with_(compress=on), None, label))
    return tuple(out)


def cpu_cases() -> tuple[BenchCase, ...]:
    """The host paths: ducc (ducc0) and conv (NumPy) at ε = 1e-5, and the NumPy algorithms."""
    return (
        BenchCase("ducc", GridParams.from_eps(1e-5), 1e-5, "ducc eps=1e-5 [ducc0]"),
        BenchCase("conv", GridParams.from_eps(1e-5), 1e-5, "conv-ES [numpy]"),
        BenchCase("hybrid", GridParams.from_eps(1e-5, oversample=16), 1e-5, "hybrid beta=16"),
        BenchCase("pruned-nn", GridParams(oversample=16), None, "pruned-nn beta=16"),
        BenchCase("nn", GridParams(), None, "nn"),
    )


def bench_case(case: BenchCase, u, v, vis, spec: ImageSpec, device: str, repeats: int, config=None):
    """Time one case; returns (record, last image)."""
    from uvlab.gpu.backend import get_xp
    from uvlab.gpu.bench.predict_bench import _timer
    from uvlab.gpu.gridders.registry import get_gridder

    xp = get_xp(u)
    fn = get_gridder(case.algorithm, xp=xp)
    kwargs = {"config": config} if config is not None else {}  # the CUDA path's tile sizes
    if case.reuse and device == "gpu":  # re-imaging the same points: only the values change
        from uvlab.gpu.gridders.cuda_gridders import bin_plan
        from uvlab.gpu.gridders.registry import algorithm

        plan = bin_plan(algorithm(case.algorithm), u, v, spec, case.params, config=config)
        if plan is not None:
            kwargs["plan"] = plan
    out = {}

    def call(timer=None):
        out["img"] = fn(u, v, vis, spec, case.params, timer=timer, **kwargs)

    measure = _timer(device)
    first = measure(call)
    stages, totals = [], []
    for _ in range(max(1, repeats)):
        timer = StageTimer(gpu=device == "gpu")
        totals.append(measure(lambda t=timer: call(t)))
        stages.append(timer.seconds())
    names = list(stages[0])
    med = {s: float(np.median([st.get(s, 0.0) for st in stages])) for s in names}
    nvis = int(xp.count_nonzero(vis))
    grid_s = med.get("grid", 0.0)
    rec = {
        "case": case.name,
        "reuse": case.reuse,
        "algorithm": case.algorithm,
        "precision": case.params.precision,
        "eps": case.eps,
        "support": case.params.support,
        "oversample": case.params.oversample,
        "nvis": nvis,
        "stage_s": med,
        "image_s": float(sum(med.get(s, 0.0) for s in IMAGE_STAGES)),
        "total_s": float(np.median(totals)),
        "stage_sum_s": float(sum(med.values())),
        "first_call_s": float(first),
        "grid_rate": nvis / grid_s if grid_s > 0 else float("nan"),
    }
    rec["image_rate"] = nvis / rec["image_s"] if rec["image_s"] > 0 else float("nan")
    rec["compress"] = case.params.compress
    if case.params.compress:
        from uvlab.gpu.gridders.compress import compress, key_from_plans
        from uvlab.gpu.gridders.registry import axis_plans

        key = key_from_plans(*axis_plans(case.algorithm, spec, case.params))
        rec["cells"] = compress(u, v, vis, key).n_out
        rec["compression_ratio"] = nvis / rec["cells"]
    return rec, out["img"]


def run_size(ant_eq, size: BenchSize, *, device: str, repeats: int, ducc: bool, log=print):
    """All cases of one observation size; returns its report section."""
    from uvlab.gpu.backend import get_xp, to_numpy

    xp = get_xp(device=device)
    u, v = grid_data.make_uv(ant_eq, size.ntime, size.nchan, xp)
    spec = ImageSpec(size.npix, grid_data.cell_for(u, v))
    section = {
        "npix": size.npix,
        "ntime": size.ntime,
        "nchan": size.nchan,
        "nbl": int(u.size // (size.ntime * size.nchan)),
        "nvis": int(u.size),
        "cell_arcsec": spec.cell_arcsec,
        "freq_hz": [float(f) for f in grid_data.channel_freqs(size.nchan)],
        "results": [],
    }
    log(f"--- {size.npix}² image, {u.size:.3e} visibilities ({size.ntime} × {size.nchan} ch)")
    host = {}
    for vdt in (np.complex64, np.complex128):
        cases = [c for c in size.cases if (c.params.precision == "single") == (vdt == np.complex64)]
        if not cases:
            continue
        vis = grid_data.make_vis(u.size, xp, vdt)
        ref = None
        if size.dft_step:
            ref = grid_data.dft_reference(u, v, vis, spec, size.dft_step)
        plain = {}  # algorithm → its uncompressed image, to compare the compressed one with
        for case in cases:
            rec, img = bench_case(case, u, v, vis, spec, device, repeats)
            if ref is not None:
                rec["accuracy"] = grid_data.sampled_error(img, ref, size.dft_step)
            if case.params.compress and case.algorithm in plain:
                p0 = plain.pop(case.algorithm)
                diff = xp.abs(img.astype(xp.float64) - p0).max() / xp.abs(p0).max()
                rec["vs_uncompressed"] = float(diff)
            elif any(c.params.compress and c.algorithm == case.algorithm for c in cases):
                plain[case.algorithm] = img.astype(xp.float64)
            del img
            if ducc and case.ducc and case.eps is not None:
                if not host:
                    host.update(u=to_numpy(u), v=to_numpy(v))
                t, dimg = grid_data.time_ducc(host["u"], host["v"], to_numpy(vis), spec, case.eps)
                rec["ducc_s"] = t
                rec["ducc_rate"] = rec["nvis"] / t
                if ref is not None:
                    rec["ducc_accuracy"] = grid_data.sampled_error(dimg, ref, size.dft_step)
            section["results"].append(rec)
            log(format_row(rec))
        del vis
    return section


def run_grid_bench(ant_eq, *, device: str, sizes, repeats: int = 5, ducc: bool = True, log=print):
    """Run every size and case; returns a JSON-ready report."""
    from uvlab.gpu.backend import device_info

    ducc = ducc and grid_data.ducc_available()
    report = {
        "benchmark": "grid",
        "device": device,
        "device_info": device_info().describe(),
        "host": platform.node(),
        "repeats": repeats,
        "ducc0": ducc,
        "rate_unit": "visibilities with nonzero weight per second of the grid stage",
        "sizes": [],
    }
    for size in sizes:
        report["sizes"].append(
            run_size(ant_eq, size, device=device, repeats=repeats, ducc=ducc, log=log)
        )
        if device == "gpu":
            import cupy

            cupy.get_default_memory_pool().free_all_blocks()
    return report


def format_row(rec: dict) -> str:
    st = rec["stage_s"]
    acc = rec.get("accuracy", {}).get("rel_l2")
    ducc = rec.get("ducc_s")
    return (
        f"{rec['case']:<30} {rec['precision']:<6} "
        f"bin {st.get('sort / bin', 0) * 1e3:8.3f} grid {st.get('grid', 0) * 1e3:8.3f} "
        f"prune {st.get('prune', 0) * 1e3:7.3f} fft {st.get('FFT', 0) * 1e3:7.3f} "
        f"corr {st.get('correct', 0) * 1e3:6.3f} | image {rec['image_s'] * 1e3:8.3f} "
        f"total {rec['total_s'] * 1e3:8.3f} ms | rate {rec['grid_rate']:.3e}"
        + (f" | err {acc:.1e}" if acc is not None else "")
        + (f" | ducc0 {ducc * 1e3:.0f} ms" if ducc else "")
        + (
            f" | compress {st.get('compress', 0) * 1e3:.3f} ms, ratio "
            f"{rec['compression_ratio']:.2f} ({rec['cells']:.3e} cells)"
            if "cells" in rec
            else ""
        )
        + (f", vs plain {rec['vs_uncompressed']:.1e}" if "vs_uncompressed" in rec else "")
    )


def format_table(report: dict) -> str:
    """A plain-text table of the results."""
    lines = [f"gridding benchmark on {report['device_info']} (times in ms, rate in vis/s)"]
    for sec in report["sizes"]:
        lines.append(
            f"{sec['npix']}² image, {sec['nvis']:.3e} vis ({sec['ntime']} times × "
            f'{sec["nchan"]} ch × {sec["nbl"]} baselines), cell {sec["cell_arcsec"]:.3f}"'
        )
        lines += [format_row(r) for r in sec["results"]]
    return "\n".join(lines)
