"""Predict benchmark: median time and source·visibility rate (DESIGN §4).

Pure NumPy/CuPy logic; the caller supplies the antenna positions (the CLI
``uvlab bench predict`` reads them from the bundled MeerKAT layout). The rate
counts ``nsrc × nrow × nchan`` source·visibility terms per second; for full
polarisation a "visibility" is one 2×2 matrix of the four correlations.

Cases: scalar (Stokes I) without smearing, scalar with time and bandwidth
smearing, linear full-pol with smearing; each in float32 and float64. The Jones
cases (:data:`JONES_CASES`, ``uvlab bench predict --jones``) add an Airy primary
beam (E, :func:`~uvlab.gpu.predict.beams.antenna_beams`) and random antenna gains
(G, :func:`~uvlab.gpu.predict.gains.random_gains`): "E+G" with one 13.5 m dish for
every antenna (the beam then scales each source's flux per channel), "E(ant)+G"
with dishes that differ by 1 % RMS (the beam enters each antenna's factor). GPU
timings use CUDA events after a warm-up call (which pays the NVRTC compile),
with the output left on the device; the median of ``repeats`` calls is kept.
"""

from __future__ import annotations

import math
import platform
import time
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.geometry import baseline_uvw
from uvlab.gpu.predict import Smearing, predict_antennas, predict_reference
from uvlab.gpu.sources import SourceArrays

#: (name, mode, smearing, method[, jones]) of each benchmarked case.
CASES = (
    ("scalar", "scalar", False, "auto"),
    ("scalar+smear", "scalar", True, "auto"),
    ("linear+smear", "linear", True, "auto"),
)
#: The cases with beams and gains: jones "uniform" (one dish) or "per-antenna" dishes.
JONES_CASES = (
    ("scalar E+G", "scalar", False, "auto", "uniform"),
    ("scalar E(ant)+G", "scalar", False, "auto", "per-antenna"),
    ("linear+smear E+G", "linear", True, "auto", "uniform"),
    ("linear+smear E(ant)+G", "linear", True, "auto", "per-antenna"),
)
#: Dish diameter of the Jones cases (MeerKAT's), metres.
DISH_M = 13.5


@dataclass(frozen=True, eq=False)
class BenchObservation:
    """A synthetic observation: per-antenna uvw, baselines, channels, smearing."""

    ant_uvw: np.ndarray  # (time, nant, 3) m
    ant1: np.ndarray
    ant2: np.ndarray
    freq_hz: np.ndarray
    smearing: Smearing

    @property
    def nrow(self) -> int:
        return self.ant_uvw.shape[0] * len(self.ant1)

    def describe(self) -> dict:
        return {
            "ntime": int(self.ant_uvw.shape[0]),
            "nant": int(self.ant_uvw.shape[1]),
            "nbl": len(self.ant1),
            "nchan": len(self.freq_hz),
            "nrow": int(self.nrow),
            "freq_hz": [float(self.freq_hz[0]), float(self.freq_hz[-1])],
            "chan_width_hz": float(np.asarray(self.smearing.chan_width_hz).ravel()[0]),
            "int_s": float(self.smearing.int_s),
            "dec0_deg": math.degrees(self.smearing.dec0_rad),
        }


def make_observation(
    ant_eq,
    ntime: int = 100,
    nchan: int = 64,
    *,
    ha_span_h: float = 8.0,
    dec_deg: float = -30.0,
    f0_hz: float = 1.284e9,
    df_hz: float = 835_937.5,
    int_s: float = 8.0,
) -> BenchObservation:
    """Per-antenna uvw over hour angles ±ha_span_h/2 for antennas at ``ant_eq`` (nant, 3) m."""
    ant_eq = np.asarray(ant_eq, dtype=np.float64)
    ha = np.radians(15.0 * np.linspace(-ha_span_h / 2, ha_span_h / 2, ntime))
    dec = math.radians(dec_deg)
    ant_uvw = baseline_uvw(ant_eq, ha, dec)  # (time, nant, 3): uvw of X_a − site
    p, q = np.triu_indices(len(ant_eq), k=1)
    freq = f0_hz + df_hz * np.arange(nchan)
    return BenchObservation(
        ant_uvw, p.astype(np.int32), q.astype(np.int32), freq, Smearing(df_hz, int_s, dec)
    )


def make_sky(nsrc: int, seed: int = 1, fov_deg: float = 2.0) -> SourceArrays:
    """Random point sources within ±fov/2 of the phase centre, 10% polarised, α ≈ −0.7."""
    rng = np.random.default_rng(seed)
    half = math.radians(fov_deg / 2)
    lm = rng.uniform(-half, half, (nsrc, 2))
    lmn = np.column_stack([lm, np.sqrt(1.0 - np.sum(lm**2, axis=1))])
    i = rng.uniform(0.1, 1.0, nsrc)
    pol = rng.uniform(-0.1, 0.1, (nsrc, 3)) * i[:, None]
    return SourceArrays.points(
        lmn, np.column_stack([i, pol]), rng.normal(-0.7, 0.2, nsrc), np.full(nsrc, 1.4e9)
    )


def _timer(device: str):
    """Return ``measure(fn) -> seconds``: CUDA events on the GPU, perf_counter on the CPU."""
    if device == "gpu":
        import cupy

        def measure(fn):
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            return cupy.cuda.get_elapsed_time(start, stop) / 1e3

        return measure

    def measure(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    return measure


def bench_case(
    obs: BenchObservation,
    sky: SourceArrays,
    mode: str,
    smear: bool,
    dtype,
    device: str,
    method: str = "auto",
    repeats: int = 5,
    jones=None,
):
    """Time one case; returns (record dict, last output array).

    ``jones``: (beam, gains) arrays for ``predict_antennas`` (:func:`make_jones`), or None.
    """
    out = {}
    beam, gains = jones if jones is not None else (None, None)

    def call():
        out["vis"] = predict_antennas(
            obs.ant_uvw,
            obs.ant1,
            obs.ant2,
            obs.freq_hz,
            sky,
            mode=mode,
            smearing=obs.smearing if smear else None,
            dtype=dtype,
            device=device,
            method=method,
            host=False,
            beam=beam,
            gains=gains,
        )

    measure = _timer(device)
    warm = measure(call)  # compiles kernels on the first GPU call
    times = [measure(call) for _ in range(max(repeats, 1))]
    med = float(np.median(times))
    terms = sky.nsrc * obs.nrow * len(obs.freq_hz)
    return {
        "mode": mode,
        "smearing": smear,
        "dtype": np.dtype(dtype).name,
        "method": method,
        "nsrc": sky.nsrc,
        "source_vis": terms,
        "median_s": med,
        "times_s": [float(t) for t in times],
        "first_call_s": float(warm),
        "rate": terms / med if med > 0 else float("inf"),
    }, out["vis"]


def make_jones(obs: BenchObservation, sky: SourceArrays, kind: str, mode: str, seed: int = 9):
    """(beam, gains) of a Jones case: an Airy beam and 5 %/10° random gains (float64, host).

    ``kind`` "uniform": every dish 13.5 m (beam (1, 1, chan, src)); "per-antenna": dishes
    13.5 m × (1 + 0.01·N(0, 1)) (beam (1, ant, chan, src)). Gains (time, ant, chan), or
    2×2 per feed for full polarisation. :func:`run_predict_bench` puts them on the device
    before timing (the ~0.3 GB per-antenna beam would otherwise cross the bus every call).
    """
    from uvlab.gpu.predict.beams import antenna_beams
    from uvlab.gpu.predict.gains import random_gains

    nant = obs.ant_uvw.shape[1]
    rng = np.random.default_rng(seed)
    dish = DISH_M if kind == "uniform" else DISH_M * (1.0 + 0.01 * rng.standard_normal(nant))
    beam = antenna_beams("airy", sky.lmn, obs.freq_hz, dish)
    times = np.arange(obs.ant_uvw.shape[0]) * float(obs.smearing.int_s)
    gains = random_gains(
        times, nant, len(obs.freq_hz), amp_rms=0.05, phase_rms_rad=math.radians(10.0),
        corr_time_s=600.0, seed=seed, feeds=1 if mode == "scalar" else 2,
    )  # fmt: skip
    return beam, gains


def _channel_smearing(obs: BenchObservation, smear: bool, chans):
    """The observation's Smearing for channels ``chans`` only (None without smearing)."""
    if not smear:
        return None
    sm = obs.smearing
    return Smearing(sm.widths(len(obs.freq_hz))[chans], sm.int_s, sm.dec0_rad, sm.time, sm.band)


def spot_check_jones(obs, sky, vis, mode, smear, jones, ntime=2, nbl=3, nchan=2, seed=5):
    """‖V − V_ref‖/‖V_ref‖ on a few times, baselines and channels against the float64 2×2 oracle."""
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.predict.jones_reference import predict_jones_reference

    rng = np.random.default_rng(seed)
    t = np.sort(rng.choice(obs.ant_uvw.shape[0], ntime, replace=False))
    b = np.sort(rng.choice(len(obs.ant1), nbl, replace=False))
    c = np.sort(rng.choice(len(obs.freq_hz), min(nchan, len(obs.freq_hz)), replace=False))
    beam, gains = jones
    sm = _channel_smearing(obs, smear, c)
    ref = predict_jones_reference(
        obs.ant_uvw[t], obs.ant1[b], obs.ant2[b], obs.freq_hz[c], sky, mode, sm,
        beam=to_numpy(beam)[:, :, c], gains=to_numpy(gains)[t][:, :, c],
    )  # fmt: skip
    got = to_numpy(vis[t][:, b][:, :, c])
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def spot_check(
    obs: BenchObservation,
    sky: SourceArrays,
    vis,
    mode: str,
    smear: bool,
    nrows: int = 3,
    nchan: int = 2,
    seed: int = 5,
) -> float:
    """‖V − V_ref‖/‖V_ref‖ on a few random (row, channel) pairs against the float64 triple sum."""
    from uvlab.gpu.backend import to_numpy

    rng = np.random.default_rng(seed)
    t = rng.integers(0, obs.ant_uvw.shape[0], nrows)
    b = rng.integers(0, len(obs.ant1), nrows)
    c = rng.choice(len(obs.freq_hz), size=min(nchan, len(obs.freq_hz)), replace=False)
    uvw = obs.ant_uvw[t, obs.ant1[b]] - obs.ant_uvw[t, obs.ant2[b]]
    sm = _channel_smearing(obs, smear, c)
    ref = predict_reference(uvw, obs.freq_hz[c], sky, mode, sm)
    got = to_numpy(vis[t, b][:, c])
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def run_predict_bench(
    ant_eq,
    *,
    device: str,
    nsrc_list,
    dtypes=("float32", "float64"),
    ntime: int = 100,
    nchan: int = 64,
    repeats: int = 5,
    cases=CASES,
    extra_scalar_methods=(),
    check: bool = True,
    log=print,
) -> dict:
    """Run every case × dtype × source count; returns a JSON-ready report."""
    from uvlab.gpu.backend import device_info, get_xp

    obs = make_observation(ant_eq, ntime, nchan)
    results = []
    case_list = list(cases) + [(f"scalar[{m}]", "scalar", False, m) for m in extra_scalar_methods]
    for name, mode, smear, method, *rest in case_list:
        kind = rest[0] if rest else None
        for nsrc in nsrc_list:
            sky = make_sky(nsrc)
            jones = make_jones(obs, sky, kind, mode) if kind else None
            if jones is not None and device == "gpu":  # held on the device, as the lab holds them
                xp = get_xp(device=device)
                jones = tuple(xp.asarray(a) for a in jones)
            last = {}
            for dt in dtypes:
                rec, vis = bench_case(
                    obs, sky, mode, smear, np.dtype(dt), device, method, repeats, jones
                )
                rec["case"] = name
                if kind:
                    rec["jones"] = {"beam": f"airy, {kind} dishes", "gains": "5 % / 10° RMS"}
                last[dt] = vis
                if check and nsrc == max(nsrc_list) and dt == "float64":
                    rec["spot_rel_err_vs_reference"] = (
                        spot_check_jones(obs, sky, vis, mode, smear, jones)
                        if kind
                        else spot_check(obs, sky, vis, mode, smear)
                    )
                results.append(rec)
                log(format_row(rec))
            if "float32" in last and "float64" in last:
                a, b = last["float32"], last["float64"]
                xp = get_xp(b)
                err = float(xp.linalg.norm(a - b) / xp.linalg.norm(b))
                for rec in results[-len(dtypes) :]:
                    rec["rel_err_f32_vs_f64"] = err
            del last
    return {
        "benchmark": "predict",
        "device": device,
        "device_info": device_info().describe(),
        "host": platform.node(),
        "observation": obs.describe(),
        "repeats": repeats,
        "rate_unit": "source·visibilities per second, nsrc × nrow × nchan "
        "(full-pol: one 2×2 matrix per visibility)",
        "results": results,
    }


def format_row(rec: dict) -> str:
    err = rec.get("rel_err_f32_vs_f64")
    return (
        f"{rec.get('case', rec['mode']):<16} {rec['dtype']:<8} {rec['nsrc']:>6} "
        f"{rec['median_s'] * 1e3:>11.3f} {rec['rate']:>11.3e}"
        + (f"  f32/f64 err {err:.1e}" if err is not None else "")
    )


def format_table(report: dict) -> str:
    """A plain-text table of the results."""
    head = f"{'case':<16} {'dtype':<8} {'nsrc':>6} {'median ms':>11} {'src·vis/s':>11}"
    lines = [f"predict benchmark on {report['device_info']}", str(report["observation"]), head]
    lines += [format_row(r) for r in report["results"]]
    return "\n".join(lines)


def measure_ceilings(n: int = 8192) -> dict:
    """The card's measured ceilings: device copy bandwidth and GEMM rates (GPU only)."""
    import cupy

    measure = _timer("gpu")
    out = {}
    a = cupy.ones(2**28, dtype=cupy.float64)  # 2 GiB
    b = cupy.empty_like(a)
    cupy.copyto(b, a)
    t = min(measure(lambda src=a, dst=b: cupy.copyto(dst, src)) for _ in range(5))
    out["d2d_copy_GBps"] = 2 * a.nbytes / t / 1e9
    del a, b
    rng = cupy.random.default_rng(0)
    for name, dt, flops in (
        ("sgemm", cupy.float32, 2),
        ("dgemm", cupy.float64, 2),
        ("cgemm", cupy.complex64, 8),
        ("zgemm", cupy.complex128, 8),
    ):
        x = rng.standard_normal(
            (n, n), dtype=np.float32 if dt in (cupy.float32, cupy.complex64) else np.float64
        ).astype(dt)
        cupy.matmul(x, x)
        t = min(measure(lambda x=x: cupy.matmul(x, x)) for _ in range(3))
        out[f"{name}_TFLOPs"] = flops * n**3 / t / 1e12
        del x
    cupy.get_default_memory_pool().free_all_blocks()
    return out
